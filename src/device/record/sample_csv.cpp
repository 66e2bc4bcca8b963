#include "device/record/sample_csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>

#include "device/record/csv_reader.hpp"

namespace gputopo::device::record {
namespace {

// Shortest text that reads back to the same value (doubles included).
template <class T>
void put_field(std::string& out, T value) {
  std::array<char, 32> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), end);
}

void put_header(std::string& out, std::string_view fixed, char series, std::size_t count) {
  out += fixed;
  for (std::size_t i = 0; i < count; ++i) {
    out += ',';
    out += series;
    put_field(out, i);
  }
  out += '\n';
}

template <class T>
void put_row_tail(std::string& out, const std::vector<T>& values) {
  for (T v : values) {
    out += ',';
    put_field(out, v);
  }
  out += '\n';
}

}  // namespace

std::string chase_samples_csv(const std::vector<ChaseResult>& results) {
  std::size_t widest = 0;
  for (const auto& r : results) widest = std::max(widest, r.cycles.size());
  std::string out;
  put_header(out, "request,sm,overhead_cycles", 'c', widest);
  for (std::size_t i = 0; i < results.size(); ++i) {
    put_field(out, i);
    out += ',';
    put_field(out, results[i].sm);
    out += ',';
    put_field(out, results[i].overhead_cycles);
    put_row_tail(out, results[i].cycles);
  }
  return out;
}

std::string indices_csv(const std::vector<ChaseResult>& results) {
  std::size_t widest = 0;
  for (const auto& r : results) widest = std::max(widest, r.indices.size());
  if (widest == 0) return {};
  std::string out;
  put_header(out, "request", 'i', widest);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].indices.empty()) continue;
    put_field(out, i);
    put_row_tail(out, results[i].indices);
  }
  return out;
}

std::string column_csv(Column column, const std::vector<double>& values) {
  std::string out = std::string(column.index) + ',' + column.value + '\n';
  for (std::size_t i = 0; i < values.size(); ++i) {
    put_field(out, i);
    out += ',';
    put_field(out, values[i]);
    out += '\n';
  }
  return out;
}

std::vector<ChaseResult> read_chase_samples(const std::filesystem::path& file,
                                            std::size_t expected) {
  CsvReader csv(file, "request,sm,overhead_cycles");
  std::vector<ChaseResult> results;
  while (csv.next()) {
    if (csv.columns() < 3) csv.fail("expected request,sm,overhead_cycles and then the cycles");
    auto request = csv.number<std::size_t>(0, "request");
    if (request != results.size())
      csv.fail("request " + std::to_string(request) + " where request " +
               std::to_string(results.size()) + " was expected (rows are in request order)");
    if (results.size() == expected)
      csv.fail("more rows than the " + std::to_string(expected) + " results the manifest lists");
    ChaseResult& r = results.emplace_back();
    r.sm = csv.number<int>(1, "sm");
    r.overhead_cycles = csv.number<double>(2, "overhead_cycles");
    r.cycles.resize(csv.columns() - 3);
    for (std::size_t c = 3; c < csv.columns(); ++c)
      r.cycles[c - 3] = csv.number<std::uint32_t>(c, "cycle count");
  }
  if (results.size() != expected)
    csv.fail_file("holds " + std::to_string(results.size()) + " rows but the manifest lists " +
                  std::to_string(expected) + " results");
  return results;
}

void read_indices(const std::filesystem::path& file, std::vector<ChaseResult>& results) {
  CsvReader csv(file, "request");
  std::size_t next_allowed = 0;
  while (csv.next()) {
    auto request = csv.number<std::size_t>(0, "request");
    if (request < next_allowed || request >= results.size())
      csv.fail("request " + std::to_string(request) +
               " is out of order or not among the manifest's " + std::to_string(results.size()) +
               " results");
    next_allowed = request + 1;
    auto& indices = results[request].indices;
    indices.resize(csv.columns() - 1);
    for (std::size_t c = 1; c < csv.columns(); ++c)
      indices[c - 1] = csv.number<std::uint64_t>(c, "index");
  }
}

std::vector<double> read_column(const std::filesystem::path& file, Column column,
                                std::size_t expected) {
  const std::string header = std::string(column.index) + ',' + column.value;
  CsvReader csv(file, header);
  std::vector<double> values;
  while (csv.next()) {
    if (csv.columns() != 2) csv.fail("expected " + header);
    if (csv.number<std::size_t>(0, column.index) != values.size())
      csv.fail(std::string(column.index) + "s must be numbered 0, 1, 2, ... in order");
    values.push_back(csv.number<double>(1, column.value));
  }
  if (values.size() != expected)
    csv.fail_file("holds " + std::to_string(values.size()) + " " + column.index +
                  "s but the manifest lists " + std::to_string(expected));
  return values;
}

}  // namespace gputopo::device::record
