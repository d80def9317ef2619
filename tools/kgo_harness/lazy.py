"""A module imported on its first use instead of at import time: `torch = lazy.module("torch", globals())`.
The first attribute read imports it and puts the real module in the caller's globals under the same name, so
later reads cost nothing. Lets static tables (the op catalog) be read by the supervisor without torch. A process
that snapshots its modules' globals (the cell's tamper guard) calls resolve() first, so that no stand-in is
replaced after its snapshot."""
import importlib

_STANDINS = []


class _Module:
    def __init__(self, name, namespace, alias):
        self._name, self._namespace, self._alias = name, namespace, alias

    def _load(self):
        real = importlib.import_module(self._name)
        if self._namespace.get(self._alias) is self:
            self._namespace[self._alias] = real
        return real

    def __getattr__(self, attr):
        return getattr(self._load(), attr)


def module(name, namespace, alias=None):
    """A stand-in for `import name as alias` in the module whose globals() is `namespace`."""
    standin = _Module(name, namespace, alias or name.split(".")[0])
    _STANDINS.append(standin)
    return standin


def resolve():
    """Imports every stand-in's module now and puts it in place."""
    for standin in _STANDINS:
        standin._load()
