#include "device/record/json_field.hpp"

#include <string>

#include "device/record/raw_error.hpp"

namespace gputopo::device::record {

JsonField::JsonField(const Json& json, std::string file, std::string path)
    : json_(&json), file_(std::move(file)), path_(std::move(path)) {}

JsonField JsonField::operator[](std::string_view key) const {
  if (!json_->is_object()) fail("expected an object");
  auto it = json_->find(key);
  std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  if (it == json_->end()) JsonField(*json_, file_, path).fail("missing");
  return JsonField(*it, file_, std::move(path));
}

bool JsonField::has(std::string_view key) const {
  if (!json_->is_object()) fail("expected an object");
  auto it = json_->find(key);
  return it != json_->end() && !it->is_null();
}

std::size_t JsonField::size() const {
  if (!json_->is_array()) fail("expected an array");
  return json_->size();
}

JsonField JsonField::at(std::size_t i) const {
  if (i >= size()) fail("has no element " + std::to_string(i));
  return JsonField((*json_)[i], file_, path_ + "[" + std::to_string(i) + "]");
}

const std::string& JsonField::string() const {
  if (!json_->is_string()) fail("expected a string");
  return json_->get_ref<const std::string&>();
}

bool JsonField::boolean() const {
  if (!json_->is_boolean()) fail("expected true or false");
  return json_->get<bool>();
}

double JsonField::number() const {
  if (!json_->is_number()) fail("expected a number");
  return json_->get<double>();
}

long long JsonField::integer(long long lo, long long hi) const {
  if (json_->is_number_unsigned()) {
    auto v = json_->get<unsigned long long>();
    // JSON reads every non-negative integer as unsigned: the lower bound holds for them too.
    if (hi >= 0 && v <= static_cast<unsigned long long>(hi) &&
        (lo <= 0 || v >= static_cast<unsigned long long>(lo)))
      return static_cast<long long>(v);
  } else if (json_->is_number_integer()) {
    auto v = json_->get<long long>();
    if (v >= lo && v <= hi) return v;
  } else {
    fail("expected an integer");
  }
  fail("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found " +
       json_->dump());
}

unsigned long long JsonField::unsigned_integer(unsigned long long hi) const {
  if (json_->is_number_unsigned()) {
    auto v = json_->get<unsigned long long>();
    if (v <= hi) return v;
  } else if (!json_->is_number_integer()) {
    fail("expected an unsigned integer");
  }
  fail("expected an unsigned integer" +
       (hi == ~0ull ? std::string() : " up to " + std::to_string(hi)) + ", found " + json_->dump());
}

void JsonField::fail(std::string_view reason) const {
  std::string where = path_.empty() ? file_ : file_ + ": " + path_;
  throw RawDirError(Error::Kind::NoDevice, where + ": " + std::string(reason));
}

}  // namespace gputopo::device::record
