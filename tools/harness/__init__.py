"""kgo's Python harness (correctness gate, timer, environment report); entry: kgo_harness.py."""
