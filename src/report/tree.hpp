#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "model/report.hpp"

// The GPU drawn as a tree, the way hwloc's lstopo draws a host: the memory levels shared by the
// whole GPU on top, then GPCs, TPCs and SMs, each SM with its private caches. Built from the
// report's topology and attributes (what was measured, with "?" and a note where something is
// not established).
namespace gputopo::report {

struct TreeNode {
  std::string kind;  // "GPU", "L2", "GPC", "TPC", "SM", "note"
  std::string id;    // "17" for SM 17; empty where the node has no index
  std::string text;  // what follows the kind and id: " (16 SMs)", ": L1 248 KiB + ..."
  std::vector<TreeNode> children;
};

// The tree of `report`; `full` gives each node its intervals and marks, and every SM its ids.
TreeNode build_tree(const model::Report& report, bool full);

// Full form: one line a node, indented by depth. Compact form: identical siblings (same kind,
// text and subtree, ids aside) folded into "N x ", and a node whose children fold into one group
// drawn on its line in brackets: "66 x TPC [2 x SM: L1 248 KiB ...]".
void write_tree(std::ostream& out, const TreeNode& root, bool full, int indent = 0);

}  // namespace gputopo::report
