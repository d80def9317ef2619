#pragma once
// Whether a hardware number on a line that holds citations traces to them. It does when it states
// a cited value (after unit conversion: "3350 GB/s" for a cited 3.35 TB/s), or when it is the result
// of one arithmetic step written right after it whose hardware operand is cited, recomputed here
// to the precision it is written with ("2.68 TB/s = 0.8 x 3.35 TB/s <- ...", as `kgo roofline`
// writes its targets). Anything else on such a line (a wrong number beside a valid citation, an
// altered result) does not trace.
#include <string>
#include <vector>

#include "specs/scan.hpp"

namespace kgo::specs {

// A value the line's citations vouch for: a claim written before `<-` (checked against the wiki
// by the audit) or a registered entry for the cited line. `unit` as written; "" for a bare count.
struct CitedValue {
  double value = 0;
  std::string unit;
};

bool traces(const NumberSite& n, const std::vector<CitedValue>& cited);

// The cited values as the report shows them ("3.35 TB/s, 132").
std::string cited_text(const std::vector<CitedValue>& cited);

}  // namespace kgo::specs
