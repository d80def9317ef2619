"""kgo's Python harness (correctness gate, timer, environment report); entry: __main__.py
(`python3 tools/kgo_harness <command>`)."""
