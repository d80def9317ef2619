#pragma once
// The partial restart: when no new direction is left and the target is unmet, mask about half of
// the unmasked records (never v0, never the current best), reproducibly from a seed, note the seed
// and the masked list in the latest unmasked record's pitfalls, and commit. Numbering continues.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kgo::iterate {

namespace fs = std::filesystem;

// The records a restart with `seed` masks, from the candidates (ascending versions): a seeded
// Fisher-Yates shuffle (splitmix64, identical on every platform), first ceil(n/2), sorted.
std::vector<int> choose_masked(const std::vector<int>& candidates, std::uint64_t seed);

struct RestartResult {
  std::uint64_t seed = 0;
  std::vector<int> masked;       // masked by this restart
  std::vector<int> kept;         // unmasked after it
  std::optional<int> best;       // the current best (kept)
  int noted_in = 0;              // record whose pitfalls describe the restart
  int next_version = 0;          // the next record number
  std::string commit;
};

// Error(record_error) when nothing can be masked. `seed` defaults to a random one (reported).
RestartResult partial_restart(const fs::path& workspace, std::optional<std::uint64_t> seed, const std::string& reason);

}  // namespace kgo::iterate
