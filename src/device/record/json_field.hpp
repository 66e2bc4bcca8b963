#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "model/attribute.hpp"

namespace gputopo::device::record {

using model::Json;

// A JSON value together with where it is ("dir/manifest.json: calls[3].requests[0].space"), so
// that every complaint about it is one line naming the file and the place.
class JsonField {
 public:
  JsonField(const Json& json, std::string file, std::string path = {});

  const Json& json() const { return *json_; }
  bool is_null() const { return json_->is_null(); }

  // A member of an object; fails when this is not an object or the member is missing.
  JsonField operator[](std::string_view key) const;
  // True when the member exists and is not null.
  bool has(std::string_view key) const;
  // An element of an array; size() fails when this is not an array.
  JsonField at(std::size_t i) const;
  std::size_t size() const;

  const std::string& string() const;
  bool boolean() const;
  double number() const;
  // An integer that fits in [lo, hi].
  long long integer(long long lo, long long hi) const;
  unsigned long long unsigned_integer(unsigned long long hi) const;

  [[noreturn]] void fail(std::string_view reason) const;

 private:
  const Json* json_;
  std::string file_;
  std::string path_;
};

}  // namespace gputopo::device::record
