#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// The MPI plugin (src/mpi/, libgputopo_mpi.so) loaded at run time for --fleet, so that gputopo
// itself never links MPI.
namespace gputopo::cli {

class MpiPlugin {
 public:
  // The plugin from GPUTOPO_MPI_PLUGIN, else beside the binary, else in the installed
  // lib/gputopo; nullptr with `why` when none loads.
  static std::unique_ptr<MpiPlugin> load(std::string& why);
  ~MpiPlugin() = default;
  MpiPlugin(const MpiPlugin&) = delete;
  MpiPlugin& operator=(const MpiPlugin&) = delete;

  struct World {
    int rank = 0;
    int size = 1;
    int local_rank = 0;  // among the ranks of this node
  };
  World init();  // throws std::runtime_error when MPI does not start
  // Every rank's `text` on rank 0, in rank order; empty elsewhere.
  std::vector<std::string> gather(const std::string& text);
  void finalize();

 private:
  MpiPlugin() = default;
  void* lib_ = nullptr;  // never closed: Open MPI cannot be unloaded once initialised
  std::size_t world_size_ = 1;
  int (*init_)(int*, int*, int*) = nullptr;
  int (*gather_)(const char*, std::uint64_t, char**, std::uint64_t**) = nullptr;
  void (*free_)(void*) = nullptr;
  int (*finalize_)() = nullptr;
};

}  // namespace gputopo::cli
