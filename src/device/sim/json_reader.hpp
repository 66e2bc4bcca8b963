#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "model/attribute.hpp"

namespace gputopo::device::sim {

// A JSON value with its place in the file, so that every complaint is one line naming the file,
// the field and the reason. Failures throw device::Error(BadRequest).
class JsonReader {
 public:
  JsonReader(const model::Json& json, const std::string& origin, std::string path)
      : json_(&json), origin_(&origin), path_(std::move(path)) {}

  const model::Json& json() const { return *json_; }
  const std::string& path() const { return path_; }

  bool has(std::string_view key) const;
  JsonReader at(std::string_view key) const;  // required member
  JsonReader at(std::size_t index) const;     // array element
  std::size_t size() const;                   // array length
  // Fails on members other than `allowed` (catches misspelt fields).
  void only(std::initializer_list<std::string_view> allowed) const;

  std::string string() const;
  bool boolean() const;
  double number(double lo, double hi) const;
  std::uint64_t integer(std::uint64_t lo, std::uint64_t hi) const;

  // Optional members with a default.
  double number(std::string_view key, double lo, double hi, double fallback) const;
  std::uint64_t integer(std::string_view key, std::uint64_t lo, std::uint64_t hi,
                        std::uint64_t fallback) const;
  bool boolean(std::string_view key, bool fallback) const;

  [[noreturn]] void fail(const std::string& reason) const;

 private:
  void require_object() const;
  const model::Json* json_;
  const std::string* origin_;
  std::string path_;
};

}  // namespace gputopo::device::sim
