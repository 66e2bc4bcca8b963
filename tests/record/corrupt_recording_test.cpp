#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "fake_device.hpp"
#include "model/attribute.hpp"
#include "test_recordings.hpp"

namespace gputopo::device::record {
namespace {

namespace fs = std::filesystem;
using model::Json;
using testing::read_text;
using testing::write_text;

// A recording of four calls: 0 chase (3 results, indices for result 1), 1 interfere, 2 stream,
// 3 clusters. Each case damages it in one way; opening it must fail with one line naming the
// place.
struct Damage {
  const char* name;
  std::function<void(const fs::path& dir)> apply;
  std::vector<std::string> expected;  // substrings of the message
};

void PrintTo(const Damage& d, std::ostream* os) { *os << d.name; }

void edit_manifest(const fs::path& dir, const std::function<void(Json&)>& edit) {
  Json m = Json::parse(read_text(dir / "manifest.json"));
  edit(m);
  write_text(dir / "manifest.json", m.dump(2));
}

void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = read_text(file);
  auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << file;
  write_text(file, text.replace(at, from.size(), to));
}

const std::vector<Damage>& damages() {
  static const std::vector<Damage> all = {
      {"NoDirectory", [](const fs::path& dir) { fs::remove_all(dir); }, {"no such directory"}},
      {"FileInsteadOfDirectory",
       [](const fs::path& dir) {
         fs::remove_all(dir);
         write_text(dir, "x");
       },
       {"not a directory"}},
      {"NoManifest",
       [](const fs::path& dir) { fs::remove(dir / "manifest.json"); },
       {"manifest.json: missing"}},
      {"TruncatedManifest",
       [](const fs::path& dir) {
         std::string text = read_text(dir / "manifest.json");
         write_text(dir / "manifest.json", text.substr(0, text.size() / 2));
       },
       {"manifest.json: not valid JSON", "line"}},
      {"ForeignManifest",
       [](const fs::path& dir) { write_text(dir / "manifest.json", "[1, 2]"); },
       {"manifest.json: not a gputopo recording"}},
      {"NewerVersion",
       [](const fs::path& dir) { edit_manifest(dir, [](Json& m) { m["version"] = 2; }); },
       {"manifest.json: version: format version 2 is not supported"}},
      {"MissingDeviceField",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["device"]["compute"].erase("smCount"); });
       },
       {"manifest.json: device.compute.smCount: missing"}},
      // Issue 32 row 10: a device that cannot exist, whatever the sign of the number.
      {"SmCountZero",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["device"]["compute"]["smCount"]["value"] = 0; });
       },
       {"device.compute.smCount.value: expected an integer in [1, 320], found 0"}},
      {"WarpSizeZero",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["device"]["compute"]["warpSize"]["value"] = 0; });
       },
       {"device.compute.warpSize.value", "found 0"}},
      {"MaxThreadsPerBlockZero",
       [](const fs::path& dir) {
         edit_manifest(dir,
                       [](Json& m) { m["device"]["compute"]["maxThreadsPerBlock"]["value"] = 0; });
       },
       {"device.compute.maxThreadsPerBlock.value", "found 0"}},
      {"DeviceFactOfTheWrongType",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["device"]["compute"]["smCount"]["value"] = "many"; });
       },
       {"manifest.json: device: compute.smCount: the value \"many\" is of the wrong type"}},
      {"BadAttributeSource",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["device"]["general"]["name"]["source"] = "guess"; });
       },
       {"device.general.name.source", "guess"}},
      {"UnknownSpace",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["calls"][0]["requests"][0]["space"] = "l9"; });
       },
       {"calls[0].requests[0].space: unknown value \"l9\"", "readOnly"}},
      {"NegativeArrayBytes",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["calls"][0]["requests"][1]["arrayBytes"] = -5; });
       },
       {"calls[0].requests[1].arrayBytes: expected an unsigned integer"}},
      {"LoadsBeyond32Bits",
       [](const fs::path& dir) {
         edit_manifest(
             dir, [](Json& m) { m["calls"][1]["requests"][0]["b"]["recordedLoads"] = 1ull << 33; });
       },
       {"calls[1].requests[0].b.recordedLoads", "4294967295"}},
      {"UnknownOp",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["calls"][2]["op"] = "fly"; });
       },
       {"calls[2].op: unknown value \"fly\""}},
      {"CallsOutOfOrder",
       [](const fs::path& dir) { edit_manifest(dir, [](Json& m) { m["calls"][1]["call"] = 7; }); },
       {"calls[1].call: is 7"}},
      {"GroupNotANumber",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["calls"][3]["groups"][1][0] = "two"; });
       },
       {"calls[3].groups[1][0]: expected an integer"}},
      {"HugeResultCount",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["calls"][0]["results"] = 4000000000ull; });
       },
       {"00000-chase.csv: holds 3 rows but the manifest lists 4000000000 results"}},
      {"SampleFileOutsideTheDirectory",
       [](const fs::path& dir) {
         edit_manifest(dir, [](Json& m) { m["calls"][0]["samples"] = "../00000-chase.csv"; });
       },
       {"calls[0].samples", "not a file name"}},
      {"MissingSampleFile",
       [](const fs::path& dir) { fs::remove(dir / "00001-interfere.csv"); },
       {"00001-interfere.csv: cannot be read"}},
      {"EmptySampleFile",
       [](const fs::path& dir) { write_text(dir / "00000-chase.csv", ""); },
       {"00000-chase.csv: is empty"}},
      {"WrongHeader",
       [](const fs::path& dir) { replace_in(dir / "00000-chase.csv", "overhead_cycles", "oh"); },
       {"00000-chase.csv:1: header"}},
      {"CycleNotANumber",
       [](const fs::path& dir) {
         replace_in(dir / "00000-chase.csv", "\n1,1,18.125,178,", "\n1,1,18.125,abc,");
       },
       {"00000-chase.csv:3: cycle count \"abc\" is not an unsigned integer"}},
      {"CycleBeyond32Bits",
       [](const fs::path& dir) {
         replace_in(dir / "00000-chase.csv", "\n0,0,18.125,66,", "\n0,0,18.125,4294967296,");
       },
       {"00000-chase.csv:2: cycle count \"4294967296\""}},
      {"OverheadNotANumber",
       [](const fs::path& dir) { replace_in(dir / "00000-chase.csv", "\n0,0,18.125,", "\n0,0,,"); },
       {"00000-chase.csv:2: overhead_cycles \"\" is not a finite number"}},
      // Issue 32 row 13: a NaN is refused in every column, not only in the cycles.
      {"OverheadIsNaN",
       [](const fs::path& dir) {
         replace_in(dir / "00000-chase.csv", "\n0,0,18.125,", "\n0,0,NaN,");
       },
       {"00000-chase.csv:2: overhead_cycles \"NaN\" is not a finite number"}},
      {"StreamValueInfinite",
       [](const fs::path& dir) { replace_in(dir / "00002-stream.csv", "2050.25", "inf"); },
       {"00002-stream.csv:3: gbps \"inf\" is not a finite number"}},
      {"TooFewColumns",
       [](const fs::path& dir) { replace_in(dir / "00000-chase.csv", "\n0,0,18.125,", "\n0,0\n"); },
       {"00000-chase.csv:2: expected request,sm,overhead_cycles"}},
      {"RowsSwapped",
       [](const fs::path& dir) { replace_in(dir / "00000-chase.csv", "\n0,0,", "\n5,0,"); },
       {"00000-chase.csv:2: request 5 where request 0 was expected"}},
      {"RowMissing",
       [](const fs::path& dir) {
         std::string text = read_text(dir / "00000-chase.csv");
         text.pop_back();
         write_text(dir / "00000-chase.csv", text.substr(0, text.rfind('\n') + 1));
       },
       {"00000-chase.csv: holds 2 rows but the manifest lists 3 results"}},
      {"BlankLine",
       [](const fs::path& dir) { replace_in(dir / "00000-chase.csv", "\n1,1,", "\n\n1,1,"); },
       {"00000-chase.csv:3: empty line"}},
      {"IndexOfAnUnknownRequest",
       [](const fs::path& dir) { replace_in(dir / "00000-chase-indices.csv", "\n1,", "\n3,"); },
       {"00000-chase-indices.csv:2: request 3"}},
      {"StreamRepeatMissing",
       [](const fs::path& dir) { replace_in(dir / "00002-stream.csv", "3,2050.75\n", ""); },
       {"00002-stream.csv: holds 3 repeats but the manifest lists 4"}},
      {"ManifestIsAFifo",
       [](const fs::path& dir) {
         fs::remove(dir / "manifest.json");
         ASSERT_EQ(mkfifo((dir / "manifest.json").c_str(), 0600), 0);
       },
       {"manifest.json: is a FIFO, not a regular file"}},
      {"SampleFileIsAFifo",
       [](const fs::path& dir) {
         fs::remove(dir / "00000-chase.csv");
         ASSERT_EQ(mkfifo((dir / "00000-chase.csv").c_str(), 0600), 0);
       },
       {"00000-chase.csv: is a FIFO, not a regular file"}},
      {"SampleFileIsEndless",
       [](const fs::path& dir) {
         fs::remove(dir / "00000-chase.csv");
         fs::create_symlink("/dev/zero", dir / "00000-chase.csv");
       },
       {"00000-chase.csv: is a device, not a regular file"}},
      {"ManifestNestsTooDeep",
       [](const fs::path& dir) {
         write_text(dir / "manifest.json", std::string(300000, '[') + std::string(300000, ']'));
       },
       {"manifest.json: not valid JSON: nests deeper than 64 levels"}},
      {"ManifestNumberOverflows",
       [](const fs::path& dir) {
         replace_in(dir / "manifest.json", "\"version\": 1", "\"version\": 1e400");
       },
       {"manifest.json: not valid JSON:", "number overflow"}},
      {"StreamValueNotANumber",
       [](const fs::path& dir) { replace_in(dir / "00002-stream.csv", "2050.25", "fast"); },
       {"00002-stream.csv:3: gbps \"fast\" is not a finite number"}},
  };
  return all;
}

using CorruptRecordingAtRandom = testing::TempDirTest;

class CorruptRecording : public testing::TempDirTest,
                         public ::testing::WithParamInterface<Damage> {};

TEST_P(CorruptRecording, IsRejectedWithOneLineNamingThePlace) {
  {
    auto recorder = record_to(std::make_unique<testing::FakeDevice>(), dir_);
    recorder->chase(testing::l1_sweep());
    recorder->interfere(testing::amount_batch());
    recorder->stream(testing::copy_stream());
    recorder->co_resident_sms(2);
  }
  ASSERT_NO_THROW(open_replay(dir_));
  GetParam().apply(dir_);
  try {
    open_replay(dir_);
    FAIL() << "the damaged recording was accepted";
  } catch (const RawDirError& e) {
    std::string message = e.what();
    EXPECT_EQ(e.kind(), Error::Kind::NoDevice);
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find(dir_.filename().string()), std::string::npos) << message;
    for (const auto& part : GetParam().expected)
      EXPECT_NE(message.find(part), std::string::npos) << "\"" << part << "\" not in: " << message;
  }
  if (fs::is_regular_file(dir_)) fs::remove(dir_);
}

// Random single-byte damage anywhere: opening and replaying either works or throws RawDirError
// (or, for a changed request, Error(BadRequest)); nothing else escapes, nothing crashes.
TEST_F(CorruptRecordingAtRandom, NeverEscapesAsAnythingElse) {
  {
    auto recorder = record_to(std::make_unique<testing::FakeDevice>(), dir_);
    recorder->chase(testing::l1_sweep());
    recorder->interfere(testing::amount_batch());
    recorder->stream(testing::copy_stream());
    recorder->co_resident_sms(2);
  }
  std::vector<std::pair<fs::path, std::string>> files;
  for (const auto& entry : fs::directory_iterator(dir_))
    files.emplace_back(entry.path(), read_text(entry.path()));
  std::sort(files.begin(), files.end());
  std::mt19937 random(20261121);
  const std::string bytes = "0123456789,-.+e\n\r{}[]\":aZ \\";
  int rejected = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const auto& [file, pristine] = files[random() % files.size()];
    std::string damaged = pristine;
    const std::size_t at = random() % damaged.size();
    switch (random() % 3) {
      case 0:
        damaged[at] = bytes[random() % bytes.size()];
        break;
      case 1:
        damaged.erase(at, 1);
        break;
      default:
        damaged.resize(at);
    }
    write_text(file, damaged);
    try {
      auto replay = open_replay(dir_);
      replay->chase(testing::l1_sweep());
      replay->interfere(testing::amount_batch());
      replay->stream(testing::copy_stream());
      replay->co_resident_sms(2);
    } catch (const RawDirError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::BadRequest) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "trial " << trial << ", " << file.filename() << " at " << at << ": "
                    << e.what();
    }
    write_text(file, pristine);
  }
  EXPECT_GT(rejected, 200);
}

INSTANTIATE_TEST_SUITE_P(Damages, CorruptRecording, ::testing::ValuesIn(damages()),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace gputopo::device::record
