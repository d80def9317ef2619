// The op catalog's table, one file per op family; catalog.cpp joins them and answers lookups.
#pragma once

#include <vector>

#include "roofline/catalog.hpp"
#include "roofline/op_work.hpp"

namespace kgo::roofline::detail {

struct Entry {
  OpInfo info;
  work::WorkFn work;
};

std::vector<Entry> pointwise_entries();
std::vector<Entry> rows_entries();
std::vector<Entry> spatial_entries();

}  // namespace kgo::roofline::detail
