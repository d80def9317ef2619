#pragma once
// How people write product names. One alias table (vendor words, families, form factors, memory
// sizes and types, dies, marketing names) reads any spelling ("H100-SXM5-80GB", "NVIDIA H100 80GB
// HBM3", "GeForce RTX4090", "Instinct MI300X", "H100 GPU accelerator (SXM card)") into the parts
// that identify a SKU, so two spellings of one SKU compare equal and two SKUs never do.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kgo::wiki {

struct ProductName {
  std::string model;                // "H100", "MI300X", "RTX 4090", "RTX PRO 6000"; "" for a die
  std::vector<std::string> models;  // a die's products ("GH100" -> H100, H800); {model} otherwise
  std::string form;                 // "SXM", "PCIE", "NVL", "OAM" or ""
  int memory_gb = 0;                // 0 when not stated
  std::string memory_type;          // "HBM3", "HBM3E", "GDDR6X", ... or ""
  std::vector<std::string> editions;  // other words that name a SKU ("WORKSTATION", "TI", "MAX-Q")
};

// The parts of a product name, or nullopt when it names no model of a vendor family (a metric,
// a number format such as MXFP4 or NVFP4, a benchmark such as AIME25, a sentence).
std::optional<ProductName> read_product_name(std::string_view name);

// True when `token` is a model of a known vendor family: NVIDIA A/B/H/L/T/V/P/K + digits, GH/GB
// superchips, (GeForce) RTX/GTX, Quadro RTX, RTX PRO, AMD Instinct MI, Radeon RX, Intel Gaudi.
bool vendor_family_model(std::string_view token);

// True for a number format or element type ("MXFP4", "NVFP4", "FP8", "E4M3", "UE8M0", "INT4").
bool number_format(std::string_view name);

// How a name the user wrote fits a product the wiki defines: none (another model, or a part both
// state differently), partial (the wiki's name leaves out a form factor or edition the user
// stated, so it may be another SKU), or full (every form factor and edition the user stated, the
// wiki's name states the same way; memory only has to agree where both state it).
enum class NameFit { none, partial, full };
NameFit fit(const ProductName& wanted, const ProductName& defined);

// "H100 SXM 80GB" style text of the parts, for messages.
std::string describe(const ProductName& n);

}  // namespace kgo::wiki
