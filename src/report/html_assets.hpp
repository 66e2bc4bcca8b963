#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace gputopo::report {

// The HTML page's parts, embedded at build time (src/report/CMakeLists.txt): page.css and page.js
// (src/report/html/) and chart.js, Chart.js from Debian's libjs-chart.js.
const std::vector<std::pair<std::string_view, std::string_view>>& html_assets();

// The asset `name`; "" when there is none.
std::string_view html_asset(std::string_view name);

}  // namespace gputopo::report
