#pragma once

#include <optional>
#include <string>
#include <utility>

#include "model/attribute.hpp"

namespace gputopo::model {

// One thing a backend knows about its device, with where it came from. Three states:
// - a value (and the call that gave it, where that says more than the fact's name);
// - no value, with the reason (the driver was asked and gave no answer);
// - neither: the backend has no such fact, and the report leaves its key out.
template <class T>
struct Fact {
  std::optional<T> value;
  std::string method;
  std::string missing;
  Source source = Source::Api;

  Fact() = default;
  Fact(T v) : value(std::move(v)) {}  // NOLINT(google-explicit-constructor): facts are values
  Fact(T v, std::string how) : value(std::move(v)), method(std::move(how)) {}

  static Fact none(std::string why, std::string how = {}) {
    Fact f;
    f.missing = std::move(why);
    f.method = std::move(how);
    return f;
  }
  static Fact table(T v, std::string how) {
    Fact f(std::move(v), std::move(how));
    f.source = Source::Table;
    return f;
  }

  Fact& operator=(T v) {
    *this = Fact(std::move(v));
    return *this;
  }

  // The plain value that probes compute with: the fact, or T{} (zero, empty) where there is none.
  T operator()() const { return value.value_or(T{}); }

  bool known() const { return value.has_value(); }
  bool reported() const { return value.has_value() || !missing.empty(); }
};

}  // namespace gputopo::model
