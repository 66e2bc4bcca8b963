#include "model/json_input.hpp"

#include <stdexcept>
#include <string>

namespace gputopo::model {
namespace {

// A SAX pass that stops at the first nesting past the limit and keeps the parser's complaint.
class DepthCheck final : public nlohmann::json_sax<Json> {
 public:
  explicit DepthCheck(std::size_t max_depth) : max_depth_(max_depth) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  bool enter() {
    if (++depth_ <= max_depth_) return true;
    error_ = "nests deeper than " + std::to_string(max_depth_) + " levels";
    return false;
  }
  bool leave() {
    --depth_;
    return true;
  }

  std::size_t max_depth_;
  std::size_t depth_ = 0;
  std::string error_;
};

}  // namespace

Json parse_json_input(std::string_view text, std::size_t max_depth) {
  DepthCheck check(max_depth);
  if (!Json::sax_parse(text, &check)) throw std::runtime_error(check.error());
  return Json::parse(text);
}

}  // namespace gputopo::model
