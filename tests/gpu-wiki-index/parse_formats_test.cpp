// The readers beside markdown tables with outer pipes: tables without them, product names in any
// column, device-query tool dumps (deviceQuery, nvidia-smi -q, rocminfo), YAML spec files and
// JSON in other schemas. The dumps are modelled on the tools' own output.
#include <gtest/gtest.h>

#include "gpu-wiki-index/parse.hpp"
#include "gpu-wiki-index/parse_common.hpp"

namespace kgo::wiki {
namespace {

std::vector<Fact> with(const FileIndex& f, const std::string& product, const std::string& metric) {
  std::vector<Fact> out;
  for (const auto& x : f.facts) {
    if (x.product == product && x.metric == metric) out.push_back(x);
  }
  return out;
}

Fact one(const FileIndex& f, const std::string& product, const std::string& metric) {
  auto v = with(f, product, metric);
  EXPECT_EQ(v.size(), 1u) << product << " " << metric;
  return v.empty() ? Fact{} : v.front();
}

bool declares(const FileIndex& f, const std::string& product) {
  for (const auto& p : f.products) {
    if (p.name == product) return true;
  }
  return false;
}

const char* kDeviceQuery = R"(./deviceQuery Starting...

 CUDA Device Query (Runtime API) version (CUDART static linking)

Detected 1 CUDA Capable device(s)

Device 0: "NVIDIA H100 80GB HBM3"
  CUDA Driver Version / Runtime Version          12.4 / 12.4
  CUDA Capability Major/Minor version number:    9.0
  Total amount of global memory:                 80995 MBytes (84929216512 bytes)
  (132) Multiprocessors, (128) CUDA Cores/MP:    16896 CUDA Cores
  GPU Max Clock rate:                            1980 MHz (1.98 GHz)
  Memory Clock rate:                             2619 Mhz
  Memory Bus Width:                              5120-bit
  L2 Cache Size:                                 52428800 bytes
  Maximum Texture Dimension Size (x,y,z)         1D=(131072), 2D=(131072, 65536), 3D=(16384, 16384, 16384)
  Maximum Layered 1D Texture Size, (num) layers  1D=(32768), 2048 layers
  Total amount of constant memory:               65536 bytes
  Total amount of shared memory per block:       49152 bytes
  Total shared memory per multiprocessor:        233472 bytes
  Total number of registers available per block: 65536
  Warp size:                                     32
  Maximum number of threads per multiprocessor:  2048
  Maximum number of threads per block:           1024
  Max dimension size of a thread block (x,y,z): (1024, 1024, 64)
  Max dimension size of a grid size    (x,y,z): (2147483647, 65535, 65535)
  Maximum memory pitch:                          2147483647 bytes
  Texture alignment:                             512 bytes
  Concurrent copy and kernel execution:          Yes with 3 copy engine(s)
  Device has ECC support:                        Enabled
  Device PCI Domain ID / Bus ID / location ID:   0 / 24 / 0
  Compute Mode:
     < Default (multiple host threads can use ::cudaSetDevice() with device simultaneously) >

deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.4, CUDA Runtime Version = 12.4, NumDevs = 1
Result = PASS
)";

const char* kNvidiaSmi = R"(
==============NVSMI LOG==============

Timestamp                                 : Mon Nov 23 15:00:00 2026
Driver Version                            : 550.54.15
CUDA Version                              : 12.4

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Product Brand                         : NVIDIA
    Product Architecture                  : Hopper
    Display Mode                          : Enabled
    Persistence Mode                      : Enabled
    FB Memory Usage
        Total                             : 81559 MiB
        Reserved                          : 328 MiB
        Used                              : 0 MiB
        Free                              : 81231 MiB
    BAR1 Memory Usage
        Total                             : 131072 MiB
        Used                              : 1 MiB
        Free                              : 131071 MiB
    GPU Power Readings
        Power Draw                        : 69.88 W
        Current Power Limit               : 700.00 W
        Default Power Limit               : 700.00 W
        Max Power Limit                   : 700.00 W
    Clocks
        Graphics                          : 345 MHz
        SM                                : 345 MHz
        Memory                            : 2619 MHz
        Video                             : 765 MHz
    Max Clocks
        Graphics                          : 1980 MHz
        SM                                : 1980 MHz
        Memory                            : 2619 MHz
        Video                             : 1545 MHz
)";

const char* kRocminfo = R"(ROCk module version 6.7.0 is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.14
System Timestamp Freq.:  1000.000000MHz
Machine Model:           LARGE

==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD EPYC 9654 96-Core Processor
  Marketing Name:          AMD EPYC 9654 96-Core Processor
  Vendor Name:             CPU
  Device Type:             CPU
  Cache Info:
    L1:                      32768(0x8000) KB
  Max Clock Freq. (MHz):   3707
  Compute Unit:            192
*******
Agent 3
*******
  Name:                    gfx942
  Uuid:                    GPU-1f2e3d4c5b6a7980
  Marketing Name:          AMD Instinct MI300X
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  Queue Max Size:          131072(0x20000)
  Device Type:             GPU
  Cache Info:
    L1:                      32(0x20) KB
    L2:                      4096(0x1000) KB
    L3:                      262144(0x40000) KB
  Chip ID:                 29857(0x74a1)
  Cacheline Size:          128(0x80)
  Max Clock Freq. (MHz):   2100
  Compute Unit:            304
  SIMDs per CU:            4
  Wavefront Size:          64(0x40)
  Workgroup Max Size:      1024(0x400)
  Max Waves Per CU:        32(0x20)
  Max Work-item Per CU:    2048(0x800)
  Pool Info:
    Pool 1
      Segment:                 GLOBAL; FLAGS: COARSE GRAINED
      Size:                    201310208(0xbffc000) KB
)";

TEST(ParseFormats, TablesWithoutOuterPipes) {
  auto f = parse_markdown("specs/h100.md",
                          "## NVIDIA H100 SXM (sm_90, Hopper)\n\n"
                          "Metric | Value\n"
                          "---|---\n"
                          "HBM bandwidth | 3.35 TB/s\n"
                          "L2 cache | 50 MB\n"
                          "\n"
                          "Text after the table | with a pipe is prose, not a row of it\n");
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "hbm_bandwidth").value, 3.35);
  EXPECT_EQ(one(f, "H100 SXM", "hbm_bandwidth").line, 5);
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "l2_cache").value, 50);
  EXPECT_EQ(f.facts.size(), 2u);
  auto cols = parse_markdown("specs/cmp.md",
                             "# Comparison specifications\n\n"
                             "Metric | H100 SXM | H200\n"
                             ":--|--:|--:\n"
                             "HBM bandwidth (TB/s) | 3.35 | 4.8\n");
  EXPECT_DOUBLE_EQ(one(cols, "H200", "hbm_bandwidth").value, 4.8);
  EXPECT_DOUBLE_EQ(one(cols, "H100 SXM", "hbm_bandwidth").value, 3.35);
  // A line with a pipe but no separator under it is no table.
  auto prose = parse_markdown("specs/p.md", "## NVIDIA H100 SXM (sm_90, Hopper)\nsee a | b\nHBM bandwidth | 3.35 TB/s\n");
  EXPECT_TRUE(prose.facts.empty());
}

TEST(ParseFormats, ProductNamesInAnyColumn) {
  auto f = parse_markdown("specs/gpus.md",
                          "# Data-center GPU specifications\n\n"
                          "| Vendor | Card | HBM bandwidth (TB/s) | L2 cache (MB) |\n"
                          "|---|---|---|---|\n"
                          "| NVIDIA | H100 SXM | 3.35 | 50 |\n"
                          "| AMD | MI300X | 5.3 | 256 |\n");
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "hbm_bandwidth").value, 3.35);
  EXPECT_DOUBLE_EQ(one(f, "MI300X", "hbm_bandwidth").value, 5.3);
  EXPECT_EQ(one(f, "MI300X", "l2_cache").line, 6);
  EXPECT_TRUE(declares(f, "H100 SXM") && declares(f, "MI300X"));
  // The vendor column is no product column, and no fact names a vendor.
  for (const auto& x : f.facts) EXPECT_TRUE(x.product == "H100 SXM" || x.product == "MI300X") << x.product;
}

TEST(ParseFormats, DeviceQueryDump) {
  EXPECT_EQ(detect_dump(kDeviceQuery), DumpTool::device_query);
  auto f = parse_file("dumps/h100-devicequery.txt", kDeviceQuery);
  const std::string p = "H100 80GB HBM3";  // the name the driver reports
  EXPECT_TRUE(declares(f, p));
  EXPECT_DOUBLE_EQ(one(f, p, "sm_count").value, 132);
  EXPECT_EQ(one(f, p, "sm_count").line, 11);
  EXPECT_DOUBLE_EQ(one(f, p, "cuda_cores").value, 16896);
  EXPECT_DOUBLE_EQ(one(f, p, "boost_clock").value, 1980);
  EXPECT_EQ(one(f, p, "boost_clock").unit, "MHz");
  EXPECT_DOUBLE_EQ(one(f, p, "l2_cache").value, 52428800);
  EXPECT_EQ(one(f, p, "l2_cache").unit, "B");
  EXPECT_DOUBLE_EQ(one(f, p, "smem_per_sm").value, 233472);
  EXPECT_DOUBLE_EQ(one(f, p, "threads_per_sm").value, 2048);
  EXPECT_DOUBLE_EQ(one(f, p, "warp_size").value, 32);
  // Per-block limits, CUDA's allocatable global memory and the memory clock are not product specs.
  EXPECT_TRUE(with(f, p, "memory_capacity").empty());
  EXPECT_TRUE(with(f, p, "registers_per_sm").empty());
  EXPECT_EQ(f.facts.size(), 7u);
  EXPECT_TRUE(f.issues.empty());
}

TEST(ParseFormats, NvidiaSmiQueryDump) {
  EXPECT_EQ(detect_dump(kNvidiaSmi), DumpTool::nvidia_smi);
  auto f = parse_file("dumps/nvidia-smi-q.log", kNvidiaSmi);
  const std::string p = "H100 80GB HBM3";
  // The section decides: "Max Clocks / SM", not the current "Clocks / SM"; "FB Memory Usage /
  // Total", not BAR1's; power readings are settings and draws, not a TDP.
  EXPECT_DOUBLE_EQ(one(f, p, "boost_clock").value, 1980);
  EXPECT_EQ(one(f, p, "boost_clock").label, "Max Clocks / SM");
  EXPECT_DOUBLE_EQ(one(f, p, "memory_capacity").value, 81559);
  EXPECT_EQ(one(f, p, "memory_capacity").unit, "MiB");
  EXPECT_TRUE(with(f, p, "tdp").empty());
  EXPECT_EQ(f.facts.size(), 2u);
}

TEST(ParseFormats, RocminfoDump) {
  EXPECT_EQ(detect_dump(kRocminfo), DumpTool::rocminfo);
  auto f = parse_file("dumps/rocminfo.txt", kRocminfo);
  ASSERT_EQ(f.products.size(), 1u);  // the CPU agent is no product
  const std::string p = "MI300X";
  EXPECT_DOUBLE_EQ(one(f, p, "sm_count").value, 304);
  EXPECT_DOUBLE_EQ(one(f, p, "boost_clock").value, 2100);
  EXPECT_DOUBLE_EQ(one(f, p, "warp_size").value, 64);
  EXPECT_DOUBLE_EQ(one(f, p, "warps_per_sm").value, 32);
  EXPECT_DOUBLE_EQ(one(f, p, "l1_cache").value, 32);
  EXPECT_EQ(one(f, p, "l1_cache").unit, "KiB");  // rocminfo's KB are 1,024 bytes
  EXPECT_DOUBLE_EQ(one(f, p, "infinity_cache").value, 262144);
  EXPECT_TRUE(with(f, p, "l2_cache").empty());  // one die's L2 of eight
  EXPECT_EQ(f.facts.size(), 6u);
}

TEST(ParseFormats, TextThatIsNoDumpStatesNothing) {
  EXPECT_EQ(detect_dump("Notes: the H100 has 132 SMs and 3.35 TB/s\n"), DumpTool::none);
  auto f = parse_file("notes.txt", "Device 0: \"NVIDIA H100\"\nL2 Cache Size: 52428800 bytes\n");
  EXPECT_TRUE(f.facts.empty());
  EXPECT_TRUE(f.products.empty());
}

TEST(ParseFormats, YamlSpecFile) {
  auto f = parse_file("specs/gpus.yaml",
                      "# vendor datasheets\n"
                      "gpus:\n"
                      "  - name: NVIDIA H100 SXM\n"
                      "    arch: Hopper\n"
                      "    memory:\n"
                      "      capacity_gb: 80\n"
                      "      bandwidth_tbps: 3.35   # HBM3\n"
                      "    peak_tflops:\n"
                      "      bf16_tensor: 989.4\n"
                      "    l2_cache: {value: 50, unit: MB}\n"
                      "  - name: 'AMD Instinct MI300X'\n"
                      "    memory: {capacity_gb: 192, bandwidth: \"5.3 TB/s\"}\n"
                      "    compute_units: 304\n"
                      "    notes: |\n"
                      "      peak 2.6 PFLOPS sparse\n");
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "hbm_bandwidth").value, 3.35);
  EXPECT_EQ(one(f, "H100 SXM", "hbm_bandwidth").unit, "TB/s");
  EXPECT_EQ(one(f, "H100 SXM", "hbm_bandwidth").line, 7);
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "memory_capacity").value, 80);
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "bf16_tensor").value, 989.4);
  EXPECT_EQ(one(f, "H100 SXM", "bf16_tensor").unit, "TFLOPS");
  EXPECT_DOUBLE_EQ(one(f, "H100 SXM", "l2_cache").value, 50);
  EXPECT_DOUBLE_EQ(one(f, "MI300X", "hbm_bandwidth").value, 5.3);
  EXPECT_EQ(one(f, "MI300X", "hbm_bandwidth").line, 12);
  EXPECT_DOUBLE_EQ(one(f, "MI300X", "sm_count").value, 304);
  EXPECT_TRUE(declares(f, "H100 SXM"));
  ASSERT_FALSE(f.products.empty());
  EXPECT_EQ(f.products[0].arch, "Hopper");
  EXPECT_EQ(f.facts.size(), 7u);
  EXPECT_EQ(f.facts[0].kind, "datasheet");
}

TEST(ParseFormats, YamlThatIsNoSpecSheet) {
  // Kernel results name a GPU but state a kernel's figures.
  auto k = parse_file("results/softmax.yaml", "runs:\n  - gpu: H100 SXM\n    kernel: softmax\n    bandwidth_gbps: 3000\n");
  EXPECT_TRUE(k.facts.empty());
  // A tool's configuration tree (modelled on a profiler's per-series file): no product, no facts.
  auto cfg = parse_file("tools/mi_gpu.yaml",
                        "mi_gpu_spec:\n  - gpu_series: mi300\n    gpu_archs:\n      - gpu_arch: gfx942\n"
                        "        perfmon_config:\n          SQ: 8\n          TCC: 4\n        models:\n"
                        "          - gpu_model: mi300x_a1\n            chip_ids:\n              physical: 29857\n");
  EXPECT_TRUE(cfg.facts.empty());
  EXPECT_TRUE(cfg.products.empty());
  EXPECT_TRUE(cfg.issues.empty());
  // Notes restate products: they name them as notes (a spec sheet's SKU wins) and their facts are notes.
  auto notes = parse_file("notes/h100.yml", "gpu: H100 SXM\nhbm_bandwidth_tbps: 3.35\n");
  ASSERT_EQ(notes.products.size(), 1u);
  EXPECT_TRUE(notes.products[0].notes);
  ASSERT_EQ(notes.facts.size(), 1u);
  EXPECT_EQ(notes.facts[0].kind, "notes");
  // What the reader cannot read is reported with its line, never guessed at.
  auto bad = parse_file("specs/bad.yaml", "base: &b\n  sm_count: 132\nh100:\n  <<: *b\n");
  EXPECT_TRUE(bad.facts.empty());
  ASSERT_EQ(bad.issues.size(), 1u);
  EXPECT_NE(bad.issues[0].message.find("anchors"), std::string::npos) << bad.issues[0].message;
}

TEST(ParseFormats, JsonInAnotherSchema) {
  auto f = parse_file("specs/gpus.json",
                      "{\n  \"devices\": {\n    \"H200\": {\n      \"memory_bandwidth_tbps\": 4.8,\n"
                      "      \"memory\": {\"capacity\": {\"value\": 141, \"unit\": \"GB\"}}\n    }\n  }\n}\n");
  EXPECT_DOUBLE_EQ(one(f, "H200", "hbm_bandwidth").value, 4.8);
  EXPECT_EQ(one(f, "H200", "hbm_bandwidth").line, 4);
  EXPECT_DOUBLE_EQ(one(f, "H200", "memory_capacity").value, 141);
  EXPECT_TRUE(declares(f, "H200"));
}

}  // namespace
}  // namespace kgo::wiki

namespace kgo::wiki {
namespace {

// The model-token reader behind "a line naming another product is not credited to the section's".
TEST(NamesOtherProduct, ModelTokens) {
  EXPECT_TRUE(names_other_product("MI300X L1 cache: 32 KB", "H100 SXM"));
  EXPECT_TRUE(names_other_product("CUDA cores: 14,592 (H100 PCIe)", "H100 SXM"));
  EXPECT_TRUE(names_other_product("vs the RTX 4090", "H100 SXM"));
  EXPECT_TRUE(names_other_product("RTX PRO 6000 has 96 GB", "RTX 5090"));
  EXPECT_TRUE(names_other_product("H200/B200 figures", "H100 SXM"));
  EXPECT_FALSE(names_other_product("H100 SXM HBM bandwidth 3.35 TB/s", "H100 SXM"));
  EXPECT_FALSE(names_other_product("HBM3E, FP8, BF16, SM90, 8192 x 4096, GDDR7, H100s", "H100 SXM"));
  EXPECT_FALSE(names_other_product("sm_90 and gfx942 targets, 3350 GB/s", "MI300X"));
  EXPECT_FALSE(names_other_product("RTX 4090 boost clock", "RTX 4090"));
}

}  // namespace
}  // namespace kgo::wiki
