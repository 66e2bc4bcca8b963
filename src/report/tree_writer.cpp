#include "report/tree.hpp"
#include "report/writers.hpp"

namespace gputopo::report {
namespace {

class TreeWriter final : public Writer {
 public:
  explicit TreeWriter(bool full) : full_(full) {}
  std::string_view name() const override { return full_ ? "tree-full" : "tree"; }
  std::string_view extension() const override { return full_ ? ".tree-full.txt" : ".tree.txt"; }
  void write(std::ostream& out, const model::Report& report) const override {
    if (report.simulated) out << "SIMULATED GPU: every value below comes from a model\n";
    write_tree(out, build_tree(report, full_), full_);
  }

 private:
  bool full_;
};

}  // namespace

std::unique_ptr<Writer> make_tree_writer(bool full) { return std::make_unique<TreeWriter>(full); }

}  // namespace gputopo::report
