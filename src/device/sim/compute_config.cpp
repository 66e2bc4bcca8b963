#include "device/sim/compute_config.hpp"

#include <fmt/format.h>

#include "device/compute_request.hpp"

namespace gputopo::device::sim {

ComputeSpec parse_compute(const JsonReader& r, int cc_major, int cc_minor) {
  r.only({"comment", "pipelines", "schedulers_per_sm", "overhead_cycles", "jitter_cycles",
          "trip_overhead_cycles", "shared_banks", "branch_cycles", "reconverge",
          "instruction_caches", "register_reads_per_clk"});
  ComputeSpec c;
  c.schedulers_per_sm = static_cast<int>(r.integer("schedulers_per_sm", 1, 16, 4));
  c.overhead_cycles = r.number("overhead_cycles", 0, 1e5, 0);
  c.jitter_cycles = r.number("jitter_cycles", 0, 1e4, 0);
  c.trip_overhead_cycles = r.number("trip_overhead_cycles", 0, 100, 0);
  c.branch_cycles = r.number("branch_cycles", 0, 1e4, 8);
  c.reconverge = r.boolean("reconverge", true);
  c.register_reads_per_clk = r.number("register_reads_per_clk", 0, 16, 0);
  if (r.has("instruction_caches")) {
    const auto list = r.at("instruction_caches");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto level = list.at(i);
      level.only({"size_bytes", "extra_cycles", "holds_constants"});
      ComputeSpec::InstructionCache ic;
      ic.size_bytes = level.at("size_bytes").integer(128, std::uint64_t{1} << 30);
      ic.extra_cycles = level.at("extra_cycles").number(0, 1e4);
      ic.holds_constants = level.boolean("holds_constants", false);
      if (ic.holds_constants)
        for (const auto& earlier : c.instruction_caches)
          if (earlier.holds_constants) level.at("holds_constants").fail("only one level can");
      if (!c.instruction_caches.empty() && ic.size_bytes <= c.instruction_caches.back().size_bytes)
        level.at("size_bytes").fail("must grow from level to level");
      c.instruction_caches.push_back(ic);
    }
  }
  if (r.has("shared_banks")) {
    const auto b = r.at("shared_banks");
    b.only({"count", "width_bytes", "conflict_cycles"});
    SharedBankSpec s;
    s.count = static_cast<std::uint32_t>(b.integer("count", 1, 256, 32));
    s.width_bytes = static_cast<std::uint32_t>(b.integer("width_bytes", 1, 64, 4));
    if ((s.count & (s.count - 1)) != 0) b.at("count").fail("must be a power of two");
    if ((s.width_bytes & (s.width_bytes - 1)) != 0 || s.width_bytes < 4)
      b.at("width_bytes").fail("must be a power of two from 4");
    s.conflict_cycles = b.number("conflict_cycles", 0, 1e4, 2);
    c.shared_banks = s;
  }
  const auto list = r.at("pipelines");
  if (!list.json().is_object()) list.fail("must be an object of ops");
  DeviceInfo gpu;
  gpu.compute_capability = model::ComputeCapability{cc_major, cc_minor};
  for (const auto& item : list.json().items()) {
    const auto op = compute_op_from_string(item.key());
    const auto row = list.at(item.key());
    if (!op) row.fail("is not a compute op (docs/compute.md lists them)");
    if (!has_op(gpu, *op))
      row.fail(fmt::format("compute capability {}.{} has no such instruction", cc_major, cc_minor));
    row.only({"latency_cycles", "per_clk_per_sm"});
    PipelineSpec p;
    p.latency_cycles = row.at("latency_cycles").number(1, 1e5);
    p.per_clk_per_sm = row.at("per_clk_per_sm").number(0.001, 4096);
    if (p.per_clk_per_sm > 32.0 * c.schedulers_per_sm)
      row.at("per_clk_per_sm")
          .fail(fmt::format("exceeds what {} schedulers issue, {} per clock", c.schedulers_per_sm,
                            32 * c.schedulers_per_sm));
    c.pipelines[static_cast<std::size_t>(*op)] = p;
  }
  for (const ComputeOp op : all_compute_ops())
    if (has_op(gpu, op) && !c.pipeline(op))
      list.fail(fmt::format("lacks \"{}\", which compute capability {}.{} has", to_string(op),
                            cc_major, cc_minor));
  return c;
}

}  // namespace gputopo::device::sim
