#pragma once

// The whole analysis library: statistics, level clustering, sweep change points and the
// inference helpers built on them. Pure C++: no device, no I/O.
#include "analysis/changepoint.hpp"
#include "analysis/cluster.hpp"
#include "analysis/inference.hpp"
#include "analysis/rise.hpp"
#include "analysis/summary.hpp"
#include "analysis/sweep.hpp"
