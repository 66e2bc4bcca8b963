#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "model/keys.hpp"

namespace gputopo::discovery {

class Context;

// A finding a probe reads or writes: a catalogue key of a report element.
struct Finding {
  std::string element;
  const model::Key* key = nullptr;

  bool operator==(const Finding& o) const { return element == o.element && key == o.key; }
};

// A finding of the compute section, such as compute(keys::gpcCount).
inline Finding compute(const model::Key& key) { return {"compute", &key}; }

// One measurement step of the plan, e.g. "l1.size". A probe reads earlier findings from the
// context, runs device batches through it, and writes its findings back as attributes.
class Probe {
 public:
  // How --only selects the probe besides by its name: by any of its elements, or (a probe that
  // relates several elements, such as the sharing between caches) only by all of them.
  enum class Selection { AnyElement, AllElements };

  Probe(std::string name, std::vector<std::string> elements, std::vector<std::string> needs = {},
        Selection selection = Selection::AnyElement)
      : name_(std::move(name)),
        elements_(std::move(elements)),
        needs_(std::move(needs)),
        selection_(selection) {}
  virtual ~Probe() = default;
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  const std::string& name() const { return name_; }
  // Report elements this probe writes to; selecting them with --only selects the probe.
  const std::vector<std::string>& elements() const { return elements_; }
  Selection selection() const { return selection_; }
  // Probes this one must follow for a reason no finding states (a level-2 cache's geometry
  // follows its presence probe); the plan runs them first.
  const std::vector<std::string>& needs() const { return needs_; }
  // The findings the probe reads and writes. The plan runs a probe after every probe that writes
  // what it reads, but for probes that also read it (they revise a finding, like the physical
  // cache's sizes, and run after its producer). With GPUTOPO_STRICT_FINDINGS (tests), reading or
  // writing a finding not declared here is a programming error the context throws for.
  const std::vector<Finding>& reads() const { return reads_; }
  const std::vector<Finding>& writes() const { return writes_; }

  virtual void run(Context& context) = 0;

 protected:
  // Findings of no element (a level-1 target's inner cache) are left out.
  void declare(std::vector<Finding> reads, std::vector<Finding> writes) {
    std::erase_if(reads, [](const Finding& f) { return f.element.empty(); });
    reads_ = std::move(reads);
    writes_ = std::move(writes);
  }

 private:
  std::vector<Finding> reads_;
  std::vector<Finding> writes_;
  std::string name_;
  std::vector<std::string> elements_;
  std::vector<std::string> needs_;
  Selection selection_;
};

}  // namespace gputopo::discovery
