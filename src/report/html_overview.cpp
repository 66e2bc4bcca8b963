#include "report/html_overview.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "report/format.hpp"
#include "report/summary_text.hpp"
#include "report/tree.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;

constexpr int kWidth = 1000;
constexpr int kSm = 9;  // an SM's square, in pixels

std::string svg_text(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

const Attribute* available(const model::Element& e, std::initializer_list<std::string_view> keys) {
  for (auto k : keys)
    if (const Attribute* a = model::find(e.attributes, k); a && a->available()) return a;
  return nullptr;
}

// "L1 248 KiB + Constant L1 2 KiB + Shared 228 KiB": the levels an SM holds one of.
std::string per_sm(const model::Report& r) {
  std::string out;
  for (const auto& e : r.memory) {
    const Attribute* n = model::find(e.attributes, "countPerSm");
    if (!(n && n->available()) && e.key != "shared" && e.key != "lds") continue;
    const Attribute* size = available(e, {"size", "apiSize"});
    out += (out.empty() ? "" : " + ") + label_for(e.key) + (size ? " " + cell(size) : "");
  }
  return out;
}

struct Box {
  std::string title;
  std::vector<std::vector<int>> tpcs;  // the SMs of each TPC in the box
};

// The GPC boxes: each GPC's TPCs (or SMs one a TPC where TPCs are unknown), unplaced SMs last.
std::vector<Box> gpc_boxes(const model::Report& r, int sm_count) {
  const auto gpcs = r.topology.gpc_sms();
  const auto tpcs = r.topology.tpc_sms();
  std::vector<int> tpc_of(static_cast<std::size_t>(sm_count), -1);
  for (std::size_t t = 0; t < tpcs.size(); ++t)
    for (int sm : tpcs[t])
      if (sm >= 0 && sm < sm_count) tpc_of[static_cast<std::size_t>(sm)] = static_cast<int>(t);
  const auto box_of = [&](const std::string& title, const std::vector<int>& sms) {
    Box b{title, {}};
    std::vector<int> seen;
    for (int sm : sms) {
      const int t = sm < sm_count ? tpc_of[static_cast<std::size_t>(sm)] : -1;
      if (t < 0) {
        b.tpcs.push_back({sm});
      } else if (std::find(seen.begin(), seen.end(), t) == seen.end()) {
        seen.push_back(t);
        b.tpcs.push_back(tpcs[static_cast<std::size_t>(t)]);
      }
    }
    return b;
  };
  std::vector<Box> boxes;
  std::set<int> placed;
  for (std::size_t g = 0; g < gpcs.size(); ++g) {
    boxes.push_back(box_of(fmt::format("GPC {} ({} SMs)", g, gpcs[g].size()), gpcs[g]));
    placed.insert(gpcs[g].begin(), gpcs[g].end());
  }
  std::vector<int> rest;
  for (int s = 0; s < sm_count; ++s)
    if (!placed.count(s)) rest.push_back(s);
  if (!rest.empty())
    boxes.push_back(
        box_of(std::to_string(rest.size()) +
                   (gpcs.empty() ? " SMs (GPCs not established)" : " SMs in no GPC found"),
               rest));
  return boxes;
}

// A box of TPC columns (two SM squares wide at most) wrapped in rows; returns its height.
int draw_box(std::string& svg, const Box& b, int x, int y, int w) {
  const int per_row = std::max(1, (w - 12) / (2 * kSm + 6));
  const int rows = static_cast<int>((b.tpcs.size() + static_cast<std::size_t>(per_row) - 1) /
                                    static_cast<std::size_t>(per_row));
  int tallest = 1;
  for (const auto& t : b.tpcs) tallest = std::max(tallest, static_cast<int>((t.size() + 1) / 2));
  const int row_h = tallest * (kSm + 2) + 8;
  const int h = 22 + rows * row_h + 4;
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"gpc\"/><text x=\"{}\" "
      "y=\"{}\" class=\"label\">{}</text>\n",
      x, y, w, h, x + 6, y + 15, svg_text(b.title));
  for (std::size_t i = 0; i < b.tpcs.size(); ++i) {
    const int col = static_cast<int>(i) % per_row;
    const int row = static_cast<int>(i) / per_row;
    const int tx = x + 6 + col * (2 * kSm + 6);
    const int ty = y + 22 + row * row_h;
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"tpc\"/>", tx, ty,
                       2 * kSm + 4, row_h - 4);
    for (std::size_t s = 0; s < b.tpcs[i].size(); ++s)
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"sm\"><title>SM "
          "{}</title></rect>",
          tx + 2 + static_cast<int>(s % 2) * kSm, ty + 2 + static_cast<int>(s / 2) * (kSm + 2),
          kSm - 1, kSm, b.tpcs[i][s]);
    svg += "\n";
  }
  return h;
}

std::string level_text(const model::Report& r, const char* key) {
  for (const auto& e : r.memory) {
    if (e.key != key) continue;
    std::string out = label_for(e.key);
    if (const Attribute* size = available(e, {"capacity", "size", "apiSize"}))
      out += " " + cell(size);
    const Attribute* n = model::find(e.attributes, "segmentCount");
    const Attribute* s = model::find(e.attributes, "segmentSize");
    if (n && n->available() && s && s->available())
      out += ": " + format_value(n->value, "") + " segments of " + format_value(s->value, s->unit);
    if (const Attribute* bw = available(e, {"readBandwidth"})) out += ", read " + cell(bw);
    return out;
  }
  return "";
}

}  // namespace

std::string gpu_svg(const model::Report& r) {
  const Attribute* sms = model::find(r.compute, "smCount");
  const int sm_count =
      sms && sms->available() && sms->value.is_number_integer() ? sms->value.get<int>() : 0;
  const auto boxes = gpc_boxes(r, sm_count);
  std::string body;
  int y = 10;
  for (const char* key : {"dram", "mall", "l2"}) {
    const std::string text = level_text(r, key);
    if (text.empty()) continue;
    body += fmt::format(
        "<rect x=\"10\" y=\"{}\" width=\"{}\" height=\"28\" class=\"{}\"/><text x=\"20\" y=\"{}\" "
        "class=\"label\">{}</text>\n",
        y, kWidth - 20, key == std::string("l2") ? "cache" : "memory", y + 19, svg_text(text));
    y += 36;
  }
  const int columns = boxes.size() > 4 ? 4 : std::max<int>(1, static_cast<int>(boxes.size()));
  const int w = (kWidth - 20 - (columns - 1) * 8) / columns;
  int row_h = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const int col = static_cast<int>(i) % columns;
    if (col == 0 && i > 0) {
      y += row_h + 8;
      row_h = 0;
    }
    row_h = std::max(row_h, draw_box(body, boxes[i], 10 + col * (w + 8), y, w));
  }
  y += row_h + 8;
  if (const std::string each = per_sm(r); !each.empty()) {
    body +=
        fmt::format("<text x=\"10\" y=\"{}\" class=\"label\">Each SM (a small square): {}</text>\n",
                    y + 14, svg_text(each));
    y += 22;
  }
  return fmt::format(
      "<svg class=\"gpu\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\">\n{}</svg>\n",
      kWidth, y, kWidth, y, body);
}

model::Json staircase(const model::Report& r) {
  model::Json steps = model::Json::array();
  for (const auto& e : r.memory) {
    const Attribute* size = available(e, {"size", "capacity", "apiSize"});
    const Attribute* latency = available(e, {"latency", "nearLatency"});
    if (!size || !latency || !size->value.is_number() || !latency->value.is_number()) continue;
    steps.push_back({{"label", label_for(e.key)},
                     {"bytes", size->value.get<double>()},
                     {"cycles", latency->value.get<double>()}});
  }
  std::sort(steps.begin(), steps.end(),
            [](const auto& a, const auto& b) { return a["cycles"] < b["cycles"]; });
  return steps;
}

model::Json slice_map(const model::Report& r) {
  const auto& t = r.topology;
  if (t.slices.empty() || t.slice_sms.empty()) return nullptr;
  model::Json slices = model::Json::array(), cycles = model::Json::array();
  for (const auto& s : t.slices) {
    if (s.cycles.size() != t.slice_sms.size()) return nullptr;
    slices.push_back(s.id);
  }
  for (std::size_t m = 0; m < t.slice_sms.size(); ++m) {
    model::Json row = model::Json::array();
    for (const auto& s : t.slices) row.push_back(std::round(s.cycles[m] * 10) / 10);
    cycles.push_back(std::move(row));
  }
  return {{"sms", t.slice_sms}, {"slices", slices}, {"cycles", cycles}};
}

}  // namespace gputopo::report
