#include <filesystem>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "device/input_file.hpp"
#include "files/atomic_file.hpp"
#include "fleet/comparison_output.hpp"
#include "fleet/references.hpp"
#include "model/json_input.hpp"
#include "model/printable.hpp"
#include "report/json_writer.hpp"

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
  std::unordered_map<std::string, std::size_t> count;
  for (const auto& f : files) ++count[names.emplace_back(std::filesystem::path(f).stem().string())];
  for (std::size_t i = 0; i < files.size(); ++i)
    if (count[names[i]] > 1) names[i] = files[i];
  return names;
}

// The built-in reference of a GPU named `name`, if there is one.
std::optional<fleet::Member> builtin_reference(const std::string& name) {
  for (const auto& [label, text] : fleet::embedded_references()) {
    auto members =
        fleet::members_of(model::parse_json_input(text), "reference " + std::string(label));
    for (const auto& v : members.front().values)
      if (v.path == "device.name" && v.value == name) return std::move(members.front());
  }
  return std::nullopt;
}

// The reference of check: --reference FILE, or the built-in report of a GPU named `name`.
fleet::Member reference_for(const Options& o, const std::string& name) {
  if (o.reference) {
    auto members = read_members(*o.reference, "reference");
    if (members.size() != 1)
      throw UsageError(model::printable(*o.reference + ": a reference is one GPU's report, not " +
                                        std::to_string(members.size()) + " GPUs'"));
    return std::move(members.front());
  }
  if (auto builtin = builtin_reference(name)) return std::move(*builtin);
  throw UsageError(model::printable("no built-in reference for " + name +
                                    ": give --reference FILE, a report of a GPU of this model"));
}

// The one model every member is, or empty.
std::string common_model(const std::vector<fleet::Member>& members) {
  std::string model;
  for (const auto& m : members)
    for (const auto& v : m.values)
      if (v.path == "device.name") {
        const std::string name = v.value.is_string() ? v.value.get<std::string>() : "";
        if (name.empty() || (!model.empty() && name != model)) return {};
        model = name;
      }
  return model;
}

}  // namespace

int print_comparison(const fleet::Comparison& c, const Options& o, std::ostream& out) {
  if (o.json)
    out << fleet::comparison_json(c).dump(2) << "\n";
  else
    fleet::write_comparison_text(out, c);
  return c.differences.empty() ? kExitOk : kExitDiffer;
}

int run_check(const Options& o, std::ostream& out, std::ostream& err,
              const std::atomic<bool>& interrupted) {
  OpenedDevice opened = open_device(o, true, err);
  fleet::Member reference = reference_for(o, opened.device->info().name());
  model::Report done;
  const int code = run_discover_on(std::move(opened), o, out, err, interrupted, &done);
  if (code != kExitOk && code != kExitDisturbed) return code;
  std::vector<fleet::Member> members{std::move(reference)};
  members.push_back(fleet::members_of(report::to_json(done), "this GPU").front());
  const int verdict = print_comparison(fleet::compare(members, {.tolerance = o.tolerance}), o, out);
  return code == kExitOk ? verdict : code;
}

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
  const std::string model = common_model(members);
  const auto healthy = model.empty() ? std::nullopt : builtin_reference(model);
  const auto comparison =
      fleet::compare(members, {.tolerance = o.tolerance, .healthy = healthy ? &*healthy : nullptr});
  if (o.output)
    files::write_file_atomically(*o.output, fleet::comparison_json(comparison).dump(2) + "\n");
  return print_comparison(comparison, o, out);
}

}  // namespace gputopo::cli
