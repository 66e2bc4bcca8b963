#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gputopo::analysis {

// Rows grouped by their profile over the columns: SMs by their L2 latency to many lines (SMs of
// one crossbar port share it), or lines by their latency from every SM (lines of one L2 slice
// share it). Method (docs/methods.md, "Profile groups"): each row and each column is centred, the
// distance of two rows is 1 - their Pearson correlation, and the rows are joined by average
// linkage. The tree is cut where the next merge distance over the widest merge inside the groups is
// largest (2 to n / 2 groups); the cut stands when that ratio exceeds, by min_margin, the largest
// such ratio of null_draws matrices of independent Gaussian noise of the same shape (p < 1 /
// (null_draws + 1)). The tree may hold real structure at several levels: this finds the clearest.
struct ProfileGroupOptions {
  int null_draws = 19;
  double min_margin = 1.2;
};

struct ProfileGroups {
  std::vector<std::vector<int>> groups;  // row indices ascending; groups ordered by first row
  std::vector<int> label;                // group of each row
  double margin = 0;  // the cut's ratio over the ratio it needed (>= 1 when established)
  bool established = false;
  std::string reason;  // why not established (empty when established)
};

// rows: one profile each, all of one length >= 2; fewer than 4 rows give one group, not
// established.
ProfileGroups group_profiles(const std::vector<std::vector<double>>& rows,
                             const ProfileGroupOptions& options = {});

// Places SMs by profile next to a partial placement (e.g. GPCs from cluster co-scheduling). Each
// group lends a centroid of its members' normalized profiles; every placed SM is matched to the
// centroid it correlates with most (its own group's centroid taken without it). Groups that any
// placed SM mistakes for one another join one set: the profile cannot tell them apart. Every
// unplaced SM goes to the set of its nearest centroid, or stands apart (set -1) when it correlates
// with every centroid less than the least any placed SM does with its own set.
struct ProfilePlacement {
  std::vector<std::vector<int>> sets;  // group indices the profiles cannot tell apart
  std::vector<int> set_of_group;       // set of each group
  std::vector<int> unplaced;           // rows in no group, ascending
  std::vector<int> set_of_unplaced;    // set of each unplaced row, -1: stands apart
  std::vector<double> best;            // each unplaced row's correlation with its nearest centroid
  std::vector<double> next;            // ... and with the nearest centroid of another set (or -1)
  int placed_agree = 0;                // placed rows whose nearest centroid is their own group's
  int placed_total = 0;
  double own_floor = 1;  // the least correlation of a placed row with its own set's centroid
};

// Fewer than 2 rows of 2 values give an empty placement; members that are no row index, or that
// an earlier group holds, are left out.
ProfilePlacement place_by_profile(const std::vector<std::vector<double>>& rows,
                                  const std::vector<std::vector<int>>& groups);

// A linear (XOR) address hash over GF(2) from the class of every line index 0 .. 2^n - 1 (class
// labels are arbitrary; equal labels are one slice). The lines whose class is that of line 0 must
// form a subspace and the classes its cosets; otherwise the hash is not linear. With
// max_misfit_share > 0 the subspace is the offsets x that keep most lines' class (class(l ^ x) ==
// class(l) for more than half of them), and up to that share of lines may sit in a class other
// than their coset's most common one (misfits: lines a noisy classing put in a neighbour).
struct XorHash {
  bool linear = false;
  double consistency = 0;            // share of line pairs whose classes the linear model predicts
  int rank = 0;                      // output bits: 2^rank slices told apart by these bits
  int misfits = 0;                   // lines outside their coset's class
  std::vector<std::uint64_t> masks;  // one per output bit, over the line-index bits (reduced form)
  std::string reason;
};

XorHash solve_xor_hash(std::span<const int> line_class, double max_misfit_share = 0);

}  // namespace gputopo::analysis
