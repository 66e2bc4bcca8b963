#include "report/multi_writer.hpp"

#include <sstream>
#include <stdexcept>

#include "files/atomic_file.hpp"
#include "model/printable.hpp"

namespace gputopo::report {

void MultiWriter::add_file(const Writer& writer, std::string path) {
  files_.push_back({&writer, std::move(path)});
}

void MultiWriter::add_stream(const Writer& writer, std::ostream& out) {
  streams_.push_back({&writer, &out});
}

void MultiWriter::write_files(const model::Report& report, const OnFailure& on_failure,
                              bool sync) const {
  files::AtomicWrite how;
  how.sync = sync;
  for (const auto& f : files_) {
    std::ostringstream text;
    f.writer->write(text, report);
    try {
      files::write_file_atomically(f.path, text.str(), how);
    } catch (const std::runtime_error& e) {
      on_failure(e.what());
    }
  }
}

void MultiWriter::write(const model::Report& report, const OnFailure& on_failure) const {
  write_files(report, on_failure);
  for (const auto& s : streams_) {
    if (s.writer->terminal_text()) {
      std::ostringstream text;
      s.writer->write(text, report);
      *s.out << model::printable_lines(text.str());
    } else {
      s.writer->write(*s.out, report);
    }
    s.out->flush();
  }
}

}  // namespace gputopo::report
