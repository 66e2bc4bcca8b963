#include <filesystem>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "device/input_file.hpp"
#include "files/atomic_file.hpp"
#include "fleet/comparison_output.hpp"
#include "model/json_input.hpp"
#include "model/printable.hpp"

namespace gputopo::cli {
namespace {

// A report of 64 GPUs with every attribute is a few MB.
constexpr std::uint64_t kMaxReportBytes = std::uint64_t{1} << 28;

std::vector<fleet::Member> read_members(const std::string& file, const std::string& name) {
  try {
    const auto text = device::read_input_file(file, kMaxReportBytes);
    return fleet::members_of(model::parse_json_input(text), name);
  } catch (const std::exception& e) {
    throw UsageError(model::printable(file + ": " + e.what()));
  }
}

// Each file's name without its directory and extension, or its whole path where two files
// share that name.
std::vector<std::string> member_names(const std::vector<std::string>& files) {
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(std::filesystem::path(f).stem().string());
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < files.size(); ++j)
      if (i != j &&
          std::filesystem::path(files[i]).stem() == std::filesystem::path(files[j]).stem())
        names[i] = files[i];
  return names;
}

}  // namespace

int run_compare(const Options& o, std::ostream& out, std::ostream& /*err*/) {
  const auto names = member_names(o.compare_files);
  std::vector<fleet::Member> members;
  for (std::size_t i = 0; i < o.compare_files.size(); ++i) {
    auto m = read_members(o.compare_files[i], names[i]);
    members.insert(members.end(), std::make_move_iterator(m.begin()),
                   std::make_move_iterator(m.end()));
  }
  if (members.size() < 2)
    throw UsageError("compare needs two GPUs or more; the reports hold " +
                     std::to_string(members.size()));
  const auto comparison = fleet::compare(members, {o.tolerance});
  const auto json = fleet::comparison_json(comparison);
  if (o.output) files::write_file_atomically(*o.output, json.dump(2) + "\n");
  if (o.json)
    out << json.dump(2) << "\n";
  else
    fleet::write_comparison_text(out, comparison);
  return comparison.differences.empty() ? kExitOk : kExitDiffer;
}

}  // namespace gputopo::cli
