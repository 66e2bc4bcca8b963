#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/attribute.hpp"

// The GPU's compute and memory layout as typed objects, the way hwloc keeps a host: one object a
// part (SM, TPC, GPC, L2 segment, L2 slice, shared cache), with its id and its membership in both
// directions. Probes write it (discovery::Context::topology()); every writer reads it. The
// attributes beside it (compute.gpcCount, ...) state how far each level is established, and their
// evidence keeps the raw signals; docs/design-notes.md, "The topology".
namespace gputopo::model {

using SmList = std::vector<int>;

// How far a level of the topology is known. `written` is the probe's; the rest is copied from the
// attribute that states the level (settle_levels), so that a demoted finding demotes its level.
struct LevelState {
  LevelState() = default;
  explicit LevelState(std::string k) : key(std::move(k)) {}

  std::string key;       // the attribute that states the level: "compute.gpcCount", "l2.sliceCount"
  bool written = false;  // a probe wrote this level's membership (its objects may be few or none)
  bool measured = false;     // the attribute is in the report (a probe ran for it)
  bool established = false;  // the attribute has a value
  std::optional<double> confidence;
  std::string reason;  // the attribute's reason: why not established, or what limits it
};

struct Sm {
  int id = 0;
  std::optional<int> tpc;      // index into Topology::tpcs
  std::optional<int> gpc;      // index into Topology::gpcs; nullopt: in no GPC found
  double gpc_confidence = 0;   // of that placement; 0 where not placed
  std::optional<int> segment;  // the L2 segment the SM loads through; nullopt: not tested
};

struct Tpc {
  int id = 0;  // TPCs are numbered by their lowest SM
  SmList sms;
  std::optional<int> gpc;
};

struct Gpc {
  int id = 0;  // GPCs are numbered by their lowest SM
  SmList sms;
  std::vector<int> tpcs;  // the TPCs all of whose SMs are in this GPC
};

// An L2 slice: a bank of the L2 that an address hashes to. A slice probe fills `slices` with
// add_slice(); `segment` and `near_sms` stay empty where it cannot tell.
struct L2Slice {
  int id = 0;
  std::optional<int> segment;  // the L2 segment that holds the slice
  SmList near_sms;             // the SMs that reach it fastest
  double confidence = 0;       // that the slice is a slice of its own (and of that segment)
  std::vector<double> cycles;  // from each of Topology::slice_sms, where measured
};

struct L2Segment {
  int id = 0;
  SmList sms;               // the SMs that load through it
  std::vector<int> gpcs;    // the GPCs all of whose SMs load through it
  std::vector<int> slices;  // indices into Topology::slices
};

// A cache that groups of SMs share (AMD's scalar L1 between CUs): the groups, in the order found.
struct SharedCache {
  std::string element;  // the memory element, e.g. "scalarL1"
  std::vector<SmList> groups;
};

struct Topology {
  std::vector<Sm> sms;  // one a SM the layout probes saw, by id
  std::vector<Tpc> tpcs;
  std::vector<Gpc> gpcs;
  std::vector<SmList> loose_units;  // SMs of no GPC found, in the units that ran together
  std::vector<L2Segment> segments;
  std::vector<L2Slice> slices;
  SmList slice_sms;  // the SMs whose latency to each slice L2Slice::cycles holds
  std::vector<SharedCache> shared_caches;
  LevelState tpc_state{"compute.tpcCount"};
  LevelState gpc_state{"compute.gpcCount"};
  LevelState segment_state{"compute.nearL2Segments"};
  LevelState slice_state;  // key: set by the slice probe to the attribute that states the slices

  // The SMs of each TPC / GPC, by id (each sorted, in id order).
  std::vector<SmList> tpc_sms() const;
  std::vector<SmList> gpc_sms() const;
  // The segment of each SM, -1 for SMs not tested; empty where the segments are not written or
  // their attribute has no value.
  std::vector<int> segment_of_sm() const;
};

// Probe side. Each replaces its level; ids number the groups by their lowest SM.
void set_tpcs(Topology& t, int sm_count, std::vector<SmList> tpcs);
// `confidence[sm]`: of each SM's placement (0 for SMs in no GPC); `loose`: the units of SMs in no
// GPC found.
void set_gpcs(Topology& t, int sm_count, std::vector<SmList> gpcs,
              const std::vector<double>& confidence, std::vector<SmList> loose);
// The segment each SM loads through (nullopt: not tested).
void set_segment_of_sm(Topology& t, const std::vector<std::optional<int>>& segment_of_sm);
// A slice, and the attribute that states the slices ("l2.sliceCount" form: element and key).
void add_slice(Topology& t, L2Slice slice, const std::string& key);
void set_shared_cache(Topology& t, std::string element, std::vector<SmList> groups);
const SharedCache* shared_cache(const Topology& t, std::string_view element);

}  // namespace gputopo::model
