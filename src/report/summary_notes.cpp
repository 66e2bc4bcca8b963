#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

#include "report/format.hpp"
#include "report/summary_text.hpp"
#include "report/text_layout.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;

// The footnote's groups can fill at most this many lines; the rest is counted.
constexpr std::size_t kNoteLines = 10;

struct Missing {
  std::string element;  // "L1"; empty for the device and compute sections
  std::string what;     // "associativity", "mmaE4m3", "GPC count"
};

// The flag that measures what `reason` says is missing: "--depth full".
std::string flag_in(const std::string& reason) {
  static const std::regex flag(R"((--[a-z][a-z-]*)( (full|quick|[0-9]+))?)");
  std::string last;
  for (auto it = std::sregex_iterator(reason.begin(), reason.end(), flag);
       it != std::sregex_iterator(); ++it)
    last = it->str(0);
  return last;
}

// The reason without what the text names already: "mmaE4m3: ", "not established: ".
std::string bare_reason(std::string reason, const std::string& what) {
  for (const std::string& prefix : {what + ": ", std::string("not established: ")})
    if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
  return reason;
}

void collect(const model::AttributeList& list, const std::string& element,
             std::map<std::string, std::vector<Missing>>& by_reason,
             std::vector<std::string>& order) {
  for (const auto& [key, a] : list) {
    if (a.available() || a.source == model::Source::Api) continue;
    const auto member = model::family_member(key);
    std::string what = member ? std::string(member->second) : label_for(key);
    if (!member && !element.empty() && what.size() > 1 && std::islower(what[1]))
      what[0] = static_cast<char>(std::tolower(what[0]));
    const std::string flag = flag_in(a.reason);
    const std::string reason =
        flag.empty() ? short_reason(bare_reason(a.reason, what), 90) : "needs " + flag;
    if (!by_reason.count(reason)) order.push_back(reason);
    auto& group = by_reason[reason];
    const bool seen = std::any_of(group.begin(), group.end(), [&](const Missing& m) {
      return m.element == element && m.what == what;
    });
    if (!seen) group.push_back({element, what});
  }
}

// "associativity, sets of L1, L2; mmaE4m3, mmaE5m2": attributes missing from the same elements
// named together.
std::string names_of(const std::vector<Missing>& group) {
  std::vector<std::pair<std::string, std::vector<std::string>>> elements_of;  // what -> elements
  for (const auto& m : group) {
    auto it = std::find_if(elements_of.begin(), elements_of.end(),
                           [&](const auto& e) { return e.first == m.what; });
    if (it == elements_of.end()) it = elements_of.insert(elements_of.end(), {m.what, {}});
    if (!m.element.empty()) it->second.push_back(m.element);
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> merged;  // whats -> elements
  for (const auto& entry : elements_of) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const auto& m) { return m.second == entry.second; });
    if (it == merged.end())
      merged.push_back(entry);
    else
      it->first += ", " + entry.first;
  }
  std::string out;
  for (const auto& [whats, elements] : merged) {
    std::string part = whats;
    if (!elements.empty()) {
      part += " of ";
      for (std::size_t i = 0; i < elements.size(); ++i) part += (i ? ", " : "") + elements[i];
    }
    out += (out.empty() ? "" : "; ") + part;
  }
  return out;
}

}  // namespace

std::vector<std::string> not_measured_note(const model::Report& r) {
  std::map<std::string, std::vector<Missing>> by_reason;
  std::vector<std::string> order;
  collect(r.device, "", by_reason, order);
  collect(r.compute, "", by_reason, order);
  for (const auto& e : r.memory) collect(e.attributes, label_for(e.key), by_reason, order);
  if (order.empty()) return {};
  std::vector<std::string> lines{"Not established (the reason in short; -v for all of it):"};
  std::size_t shown = 0;
  for (const auto& reason : order) {
    const auto text = wrap(names_of(by_reason[reason]) + ": " + reason, kTextWidth, "  - ", "    ");
    if (lines.size() + text.size() > kNoteLines + 1) break;
    lines.insert(lines.end(), text.begin(), text.end());
    ++shown;
  }
  if (shown < order.size())
    lines.push_back("  - and " + std::to_string(order.size() - shown) + " more reasons (-v)");
  return lines;
}

}  // namespace gputopo::report
