#include "device/record/raw_json.hpp"

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
