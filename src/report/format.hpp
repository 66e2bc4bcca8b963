#pragma once

#include <string>
#include <string_view>

#include "model/attribute.hpp"

// How values read in the text report: natural units, labels from keys.
namespace gputopo::report {

// 262144 B -> "256 KiB", 85899345920 B -> "80 GiB", 83.5 GiB -> "83.5 GiB".
std::string format_bytes(double bytes);

// A number without needless digits: 1980 -> "1980", 0.98 -> "0.98", 295.456 -> "295.46".
std::string format_number(double v);

// A value in its unit: bytes in KiB/MiB/GiB, booleans as yes/no, [x, y, z] as "x x y x z",
// ["a", "b"] as "a, b", [] as "none",
// others as "<number> <unit>" ("1980 MHz", "295 cycles", "3352.1 GB/s"). Null gives "".
std::string format_value(const model::Json& value, std::string_view unit);

// An attribute's value as the full text shows it: the value in its unit with its interval where
// the interval says more than the value ("240 KiB (239-241 KiB)", "at least 64 KiB", "4 cycles"
// for 4 to 4), or "not available: <reason>".
std::string attribute_text(const model::Attribute& a);

// Where a value comes from, as the summaries mark it: "" (the driver), "[table]", "[derived]",
// "[measured 0.98]".
std::string provenance_mark(const model::Attribute& a);

// "smClockMax" -> "SM clock max", "l2PersistingMax" -> "L2 persisting max",
// "constantL15" -> "Constant L1.5".
std::string label_for(std::string_view key);

}  // namespace gputopo::report
