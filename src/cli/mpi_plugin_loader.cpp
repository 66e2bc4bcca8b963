#include "cli/mpi_plugin_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace gputopo::cli {
namespace {

template <class F>
bool bind_mpi(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

std::vector<std::string> plugin_candidates() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("GPUTOPO_MPI_PLUGIN")) return {env};
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    paths.push_back((exe.parent_path() / "libgputopo_mpi.so").string());
    paths.push_back(
        (exe.parent_path() / ".." / GPUTOPO_PLUGIN_LIBDIR / "gputopo" / "libgputopo_mpi.so")
            .string());
  }
  return paths;
}

}  // namespace

std::unique_ptr<MpiPlugin> MpiPlugin::load(std::string& why) {
  const auto paths = plugin_candidates();
  for (const auto& path : paths) {
    if (!std::filesystem::exists(path)) continue;
    // Open MPI loads components of its own that need libmpi's symbols: global, not local.
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) {
      const char* e = dlerror();
      why = path + " does not load (" + (e ? e : "unknown error") + "): is Open MPI installed?";
      return nullptr;
    }
    std::unique_ptr<MpiPlugin> p(new MpiPlugin());
    p->lib_ = lib;
    if (!bind_mpi(lib, "gputopo_mpi_init", p->init_) ||
        !bind_mpi(lib, "gputopo_mpi_gather", p->gather_) ||
        !bind_mpi(lib, "gputopo_mpi_free", p->free_) ||
        !bind_mpi(lib, "gputopo_mpi_finalize", p->finalize_)) {
      why = path + " is not gputopo's MPI plugin";
      return nullptr;
    }
    return p;
  }
  why = "libgputopo_mpi.so not found (";
  for (std::size_t i = 0; i < paths.size(); ++i) why += (i ? ", " : "") + paths[i];
  why += "): build gputopo where Open MPI's libopenmpi-dev is installed";
  return nullptr;
}

MpiPlugin::World MpiPlugin::init() {
  World w;
  if (const int rc = init_(&w.rank, &w.size, &w.local_rank); rc != 0)
    throw std::runtime_error("MPI did not start (error " + std::to_string(rc) + ")");
  world_size_ = static_cast<std::size_t>(w.size);
  return w;
}

std::vector<std::string> MpiPlugin::gather(const std::string& text) {
  char* all = nullptr;
  std::uint64_t* lengths = nullptr;
  if (const int rc = gather_(text.data(), text.size(), &all, &lengths); rc != 0)
    throw std::runtime_error("MPI gather failed (error " + std::to_string(rc) + ")");
  std::vector<std::string> out;
  if (all != nullptr && lengths != nullptr) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < world_size_; ++i) {
      out.emplace_back(all + at, lengths[i]);
      at += lengths[i];
    }
  }
  free_(all);
  free_(lengths);
  return out;
}

void MpiPlugin::finalize() { finalize_(); }

}  // namespace gputopo::cli
