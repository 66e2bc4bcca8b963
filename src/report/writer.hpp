#pragma once

#include <ostream>
#include <string_view>

#include "model/report.hpp"

namespace gputopo::report {

// One report format. A new format is a class in its own file and a line in writers.cpp.
class Writer {
 public:
  virtual ~Writer() = default;
  // The format's name, as the user names it ("text", "json").
  virtual std::string_view name() const = 0;
  // The file name extension of the format, with its dot (".txt", ".json").
  virtual std::string_view extension() const = 0;
  virtual void write(std::ostream& out, const model::Report& report) const = 0;
  // Whether the output is text for a terminal, whose control characters (from a device name,
  // say) are escaped on stdout; JSON and HTML escape their own.
  virtual bool terminal_text() const { return true; }
};

}  // namespace gputopo::report
