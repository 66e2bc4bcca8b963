#include "report/html_assets.hpp"

namespace gputopo::report {

std::string_view html_asset(std::string_view name) {
  for (const auto& [n, text] : html_assets())
    if (n == name) return text;
  return {};
}

}  // namespace gputopo::report
