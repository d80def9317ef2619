"""Landlock (Linux 5.13+, unprivileged): the kernel's cell restricts itself before any kernel code runs. Files may
be read only beneath `read` and written only beneath `write`; from ABI 4 no TCP bind or connect; from ABI 6 no
signal to, and no abstract Unix socket of, a process outside the cell. Landlock also denies access to processes
outside the cell's domain (ptrace, /proc/<pid>/fd, /proc/<pid>/mem). Standard library only (ctypes)."""
import ctypes
import os

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446   # the same numbers on every architecture
_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM, REFER, TRUNCATE = 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14
READ = EXECUTE | READ_FILE | READ_DIR
WRITE = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_SYM
         | REFER | TRUNCATE)
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE   # the rights a rule on a non-directory may carry
_NET_BIND_TCP, _NET_CONNECT_TCP = 1, 2
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2


class Unavailable(OSError):
    """Landlock cannot be used here (kernel too old, disabled, or a rule failed)."""


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi():
    """The Landlock ABI version the running kernel offers, 0 where it offers none."""
    try:
        v = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(v), 0)


def _handled_fs(version):
    rights = READ | WRITE | MAKE_CHAR | MAKE_BLOCK
    if version < 2:
        rights &= ~REFER
    if version < 3:
        rights &= ~TRUNCATE
    return rights


def restrict(read, write):
    """Restricts this thread (and what it starts from now on) for good: read and execute only beneath the paths
    of `read`, also write beneath those of `write` (devices: opening them read-write). Paths that do not exist
    are skipped. Returns the ABI used; raises Unavailable where Landlock cannot be applied."""
    version = abi()
    if version < 1:
        raise Unavailable("Landlock is not available in this kernel")
    libc = _libc()
    handled = _handled_fs(version)
    attr = _Ruleset(handled, (_NET_BIND_TCP | _NET_CONNECT_TCP) if version >= 4 else 0,
                    (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if version >= 6 else 0)
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    fd = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise Unavailable(f"landlock_create_ruleset failed: {os.strerror(ctypes.get_errno())}")
    try:
        rules = {}
        for path in read:
            rules[path] = rules.get(path, 0) | READ
        for path in write:
            rules[path] = rules.get(path, 0) | READ | WRITE
        for path, rights in rules.items():
            _add(libc, fd, path, rights & handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise Unavailable(f"PR_SET_NO_NEW_PRIVS failed: {os.strerror(ctypes.get_errno())}")
        if libc.syscall(_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            raise Unavailable(f"landlock_restrict_self failed: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)
    return version


def _add(libc, ruleset_fd, path, rights):
    try:
        pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_ONLY
        rule = _PathBeneath(rights, pfd)
        if libc.syscall(_ADD_RULE, ctypes.c_int(ruleset_fd), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                        ctypes.c_uint32(0)) != 0:
            raise Unavailable(f"landlock_add_rule({path}) failed: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(pfd)
