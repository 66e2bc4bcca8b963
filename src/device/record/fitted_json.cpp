#include "device/record/fitted_json.hpp"

namespace gputopo::device::record {
namespace {

bool holds_containers(const model::Json& json) {
  for (const auto& member : json)
    if (member.is_structured()) return true;
  return false;
}

void put_fitted(std::string& out, const model::Json& json, std::size_t indent, std::size_t column,
                std::size_t width) {
  std::string flat = dump_flat(json);
  if (!json.is_structured() || !holds_containers(json) || column + flat.size() <= width) {
    out += flat;
    return;
  }
  const bool object = json.is_object();
  out += object ? '{' : '[';
  bool first = true;
  for (auto it = json.begin(); it != json.end(); ++it) {
    out += first ? "\n" : ",\n";
    first = false;
    out.append(indent + 2, ' ');
    std::size_t start = out.size();
    if (object) out += dump_flat(it.key()) + ": ";
    put_fitted(out, *it, indent + 2, indent + 2 + (out.size() - start), width);
  }
  out += '\n';
  out.append(indent, ' ');
  out += object ? '}' : ']';
}

}  // namespace

std::string dump_flat(const model::Json& json) {
  return json.dump(-1, ' ', false, model::Json::error_handler_t::replace);
}

std::string dump_fitted(const model::Json& json, std::size_t indent, std::size_t width) {
  std::string out;
  put_fitted(out, json, indent, indent, width);
  return out;
}

}  // namespace gputopo::device::record
