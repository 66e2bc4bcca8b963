#include "device/sim/json_reader.hpp"

#include <fmt/format.h>

#include <cmath>

#include "device/device.hpp"

namespace gputopo::device::sim {

void JsonReader::fail(const std::string& reason) const {
  throw Error(Error::Kind::BadRequest,
              fmt::format("{}: {}: {}", *origin_, path_.empty() ? "(top level)" : path_, reason));
}

void JsonReader::require_object() const {
  if (!json_->is_object()) fail("must be an object");
}

bool JsonReader::has(std::string_view key) const {
  require_object();
  return json_->contains(key);
}

JsonReader JsonReader::at(std::string_view key) const {
  require_object();
  const auto it = json_->find(key);
  std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  if (it == json_->end()) JsonReader(*json_, *origin_, path).fail("missing");
  return JsonReader(*it, *origin_, std::move(path));
}

JsonReader JsonReader::at(std::size_t index) const {
  if (!json_->is_array()) fail("must be an array");
  if (index >= json_->size()) fail(fmt::format("has no element {}", index));
  return JsonReader((*json_)[index], *origin_, fmt::format("{}[{}]", path_, index));
}

std::size_t JsonReader::size() const {
  if (!json_->is_array()) fail("must be an array");
  return json_->size();
}

void JsonReader::only(std::initializer_list<std::string_view> allowed) const {
  require_object();
  for (const auto& item : json_->items()) {
    bool known = false;
    for (const auto key : allowed) known = known || key == item.key();
    if (!known)
      JsonReader(item.value(), *origin_,
                 path_.empty() ? item.key() : fmt::format("{}.{}", path_, item.key()))
          .fail("unknown field");
  }
}

std::string JsonReader::string() const {
  if (!json_->is_string()) fail("must be a string");
  return json_->get<std::string>();
}

bool JsonReader::boolean() const {
  if (!json_->is_boolean()) fail("must be true or false");
  return json_->get<bool>();
}

double JsonReader::number(double lo, double hi) const {
  if (!json_->is_number()) fail("must be a number");
  const double v = json_->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi)
    fail(fmt::format("must be in [{}, {}], is {}", lo, hi, v));
  return v;
}

std::uint64_t JsonReader::integer(std::uint64_t lo, std::uint64_t hi) const {
  if (json_->is_number_unsigned()) {
    const auto v = json_->get<std::uint64_t>();
    if (v < lo || v > hi) fail(fmt::format("must be in [{}, {}], is {}", lo, hi, v));
    return v;
  }
  if (json_->is_number_integer())
    fail(fmt::format("must be in [{}, {}], is {}", lo, hi, json_->get<std::int64_t>()));
  fail("must be a whole number");
}

double JsonReader::number(std::string_view key, double lo, double hi, double fallback) const {
  return has(key) ? at(key).number(lo, hi) : fallback;
}

std::uint64_t JsonReader::integer(std::string_view key, std::uint64_t lo, std::uint64_t hi,
                                  std::uint64_t fallback) const {
  return has(key) ? at(key).integer(lo, hi) : fallback;
}

bool JsonReader::boolean(std::string_view key, bool fallback) const {
  return has(key) ? at(key).boolean() : fallback;
}

}  // namespace gputopo::device::sim
