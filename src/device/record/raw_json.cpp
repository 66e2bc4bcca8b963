#include "device/record/raw_json.hpp"

#include <cstdint>

#include "model/device_facts.hpp"

namespace gputopo::device::record {

std::string_view name(Space s) { return to_string(s); }

std::string_view name(Pattern p) {
  switch (p) {
    case Pattern::Strided:
      return "strided";
    case Pattern::Random:
      return "random";
    case Pattern::Sequence:
      return "sequence";
  }
  return "unknown";
}

std::string_view name(Timing t) { return to_string(t); }
std::string_view name(Warmup w) { return to_string(w); }

std::string_view name(InterferenceRequest::Placement p) {
  switch (p) {
    case InterferenceRequest::Placement::SameThread:
      return "sameThread";
    case InterferenceRequest::Placement::TwoThreads:
      return "twoThreads";
    case InterferenceRequest::Placement::TwoSms:
      return "twoSms";
  }
  return "unknown";
}

std::string_view name(StreamKind k) { return to_string(k); }
std::string_view name(StreamSharing s) { return to_string(s); }

std::string_view name(ComputeOp op) { return to_string(op); }

std::string_view name(TransferKind k) {
  switch (k) {
    case TransferKind::HostToDevice:
      return "hostToDevice";
    case TransferKind::DeviceToHost:
      return "deviceToHost";
    case TransferKind::PeerRead:
      return "peerRead";
    case TransferKind::PeerWrite:
      return "peerWrite";
    case TransferKind::PeerBidirectional:
      return "peerBidirectional";
    case TransferKind::PeerLoad:
      return "peerLoad";
  }
  return "unknown";
}

std::string_view name(HostMemory m) { return m == HostMemory::Pinned ? "pinned" : "pageable"; }

std::string_view name(Error::Kind k) {
  switch (k) {
    case Error::Kind::NoDriver:
      return "noDriver";
    case Error::Kind::NoDevice:
      return "noDevice";
    case Error::Kind::Unsupported:
      return "unsupported";
    case Error::Kind::BadRequest:
      return "badRequest";
    case Error::Kind::Measurement:
      return "measurement";
    case Error::Kind::OutOfMemory:
      return "outOfMemory";
    case Error::Kind::Lost:
      return "lost";
  }
  return "unknown";
}

namespace {

constexpr std::array kSources{model::Source::Api, model::Source::Measured, model::Source::Derived,
                              model::Source::Table};

model::Source parse_source(const JsonField& f) {
  for (auto s : kSources)
    if (model::to_string(s) == f.string()) return s;
  f.fail("unknown source \"" + f.string() + "\" (expected api, measured, derived or table)");
}

// The inverse of model::to_json(const Attribute&).
model::Attribute parse_attribute(const JsonField& f) {
  model::Attribute a;
  a.value = f["value"].json();
  a.unit = f["unit"].string();
  a.source = parse_source(f["source"]);
  if (f.has("method")) a.method = f["method"].string();
  if (f.has("confidence")) a.confidence = f["confidence"].number();
  if (f.has("interval")) {
    JsonField interval = f["interval"];
    if (interval.size() != 2) interval.fail("expected [lo, hi]");
    a.interval = model::Interval{interval.at(0).number(), interval.at(1).number()};
  }
  if (f.has("noInterval")) a.no_interval = f["noInterval"].string();
  if (f.has("reason")) a.reason = f["reason"].string();
  if (f.has("evidence")) a.evidence = f["evidence"].json();
  return a;
}

}  // namespace

Json encode_runs(const std::vector<std::uint64_t>& offsets) {
  Json j = Json::array();
  for (std::size_t i = 0; i < offsets.size();) {
    std::size_t end = i + 1;
    if (i + 2 < offsets.size()) {
      const std::uint64_t step = offsets[i + 1] - offsets[i];
      while (end < offsets.size() && offsets[end] - offsets[end - 1] == step) ++end;
      if (end - i >= 3) {
        j.push_back(
            {{"from", offsets[i]}, {"step", static_cast<std::int64_t>(step)}, {"count", end - i}});
        i = end;
        continue;
      }
      end = i + 1;
    }
    j.push_back(offsets[i]);
    i = end;
  }
  return j;
}

void decode_runs(const JsonField& f, std::vector<std::uint64_t>& offsets) {
  // More offsets than this means a corrupt count, not a real request.
  constexpr unsigned long long kMostOffsets = 1ull << 28;
  offsets.clear();
  for (std::size_t i = 0; i < f.size(); ++i) {
    const JsonField run = f.at(i);
    if (!run.json().is_object()) {
      offsets.push_back(run.unsigned_integer(~0ull));
      continue;
    }
    auto value = static_cast<std::uint64_t>(run["from"].unsigned_integer(~0ull));
    const auto step = static_cast<std::uint64_t>(run["step"].integer(INT64_MIN, INT64_MAX));
    const auto count = run["count"].unsigned_integer(kMostOffsets - offsets.size());
    for (unsigned long long k = 0; k < count; ++k, value += step) offsets.push_back(value);
  }
}

void decode_attributes(const JsonField& f, model::AttributeList& list) {
  if (!f.json().is_object()) f.fail("expected an object of attributes");
  list.clear();
  for (const auto& [key, value] : f.json().items()) list.emplace_back(key, parse_attribute(f[key]));
}

Json encode_device_info(const DeviceInfo& info) {
  const model::DeviceSections sections = model::device_sections(info);
  Json j = Json::object();
  j["index"] = info.index;
  j["vendor"] = info.vendor;
  j["simulated"] = info.simulated;
  j["general"] = model::to_json(sections.general);
  j["compute"] = model::to_json(sections.compute);
  return j;
}

void decode_device_info(const JsonField& f, DeviceInfo& info) {
  info = DeviceInfo{};
  decode(f["index"], info.index);
  decode(f["vendor"], info.vendor);
  decode(f["simulated"], info.simulated);
  model::AttributeList general;
  model::AttributeList compute;
  decode_attributes(f["general"], general);
  decode_attributes(f["compute"], compute);
  if (const std::string wrong = model::read_device_sections(general, compute, info); !wrong.empty())
    f.fail(wrong);
}

}  // namespace gputopo::device::record
