"""The warm judge's memo: results kept across requests under a key that names everything they depend on,
forgetting the oldest past a fixed count so that a long-lived harness stays bounded."""
import collections


class Memo:
    def __init__(self, limit):
        self.limit = limit
        self.entries = collections.OrderedDict()

    def get(self, key, make):
        """The value kept under `key`, else make() kept there."""
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        value = self.entries[key] = make()
        if len(self.entries) > self.limit:
            self.entries.popitem(last=False)
        return value
