"""memo.Memo: the warm judge's bounded memo."""
# ctest-cost: 1
from kgo_harness import memo


def test_memo_keeps_values_and_forgets_the_least_recently_used_past_its_limit():
    m, made = memo.Memo(2), []

    def make(v):
        return lambda: made.append(v) or v
    assert m.get("a", make(1)) == 1 and m.get("a", make(99)) == 1   # kept: made once
    m.get("b", make(2))
    m.get("a", make(99))                                               # "a" used: "b" is now the oldest
    m.get("c", make(3))                                                # past the limit: "b" forgotten
    assert list(m.entries) == ["a", "c"]
    assert m.get("b", make(4)) == 4                                    # made again; "a" is forgotten now
    assert m.get("a", make(5)) == 5
    assert made == [1, 2, 3, 4, 5] and list(m.entries) == ["b", "a"]
