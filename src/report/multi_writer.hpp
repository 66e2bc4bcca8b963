#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "model/report.hpp"
#include "report/writer.hpp"

namespace gputopo::report {

// One report to several destinations, each in its own format: files (written atomically) first,
// then streams, in the order they were added.
class MultiWriter {
 public:
  void add_file(const Writer& writer, std::string path);
  void add_stream(const Writer& writer, std::ostream& out);

  // Why a file could not be written, one line.
  using OnFailure = std::function<void(const std::string& why)>;

  // Writes `report` everywhere. A file that cannot be written is passed to `on_failure` at once
  // and does not stop the others.
  void write(const model::Report& report, const OnFailure& on_failure) const;
  // Writes `report` to the files only (a partial report while the run goes on); `sync`: fsync each
  // before its rename (files::AtomicWrite).
  void write_files(const model::Report& report, const OnFailure& on_failure,
                   bool sync = true) const;

 private:
  struct File {
    const Writer* writer;
    std::string path;
  };
  struct Stream {
    const Writer* writer;
    std::ostream* out;
  };
  std::vector<File> files_;
  std::vector<Stream> streams_;
};

}  // namespace gputopo::report
