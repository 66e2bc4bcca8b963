#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "model/attribute.hpp"
#include "model/report.hpp"

namespace gputopo::report {

// The host section of a -d all document (docs/schema.md) as text: the GPUs with their locality,
// each GPU's host link, the peer matrix and the outliers.
void write_host_text(std::ostream& out, const model::Json& host);

// The host section at a glance (host_matrices.cpp): one matrix a peer figure (link, read
// bandwidth, load latency) laid out as nvidia-smi topo -m lays its matrix, and a table of the
// host links.
void write_host_matrices(std::ostream& out, const model::Json& host);

// A -d all document at a glance (host_summary.cpp): GPUs of one name folded into one summary with
// the differences among them (fleet::compare), then write_host_matrices. `reports` are the GPUs'
// reports, `status` the run's.
void write_host_summary(std::ostream& out, const model::Json& doc,
                        const std::vector<model::Report>& reports, const std::string& status);

}  // namespace gputopo::report
