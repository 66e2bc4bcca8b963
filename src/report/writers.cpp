#include "report/writers.hpp"

namespace gputopo::report {
namespace {

std::vector<std::unique_ptr<Writer>> make_writers() {
  std::vector<std::unique_ptr<Writer>> all;
  all.push_back(make_text_writer(false));
  all.push_back(make_text_writer(true));
  all.push_back(make_json_writer());
  all.push_back(make_markdown_writer());
  all.push_back(make_html_writer());
  all.push_back(make_mt4g_writer());
  all.push_back(make_tree_writer(false));
  all.push_back(make_tree_writer(true));
  return all;
}

}  // namespace

const std::vector<std::unique_ptr<Writer>>& writers() {
  static const std::vector<std::unique_ptr<Writer>> all = make_writers();
  return all;
}

const Writer* find_writer(std::string_view name) {
  for (const auto& w : writers())
    if (w->name() == name) return w.get();
  return nullptr;
}

}  // namespace gputopo::report
