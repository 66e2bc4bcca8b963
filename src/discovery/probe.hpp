#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gputopo::discovery {

class Context;

// One measurement step of the plan, e.g. "l1.size". A probe reads earlier findings from the
// context, runs device batches through it, and writes its findings back as attributes.
class Probe {
 public:
  // How --only selects the probe besides by its name: by any of its elements, or (a probe that
  // relates several elements, such as the sharing between caches) only by all of them.
  enum class Selection { AnyElement, AllElements };

  Probe(std::string name, std::vector<std::string> elements, std::vector<std::string> needs,
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
  // Probes whose findings this one uses; the plan runs them first.
  const std::vector<std::string>& needs() const { return needs_; }

  virtual void run(Context& context) = 0;

 private:
  std::string name_;
  std::vector<std::string> elements_;
  std::vector<std::string> needs_;
  Selection selection_;
};

}  // namespace gputopo::discovery
