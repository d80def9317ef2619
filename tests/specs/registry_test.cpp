#include "specs/registry.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "tests/test_util.hpp"

namespace kgo::specs {
namespace {

SpecEntry entry(const std::string& metric, double value, bool measured, int line) {
  SpecEntry e;
  e.metric = metric;
  e.label = "H100 SXM " + metric + (measured ? " (measured)" : "");
  e.product = "H100 SXM";
  e.measured = measured;
  e.value = value;
  e.value_text = std::to_string(static_cast<int>(value));
  e.unit = "GB/s";
  e.si_value = value * 1e9;
  e.dimension = "bytes_per_s";
  e.file = measured ? "measured/H100 SXM-2026-11-20.md" : "docs/h.md";
  e.line = line;
  e.citation = "<gpu-wiki>/" + e.file + ":L" + std::to_string(line);
  e.line_text = "| Memory Bandwidth | 3350 GB/s |";
  e.line_sha256 = std::string(64, 'a');
  e.file_sha256 = std::string(64, 'b');
  e.added_at = "2026-11-20T00:00:00Z";
  return e;
}

TEST(Registry, AbsentFileIsEmpty) {
  test::TempDir dir;
  Registry r = load_registry(dir.path());
  EXPECT_TRUE(r.specs.empty());
  EXPECT_FALSE(r.get("hbm_bandwidth"));
}

TEST(Registry, GetPrefersMeasuredOnlyWhenAsked) {
  Registry r;
  r.specs = {entry("hbm_bandwidth", 3350, false, 32)};
  SpecEntry m = entry("hbm_bandwidth", 4310, true, 7);
  m.file = "measured/H100-2026-11-20.md";
  m.citation = "<gpu-wiki>/measured/H100-2026-11-20.md:L7";
  r.specs.push_back(m);
  SpecEntry unknown;
  unknown.metric = "l2_cache";
  unknown.unknown = true;
  r.specs.push_back(unknown);
  EXPECT_EQ(r.get("hbm_bandwidth")->value, 4310);
  EXPECT_EQ(r.get("hbm_bandwidth", false)->value, 3350);
  EXPECT_FALSE(r.get("l2_cache"));
  EXPECT_FALSE(r.get("fp32"));
}

TEST(Registry, SaveLoadRoundTripAndReadmeSection) {
  test::TempDir dir;
  test::write(dir / "README.md", "# ws\n\n## Hardware Spec\n\nTBD\n\n## Roofline Analysis\n\nkeep me\n");
  Registry r;
  r.platform = "H100 SXM";
  r.specs = {entry("hbm_bandwidth", 3350, false, 32)};
  SpecEntry unknown;
  unknown.metric = "l2_cache";
  unknown.unknown = true;
  unknown.label = "l2_cache: UNKNOWN (gpu-wiki not found)";
  unknown.added_at = "2026-11-20T00:00:00Z";
  r.specs.push_back(unknown);
  Pitfall p;
  p.metric = "l2_cache";
  p.error_message = "l2_cache: UNKNOWN (gpu-wiki not found)";
  r.pitfalls.push_back(p);
  save_registry(dir.path(), r);
  Registry back = load_registry(dir.path());
  ASSERT_EQ(back.specs.size(), 2u);
  EXPECT_EQ(back.specs[0].citation, "<gpu-wiki>/docs/h.md:L32");
  EXPECT_EQ(back.specs[0].line_text, r.specs[0].line_text);
  EXPECT_TRUE(back.specs[1].unknown);
  ASSERT_EQ(back.pitfalls.size(), 1u);
  std::string readme = test::read(dir / "README.md");
  EXPECT_NE(readme.find("- H100 SXM hbm_bandwidth: 3350 GB/s <- <gpu-wiki>/docs/h.md:L32\n"), std::string::npos)
      << readme;
  EXPECT_NE(readme.find("- l2_cache: UNKNOWN (gpu-wiki not found)\n"), std::string::npos);
  EXPECT_NE(readme.find("## Roofline Analysis\n\nkeep me\n"), std::string::npos);
  EXPECT_EQ(readme.find("TBD\n\n## Roofline"), std::string::npos);
}

TEST(Registry, InvalidDocumentsAreRefusedAndNothingIsWritten) {
  test::TempDir dir;
  Registry r;
  SpecEntry bad = entry("hbm_bandwidth", 3350, false, 32);
  bad.line_sha256 = "xyz";
  r.specs = {bad};
  EXPECT_THROW(save_registry(dir.path(), r), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "specs.json"));

  r.specs = {entry("hbm_bandwidth", 3350, false, 32), entry("hbm_bandwidth", 3350, false, 33)};
  EXPECT_THROW(save_registry(dir.path(), r), Error);

  SpecEntry mismatch = entry("hbm_bandwidth", 3350, false, 32);
  mismatch.line = 31;
  r.specs = {mismatch};
  EXPECT_THROW(save_registry(dir.path(), r), Error);

  test::write(dir / "specs.json", "{\"schema_version\": 1, \"platform\": 3}");
  try {
    load_registry(dir.path());
    FAIL() << "expected schema_invalid";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::schema_invalid);
    EXPECT_NE(std::string(e.what()).find("platform"), std::string::npos) << e.what();
  }
  test::write(dir / "specs.json", "{not json");
  EXPECT_THROW(load_registry(dir.path()), Error);

  // An UNKNOWN carrying a value is caught by the schema itself (schemas/specs.schema.json).
  nlohmann::json doc = Registry{};
  doc["specs"] = nlohmann::json::array({{{"metric", "l2_cache"}, {"label", "x"}, {"product", "H100 SXM"},
                                         {"unknown", true}, {"measured", false}, {"added_at", "t"}, {"value", 50}}});
  test::write(dir / "specs.json", doc.dump());
  try {
    load_registry(dir.path());
    FAIL() << "expected schema_invalid";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::schema_invalid) << e.what();
  }
}


// A capacity registered before KB was read as KiB keeps its decimal si_value (228 KB -> 228,000 bytes): the
// workspace still loads; any other si_value of it is still an edit.
TEST(Registry, ACapacityRegisteredWithDecimalPrefixesStillLoads) {
  test::TempDir dir;
  Registry r;
  SpecEntry e = entry("smem_per_sm", 228, false, 46);
  e.unit = "KB";
  e.dimension = "bytes";
  e.line_text = "| Shared Memory per SM | Up to 228 KB (configurable) |";
  for (double si : {233472.0, 228000.0, 230000.0}) {
    e.si_value = si;
    r.specs = {e};
    if (si != 230000.0) {
      save_registry(dir.path(), r);
      EXPECT_EQ(load_registry(dir.path()).specs.size(), 1u) << si;
      continue;
    }
    nlohmann::json doc = nlohmann::json::parse(core::read_file(dir / "specs.json"));
    doc["specs"][0]["si_value"] = si;  // written by hand: save_registry would refuse it
    test::write(dir / "specs.json", doc.dump(2));
    try {
      load_registry(dir.path());
      ADD_FAILURE() << "si_value 230000 accepted";
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find("233472"), std::string::npos) << err.what();
    }
  }
}

TEST(Registry, HandEditedSiValueOrValueTextIsRefusedOnLoad) {
  test::TempDir dir;
  Registry r;
  r.specs = {entry("hbm_bandwidth", 3350, false, 32)};
  save_registry(dir.path(), r);
  EXPECT_EQ(load_registry(dir.path()).specs.size(), 1u);
  for (const char* field : {"si_value", "value_text"}) {
    nlohmann::json doc = nlohmann::json::parse(core::read_file(dir / "specs.json"));
    if (std::string(field) == "si_value") doc["specs"][0]["si_value"] = 1.0e13;  // 44.52 us -> 15 us targets
    else doc["specs"][0]["value_text"] = "9999";
    test::write(dir / "specs.json", doc.dump(2));
    try {
      load_registry(dir.path());
      ADD_FAILURE() << field << " edit accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::schema_invalid);
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
    save_registry(dir.path(), r);
  }
}
}  // namespace
}  // namespace kgo::specs
