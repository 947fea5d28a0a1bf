"""The sandbox's system-call filter: a small classic-BPF seccomp program, handed to bubblewrap
(``--seccomp FD``) and applied to the bot's first process and everything it starts.

It refuses (``EPERM``) what a bot has no use for and what would undo the sandbox's other parts:

- ``setsid`` and ``setpgid``: a bot's processes stay in the one process group the engine stops
  between its turns and measures (:mod:`.procs`); a child that left it would run on unseen;
- new namespaces: ``unshare``, ``setns``, and ``clone`` with ``CLONE_NEWUSER`` (``clone3``, whose
  flags a filter cannot read, answers ``ENOSYS`` so that the C library falls back to ``clone``):
  no nested user namespace, in either mode of bubblewrap (``--disable-userns`` is also given
  where the engine is not root);
- the kernel's larger attack surfaces that no game needs: ``bpf``, ``perf_event_open``,
  ``userfaultfd``, and the kernel keyring (``keyctl``, ``add_key``, ``request_key``).

A process of another architecture than the engine's (a 32-bit program on x86-64, the x32 ABI)
is killed at its first system call: its numbers are not the ones checked. Architectures other
than x86-64 and AArch64 get no filter (:func:`program` returns None; the docs say so)."""

from __future__ import annotations

import errno
import platform
import struct

# linux/filter.h and linux/seccomp.h
_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_ALLOW, _KILL_PROCESS, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (the low word of args[0]: little-endian)
_X32_BIT = 0x40000000
CLONE_NEWUSER = 0x10000000

# per machine: (AUDIT_ARCH_*, {name: number})
_TABLES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {"setsid": 112, "setpgid": 109, "unshare": 272, "setns": 308, "clone": 56,
                            "clone3": 435, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
                            "perf_event_open": 298, "userfaultfd": 323}),
    "aarch64": (0xC00000B7, {"setsid": 157, "setpgid": 154, "unshare": 97, "setns": 268, "clone": 220,
                             "clone3": 435, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
                             "perf_event_open": 241, "userfaultfd": 282}),
}
REFUSED = ("setsid", "setpgid", "unshare", "setns", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
           "userfaultfd")


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine's architecture (``platform.machine()``), as bubblewrap reads
    it: an array of ``struct sock_filter``. None where there is no table for it."""
    machine = machine or platform.machine()
    table = _TABLES.get(machine)
    if table is None:
        return None
    arch, nr = table
    refused = [nr[name] for name in REFUSED]
    eperm, enosys = _ERRNO | errno.EPERM, _ERRNO | errno.ENOSYS
    # layout: the architecture, x32 (x86-64), one jump per refused call to the EPERM return, then
    # t0 clone3? t1 ENOSYS; t2 clone? t3 load flags t4 NEWUSER? t5 ALLOW t6 EPERM; t7 ALLOW
    ops = [_op(_LD_W_ABS, _ARCH), _op(_JEQ_K, arch, 1, 0), _op(_RET_K, _KILL_PROCESS), _op(_LD_W_ABS, _NR)]
    if machine == "x86_64":
        ops += [_op(_JSET_K, _X32_BIT, 0, 1), _op(_RET_K, _KILL_PROCESS)]
    n = len(refused)
    # each refused number jumps to the EPERM return placed after the clone tests
    for i, number in enumerate(refused):
        ops.append(_op(_JEQ_K, number, n - i + 5, 0))  # to t6
    ops += [_op(_JEQ_K, nr["clone3"], 0, 1), _op(_RET_K, enosys),
            _op(_JEQ_K, nr["clone"], 0, 4), _op(_LD_W_ABS, _ARG0), _op(_JSET_K, CLONE_NEWUSER, 1, 0),
            _op(_RET_K, _ALLOW), _op(_RET_K, eperm), _op(_RET_K, _ALLOW)]
    return b"".join(ops)
