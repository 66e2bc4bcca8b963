#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gputopo::test {

// A JSON Schema validator for the keywords docs/gputopo.schema.json uses: type, enum, const,
// properties, required, additionalProperties, propertyNames, items, minItems, maxItems, minimum,
// maximum, pattern, anyOf, not, and local $ref ("#/$defs/..."). Any other keyword is an error, so
// that a schema using more than this can never pass by being half read.
class SchemaValidator {
 public:
  explicit SchemaValidator(nlohmann::json schema);

  // One message per violation ("/run/status: not in enum"); empty when `document` conforms.
  std::vector<std::string> validate(const nlohmann::json& document) const;

 private:
  void check(const nlohmann::json& schema, const nlohmann::json& value, const std::string& where,
             std::vector<std::string>& errors) const;
  const nlohmann::json& resolve(const std::string& ref) const;

  nlohmann::json root_;
};

nlohmann::json load_json_file(const std::string& path);

}  // namespace gputopo::test
