#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "report/writer.hpp"

namespace gputopo::report {

// The one-screen summary ("text", summary_text.hpp) or every attribute ("text-full", -v).
std::unique_ptr<Writer> make_text_writer(bool full);
std::unique_ptr<Writer> make_json_writer();
std::unique_ptr<Writer> make_mt4g_writer();
std::unique_ptr<Writer> make_markdown_writer();
// A self-contained HTML page with the plots of the run's sweeps (html_plots.hpp).
std::unique_ptr<Writer> make_html_writer();
// The lstopo-style tree (tree.hpp), compact ("tree") or full ("tree-full").
std::unique_ptr<Writer> make_tree_writer(bool full);

// Every format gputopo writes, in registration order.
const std::vector<std::unique_ptr<Writer>>& writers();

// The writer of the format `name`; nullptr when there is none.
const Writer* find_writer(std::string_view name);

}  // namespace gputopo::report
