#include "schema_validator.hpp"

#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>

namespace gputopo::test {
namespace {
using nlohmann::json;

bool has_type(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "number") return v.is_number();
  if (type == "integer")
    return v.is_number_integer() ||
           (v.is_number_float() &&
            v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  throw std::invalid_argument("unknown type " + type);
}

const std::set<std::string> kKeywords{
    "type",  "enum",        "const",    "properties",    "required", "additionalProperties",
    "items", "minItems",    "maxItems", "minimum",       "maximum",  "pattern",
    "anyOf", "not",         "$ref",     "propertyNames", "$schema",  "$id",
    "title", "description", "$defs"};
}  // namespace

SchemaValidator::SchemaValidator(json schema) : root_(std::move(schema)) {}

json load_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return json::parse(in);
}

const json& SchemaValidator::resolve(const std::string& ref) const {
  const std::string prefix = "#/$defs/";
  if (ref.rfind(prefix, 0) != 0) throw std::invalid_argument("unsupported $ref " + ref);
  return root_.at("$defs").at(ref.substr(prefix.size()));
}

std::vector<std::string> SchemaValidator::validate(const json& document) const {
  std::vector<std::string> errors;
  check(root_, document, "", errors);
  return errors;
}

void SchemaValidator::check(const json& s, const json& v, const std::string& where,
                            std::vector<std::string>& errors) const {
  if (s.is_boolean()) {
    if (!s.get<bool>()) errors.push_back(where + ": no value allowed");
    return;
  }
  for (const auto& [keyword, _] : s.items())
    if (!kKeywords.count(keyword)) throw std::invalid_argument("unsupported keyword " + keyword);
  const std::string at = where.empty() ? "/" : where;

  if (s.contains("$ref")) check(resolve(s["$ref"]), v, where, errors);
  if (s.contains("type")) {
    bool ok = false;
    if (s["type"].is_string())
      ok = has_type(v, s["type"]);
    else
      for (const auto& t : s["type"]) ok = ok || has_type(v, t);
    if (!ok) {
      errors.push_back(at + ": wrong type");
      return;
    }
  }
  if (s.contains("enum")) {
    bool found = false;
    for (const auto& e : s["enum"]) found = found || e == v;
    if (!found) errors.push_back(at + ": " + v.dump() + " not in enum");
  }
  if (s.contains("const") && s["const"] != v) errors.push_back(at + ": not " + s["const"].dump());
  if (v.is_number()) {
    if (s.contains("minimum") && v.get<double>() < s["minimum"].get<double>())
      errors.push_back(at + ": below minimum");
    if (s.contains("maximum") && v.get<double>() > s["maximum"].get<double>())
      errors.push_back(at + ": above maximum");
  }
  if (v.is_string() && s.contains("pattern") &&
      !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>())))
    errors.push_back(at + ": does not match " + s["pattern"].get<std::string>());
  if (v.is_array()) {
    if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>())
      errors.push_back(at + ": too few items");
    if (s.contains("maxItems") && v.size() > s["maxItems"].get<std::size_t>())
      errors.push_back(at + ": too many items");
    if (s.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i)
        check(s["items"], v[i], where + "/" + std::to_string(i), errors);
  }
  if (v.is_object()) {
    if (s.contains("required"))
      for (const auto& r : s["required"])
        if (!v.contains(r.get<std::string>()))
          errors.push_back(at + ": missing " + r.get<std::string>());
    for (const auto& [key, child] : v.items()) {
      const std::string path = where + "/" + key;
      if (s.contains("propertyNames"))
        check(s["propertyNames"], json(key), path + " (name)", errors);
      if (s.contains("properties") && s["properties"].contains(key))
        check(s["properties"][key], child, path, errors);
      else if (s.contains("additionalProperties"))
        check(s["additionalProperties"], child, path, errors);
    }
  }
  if (s.contains("anyOf")) {
    bool any = false;
    for (const auto& option : s["anyOf"]) {
      std::vector<std::string> sub;
      check(option, v, where, sub);
      any = any || sub.empty();
    }
    if (!any) errors.push_back(at + ": matches none of anyOf");
  }
  if (s.contains("not")) {
    std::vector<std::string> sub;
    check(s["not"], v, where, sub);
    if (sub.empty()) errors.push_back(at + ": matches a forbidden schema");
  }
}

}  // namespace gputopo::test
