#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "device/device.hpp"
#include "device/record/json_field.hpp"
#include "device/record/raw_fields.hpp"

// Conversion between the manifest's JSON and the device structs, driven by raw_fields.hpp.
namespace gputopo::device::record {

std::string_view name(Space s);
std::string_view name(Pattern p);
std::string_view name(Timing t);
std::string_view name(Warmup w);
std::string_view name(InterferenceRequest::Placement p);
std::string_view name(StreamKind k);
std::string_view name(StreamSharing s);
std::string_view name(Error::Kind k);
std::string_view name(ComputeOp op);
std::string_view name(TransferKind k);
std::string_view name(HostMemory m);

// Every value of each enum, for reading names back.
constexpr auto enumerators(std::type_identity<Space>) {
  return std::array{Space::L1,      Space::L2,       Space::ReadOnly,
                    Space::Texture, Space::Constant, Space::Shared};
}
constexpr auto enumerators(std::type_identity<Pattern>) {
  return std::array{Pattern::Strided, Pattern::Random, Pattern::Sequence};
}
constexpr auto enumerators(std::type_identity<Timing>) {
  return std::array{Timing::PerLoad, Timing::Chain};
}
constexpr auto enumerators(std::type_identity<Warmup>) {
  return std::array{Warmup::Load, Warmup::Store, Warmup::LoadStore};
}
constexpr auto enumerators(std::type_identity<InterferenceRequest::Placement>) {
  using P = InterferenceRequest::Placement;
  return std::array{P::SameThread, P::TwoThreads, P::TwoSms};
}
constexpr auto enumerators(std::type_identity<StreamKind>) {
  return std::array{StreamKind::Read, StreamKind::Write, StreamKind::Copy};
}
constexpr auto enumerators(std::type_identity<StreamSharing>) {
  return std::array{StreamSharing::Own, StreamSharing::Shared};
}
constexpr auto enumerators(std::type_identity<Error::Kind>) {
  using K = Error::Kind;
  return std::array{K::NoDriver,    K::NoDevice,    K::Unsupported, K::BadRequest,
                    K::Measurement, K::OutOfMemory, K::Lost};
}

constexpr auto enumerators(std::type_identity<TransferKind>) {
  using K = TransferKind;
  return std::array{K::HostToDevice, K::DeviceToHost,      K::PeerRead,
                    K::PeerWrite,    K::PeerBidirectional, K::PeerLoad};
}
constexpr auto enumerators(std::type_identity<HostMemory>) {
  return std::array{HostMemory::Pinned, HostMemory::Pageable};
}

inline auto enumerators(std::type_identity<ComputeOp>) { return all_compute_ops(); }

template <class E>
E parse_name(const JsonField& f) {
  const std::string& s = f.string();
  std::string expected;
  for (E e : enumerators(std::type_identity<E>{})) {
    if (name(e) == s) return e;
    expected += (expected.empty() ? "" : ", ") + std::string(name(e));
  }
  f.fail("unknown value \"" + s + "\" (expected one of " + expected + ")");
}

void decode_attributes(const JsonField& f, model::AttributeList& list);

// A device's facts are stored as the report's two sections (model/device_facts.hpp), beside its
// index, vendor and whether it is simulated.
Json encode_device_info(const DeviceInfo& info);
void decode_device_info(const JsonField& f, DeviceInfo& info);

// OffsetRuns (raw_fields.hpp) in the manifest.
Json encode_runs(const std::vector<std::uint64_t>& offsets);
void decode_runs(const JsonField& f, std::vector<std::uint64_t>& offsets);

template <class T>
struct IsRuns : std::false_type {};
template <class V>
struct IsRuns<OffsetRuns<V>> : std::true_type {};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
Json encode(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return Json(name(v));
  } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
    return Json(v);
  } else if constexpr (IsOptional<T>::value) {
    return v ? encode(*v) : Json(nullptr);
  } else if constexpr (std::is_same_v<T, model::AttributeList>) {
    return model::to_json(v);
  } else if constexpr (std::is_same_v<T, DeviceInfo>) {
    return encode_device_info(v);
  } else if constexpr (IsRuns<T>::value) {
    return encode_runs(v.values);
  } else if constexpr (IsVector<T>::value) {
    Json j = Json::array();
    for (const auto& x : v) j.push_back(encode(x));
    return j;
  } else {
    Json j = Json::object();
    visit_fields(v, [&](const char* key, const auto& member) {
      using M = std::remove_cvref_t<decltype(member)>;
      if constexpr (IsOptional<M>::value)
        if (!member && later_field(key)) return;
      if constexpr (IsVector<M>::value)
        if (member.empty() && later_field(key)) return;
      j[key] = encode(member);
    });
    return j;
  }
}

template <class T>
void decode(const JsonField& f, T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    v = f.boolean();
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    v = static_cast<T>(f.integer(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  } else if constexpr (std::is_integral_v<T>) {
    v = static_cast<T>(f.unsigned_integer(std::numeric_limits<T>::max()));
  } else if constexpr (std::is_floating_point_v<T>) {
    // JSON has no NaN: a non-finite number is written as null.
    v = f.is_null() ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(f.number());
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = f.string();
  } else if constexpr (std::is_enum_v<T>) {
    v = parse_name<T>(f);
  } else if constexpr (IsOptional<T>::value) {
    if (f.is_null()) {
      v.reset();
    } else {
      typename T::value_type x{};
      decode(f, x);
      v = x;
    }
  } else if constexpr (std::is_same_v<T, model::AttributeList>) {
    decode_attributes(f, v);
  } else if constexpr (std::is_same_v<T, DeviceInfo>) {
    decode_device_info(f, v);
  } else if constexpr (IsRuns<T>::value) {
    decode_runs(f, v.values);
  } else if constexpr (IsVector<T>::value) {
    v.resize(f.size());
    for (std::size_t i = 0; i < v.size(); ++i) decode(f.at(i), v[i]);
  } else {
    visit_fields(v, [&](const char* key, auto&& member) {
      using M = std::remove_cvref_t<decltype(member)>;
      if constexpr (IsOptional<M>::value) {
        if (!f.has(key)) {
          member.reset();
          return;
        }
      }
      if constexpr (IsVector<M>::value) {
        if (!f.has(key) && later_field(key)) {
          member.clear();
          return;
        }
      }
      decode(f[key], member);
    });
  }
}

template <class T>
T decode_as(const JsonField& f) {
  T v{};
  decode(f, v);
  return v;
}

}  // namespace gputopo::device::record
