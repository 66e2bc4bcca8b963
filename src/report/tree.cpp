#include "report/tree.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "report/format.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;
using model::Json;
using Groups = std::vector<std::vector<int>>;

// The value of an attribute as a tree shows it: "?" where not established; the full form adds the
// interval and where the value comes from.
std::string value_text(const Attribute* a, bool full) {
  if (!a || !a->available()) return "?";
  if (full) {
    const std::string mark = provenance_mark(*a);
    return attribute_text(*a) + (mark.empty() ? "" : " " + mark);
  }
  std::string text = format_value(a->value, a->unit);
  if (a->interval && std::isinf(a->interval->hi)) text = "at least " + text;
  return text;
}

const model::Element* element(const model::Report& r, std::string_view key) {
  for (const auto& e : r.memory)
    if (e.key == key) return &e;
  return nullptr;
}

const Attribute* attr(const model::Element* e, std::string_view key) {
  return e ? model::find(e->attributes, key) : nullptr;
}

// "a, b, c" of the parts that are not empty.
std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

std::string named(const std::string& name, const Attribute* a, bool full) {
  if (!a) return "";
  return name + " " + value_text(a, full);
}

// What every SM holds for itself: the L1-family caches (one entry for caches that are one
// physical cache), the constant caches and shared memory.
std::string sm_text(const model::Report& r, bool full) {
  std::vector<std::string> parts;
  std::set<std::string> folded;  // elements already named as sharing an earlier one's cache
  for (const auto& e : r.memory) {
    if (e.key == "l2" || e.key == "dram" || e.key == "shared" || e.key == "lds" ||
        e.key == "mall" || e.key.starts_with("tlb") || folded.count(e.key))
      continue;
    std::string part;
    const Attribute* count = model::find(e.attributes, "countPerSm");
    if (count && count->available() && count->value.is_number() && count->value.get<double>() > 1)
      part = format_value(count->value, "") + " x ";
    part += label_for(e.key) + " " + value_text(model::find(e.attributes, "size"), full);
    const Attribute* with = model::find(e.attributes, "sharedWith");
    std::vector<std::string> also;
    if (with && with->available() && with->value.is_array())
      for (const auto& other : with->value)
        if (other.is_string() && element(r, other.get<std::string>())) {
          folded.insert(other.get<std::string>());
          also.push_back(label_for(other.get<std::string>()));
        }
    if (!also.empty()) part += " (also " + joined(also, ", ") + ")";
    parts.push_back(part);
  }
  // Shared memory, AMD's LDS where the report has one.
  const model::Element* lds = element(r, "lds");
  const model::Element* shared = lds ? lds : element(r, "shared");
  const Attribute* shared_size = attr(shared, "apiSize");
  if (!shared_size) shared_size = model::find(r.compute, "sharedMemoryPerSm");
  if (shared_size) parts.push_back(named(lds ? "LDS" : "Shared", shared_size, full));
  if (parts.empty()) return "";
  return ": " + joined(parts, " + ");
}

TreeNode note(std::string text) { return {"note", "", std::move(text), {}}; }

TreeNode sm_node(int sm, const std::string& text) { return {"SM", std::to_string(sm), text, {}}; }

// A GPC (or the SMs of no known GPC) with its TPCs and SMs.
std::vector<TreeNode> tpc_nodes(const std::vector<int>& sms, const Groups& tpcs,
                                const std::string& sm) {
  std::vector<TreeNode> out;
  std::set<int> left(sms.begin(), sms.end());
  for (const auto& tpc : tpcs) {
    if (!std::all_of(tpc.begin(), tpc.end(), [&](int s) { return left.count(s) > 0; })) continue;
    TreeNode node{"TPC", "", "", {}};
    for (int s : tpc) {
      node.children.push_back(sm_node(s, sm));
      left.erase(s);
    }
    out.push_back(std::move(node));
  }
  for (int s : left) out.push_back(sm_node(s, sm));
  std::sort(out.begin(), out.end(), [](const TreeNode& a, const TreeNode& b) {
    const auto first = [](const TreeNode& n) {
      return std::stoi(n.kind == "SM" ? n.id : n.children.front().id);
    };
    return first(a) < first(b);
  });
  int index = 0;
  for (auto& n : out)
    if (n.kind == "TPC") n.id = std::to_string(index++);
  return out;
}

std::string count_text(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// The GPC nodes of the SMs in `only` (every SM where null).
std::vector<TreeNode> compute_nodes(const model::Report& r, bool full,
                                    const std::set<int>* only = nullptr) {
  const Attribute* sm_count = model::find(r.compute, "smCount");
  const int sms = sm_count && sm_count->value.is_number_integer() ? sm_count->value.get<int>() : 0;
  const model::Topology& topology = r.topology;
  const Groups tpcs = topology.tpc_sms();
  const Groups gpcs = topology.gpc_sms();
  const model::LevelState& gpc_state = topology.gpc_state;
  const std::string sm = sm_text(r, full);

  std::vector<TreeNode> out;
  std::set<int> placed;
  const auto wanted = [&](int s) { return !only || only->count(s) > 0; };
  for (std::size_t g = 0; g < gpcs.size(); ++g) {
    placed.insert(gpcs[g].begin(), gpcs[g].end());
    std::vector<int> members;
    std::copy_if(gpcs[g].begin(), gpcs[g].end(), std::back_inserter(members), wanted);
    if (members.empty()) continue;
    TreeNode node{"GPC", std::to_string(g), " (" + count_text(members.size(), "SM") + ")",
                  tpc_nodes(members, tpcs, sm)};
    out.push_back(std::move(node));
  }
  std::vector<int> unplaced;
  for (int s = 0; s < sms; ++s)
    if (!placed.count(s) && wanted(s)) unplaced.push_back(s);
  if (unplaced.empty()) return out;
  // The compact form keeps the reason's first clause; the full form all of it.
  std::string reason = gpc_state.reason;
  if (const auto cut = reason.find("; "); !full && cut != std::string::npos)
    reason = reason.substr(0, cut) + " (more: " + gpc_state.key + ")";
  std::string why;
  if (!gpc_state.measured)
    why = "GPCs not measured (the layout probe did not run)";
  else if (!gpcs.empty() || !topology.loose_units.empty())
    why = "GPC not established" + (reason.empty() ? "" : ": " + reason);
  else
    why = "GPCs not established" + (reason.empty() ? "" : ": " + reason);
  TreeNode node{"GPC", "?", " (" + count_text(unplaced.size(), "SM") + "; " + why + ")",
                tpc_nodes(unplaced, tpcs, sm)};
  if (!topology.tpc_state.measured)
    node.children.insert(node.children.begin(), note("TPCs: not measured"));
  out.push_back(std::move(node));
  return out;
}

// The SMs of each near L2 segment, -1 for SMs not tested; empty where not measured.
std::map<int, std::set<int>> sms_by_segment(const model::Report& r) {
  std::map<int, std::set<int>> out;
  const auto of_sm = r.topology.segment_of_sm();
  for (std::size_t s = 0; s < of_sm.size(); ++s) out[of_sm[s]].insert(static_cast<int>(s));
  return out;
}

// "0-3, 7, 9-10" of ascending ids.
std::string ranges_text(const std::vector<int>& ids) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    std::string part = std::to_string(ids[i]);
    if (j > i) part.append("-").append(std::to_string(ids[j]));
    parts.push_back(std::move(part));
    i = j + 1;
  }
  return joined(parts, ", ");
}

// "slices 4 (latency spread 27 cycles)"; "slices ?" where the probe ran but did not establish
// them; nothing where it did not run.
std::string slices_text(const model::Element* l2, bool full) {
  const Attribute* count = attr(l2, "sliceCount");
  if (!count) return "";
  const Attribute* spread = attr(l2, "sliceLatencySpread");
  if (!spread || !spread->available()) return named("slices", count, full);
  return named("slices", count, full) + " (latency spread " + value_text(spread, full) + ")";
}

TreeNode l2_node(const model::Report& r, bool full) {
  const model::Element* l2 = element(r, "l2");
  const Attribute* size = attr(l2, "apiSize");
  if (!size) size = model::find(r.compute, "l2Size");
  const Attribute* segments = attr(l2, "segmentCount");
  std::vector<std::string> parts;
  if (segments)
    parts.push_back(value_text(segments, full) + " segments of " +
                    value_text(attr(l2, "segmentSize"), full));
  parts.push_back(named("capacity", attr(l2, "capacity"), full));
  parts.push_back(named("line", attr(l2, "lineSize"), full));
  parts.push_back(named("near", attr(l2, "nearLatency"), full));
  parts.push_back(named("far", attr(l2, "farLatency"), full));
  parts.push_back(slices_text(l2, full));
  const std::string details = joined(parts, ", ");
  TreeNode node{
      "L2", "", " " + value_text(size, full) + (details.empty() ? "" : ": " + details), {}};
  const bool several = !segments || !segments->available() || !segments->value.is_number() ||
                       segments->value.get<double>() > 1;
  model::SmList unplaced;  // slices with no nearest SMs measured: one line for all
  for (const auto& slice : r.topology.slices)
    if (slice.near_sms.empty())
      unplaced.push_back(slice.id);
    else
      node.children.push_back({"L2 slice",
                               std::to_string(slice.id),
                               " (nearest " + count_text(slice.near_sms.size(), "SM") + ": " +
                                   ranges_text(slice.near_sms) + ")",
                               {}});
  if (!unplaced.empty())
    node.children.push_back(
        {"L2 slices", ranges_text(unplaced), " (the SMs nearest each not measured)", {}});
  const auto by_segment = sms_by_segment(r);
  if (l2 && several && by_segment.empty()) {
    const model::LevelState& near = r.topology.segment_state;
    node.children.push_back(note("near L2 segment of each GPC: ? (" +
                                 (near.measured ? near.reason : "not measured: " + near.key) +
                                 ")"));
  }
  if (by_segment.empty() || !several) {
    for (auto& n : compute_nodes(r, full)) node.children.push_back(std::move(n));
    return node;
  }
  for (const auto& [segment, sms] : by_segment)
    if (segment >= 0)
      node.children.push_back({"L2 segment", std::to_string(segment),
                               " (near to " + count_text(sms.size(), "SM") + ")",
                               compute_nodes(r, full, &sms)});
  // The SMs of no measured segment come last.
  if (const auto none = by_segment.find(-1); none != by_segment.end()) {
    node.children.push_back(note("near L2 segment not measured for these SMs"));
    for (auto& n : compute_nodes(r, full, &none->second)) node.children.push_back(std::move(n));
  }
  return node;
}

// Translation, GPU-wide: the levels and page size, then each level found.
std::optional<TreeNode> tlb_node(const model::Report& r, bool full) {
  const model::Element* tlb = element(r, "tlb");
  if (!tlb) return std::nullopt;
  TreeNode node{"TLB",
                "",
                ": " + joined({named("levels", attr(tlb, "tlbLevels"), full),
                               named("page", attr(tlb, "pageSize"), full)},
                              ", "),
                {}};
  for (int k = 1; k <= 3; ++k) {
    const model::Element* level = element(r, "tlb" + std::to_string(k));
    const Attribute* entries = attr(level, "entries");
    if (!entries || !entries->available()) continue;
    node.children.push_back(
        {"TLB",
         std::to_string(k),
         ": " + joined({named("entries", entries, full), named("reach", attr(level, "reach"), full),
                        named("miss", attr(level, "missPenalty"), full)},
                       ", "),
         {}});
  }
  return node;
}

}  // namespace

TreeNode build_tree(const model::Report& r, bool full) {
  TreeNode root{"GPU", "", "", {}};
  if (r.run.device) root.id = std::to_string(*r.run.device);
  const Attribute* name = model::find(r.device, "name");
  const Attribute* sms = model::find(r.compute, "smCount");
  root.text = ": " +
              joined({name && name->value.is_string() ? name->value.get<std::string>() : "?",
                      sms ? count_text(sms->value.is_number_integer()
                                           ? static_cast<std::size_t>(sms->value.get<int>())
                                           : 0,
                                       "SM")
                          : ""},
                     ", ") +
              (r.simulated ? " (SIMULATED)" : "");
  if (const model::Element* dram = element(r, "dram")) {
    std::vector<std::string> parts{named("latency", attr(dram, "latency"), full),
                                   named("read", attr(dram, "readBandwidth"), full)};
    const std::string details = joined(parts, ", ");
    root.children.push_back(
        {"DRAM",
         "",
         " " + value_text(attr(dram, "size"), full) + (details.empty() ? "" : ": " + details),
         {}});
  }
  // A memory-side cache (AMD's MALL) serves every L2 miss: between device memory and the L2.
  // Drawn where one was found (a report without one says why under memory.mall).
  const model::Element* mall = element(r, "mall");
  if (const Attribute* size = attr(mall, "size"); size && size->available()) {
    const std::string latency = named("latency", attr(mall, "latency"), full);
    root.children.push_back(
        {"MALL", "", " " + value_text(size, full) + (latency.empty() ? "" : ": " + latency), {}});
  }
  if (auto tlb = tlb_node(r, full)) root.children.push_back(std::move(*tlb));
  root.children.push_back(l2_node(r, full));
  return root;
}

namespace {

struct Group {
  const TreeNode* node;
  int count;
};

std::string signature(const TreeNode& n);

std::vector<Group> fold(const std::vector<TreeNode>& children) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& c : children) {
    const std::string sig = signature(c);
    if (auto it = index.find(sig); it != index.end()) {
      ++groups[it->second].count;
      continue;
    }
    index.emplace(sig, groups.size());
    groups.push_back({&c, 1});
  }
  return groups;
}

std::string signature(const TreeNode& n) {
  std::string s = n.kind + '\x1f' + n.text + '{';
  for (const auto& g : fold(n.children)) s += std::to_string(g.count) + '*' + signature(*g.node);
  return s + '}';
}

// A TPC's id is its place in its GPC, which the compact form leaves out.
std::string line_of(const TreeNode& n, int count, bool full) {
  if (n.kind == "note") return n.text;
  std::string line = count > 1 ? std::to_string(count) + " x " + n.kind : n.kind;
  if (count == 1 && !n.id.empty() && (full || n.kind != "TPC")) line += " " + n.id;
  return line + n.text;
}

// Whether `n` and everything below it fold into a single chain of groups.
bool chain(const TreeNode& n) {
  const auto groups = fold(n.children);
  return groups.empty() || (groups.size() == 1 && chain(*groups.front().node));
}

std::string inline_of(const TreeNode& n, int count) {
  std::string line = line_of(n, count, false);
  const auto groups = fold(n.children);
  if (!groups.empty()) line += " [" + inline_of(*groups.front().node, groups.front().count) + "]";
  return line;
}

void write_compact(std::ostream& out, const TreeNode& n, int count, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (n.kind != "GPU" && chain(n)) {
    out << pad << inline_of(n, count) << "\n";
    return;
  }
  out << pad << line_of(n, count, false) << "\n";
  for (const auto& g : fold(n.children)) write_compact(out, *g.node, g.count, indent + 2);
}

void write_full(std::ostream& out, const TreeNode& n, int indent) {
  out << std::string(static_cast<std::size_t>(indent), ' ') << line_of(n, 1, true) << "\n";
  for (const auto& c : n.children) write_full(out, c, indent + 2);
}

}  // namespace

void write_tree(std::ostream& out, const TreeNode& root, bool full, int indent) {
  if (full)
    write_full(out, root, indent);
  else
    write_compact(out, root, 1, indent);
}

}  // namespace gputopo::report
