"""strace's -e read=SET / -e write=SET: the data a call read from or wrote to a selected fd, as hex
dump lines after the call's line (strace's dumpio and dumpstr: 16 bytes a line, in two groups of
eight, the offset in at least 5 hex digits, printable ASCII beside; iovec calls dump each buffer
after ' * N bytes in buffer I')."""
from __future__ import annotations

from typing import Optional

from emutrace.decode.strace.common import read_bytes

# call -> (data address argument, length: 'ret' or an argument index) for the plain buffers
_WRITES = {"write": (1, 2), "pwrite64": (1, 2), "sendto": (1, 2), "mq_timedsend": (1, 2)}
_READS = {"read": (1, "ret"), "pread64": (1, "ret"), "recvfrom": (1, "ret"), "mq_timedreceive": (1, "ret")}
_WRITEV = frozenset({"writev", "pwritev", "pwritev2", "vmsplice"})
_READV = frozenset({"readv", "preadv", "preadv2"})
_DUMP_CAP = 1 << 16         # bytes of one buffer dumped at most (strace's DUMPSTR_BUF_MAXSZ pass)


def _selected(sel, fd: int) -> bool:
    if sel is None:
        return False
    if isinstance(sel, tuple):          # ('not', set)
        return fd not in sel[1]
    return fd in sel


def hexdump(data: bytes, total: int) -> str:
    """dumpstr's lines for total bytes of which data are the readable ones."""
    width = 5 if total <= 1 << 20 else 1 + ((total - 1).bit_length() - 1) // 4
    out = []
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        hexes = ""
        for i in range(16):
            hexes += (f"{chunk[i]:02x} " if i < len(chunk) else "   ")
            if i == 7:
                hexes += " "
        text = "".join(chr(c) if 0x20 <= c < 0x7f else "." for c in chunk).ljust(16)
        out.append(f" | {off:0{width}x}  {hexes} {text} |\n")
    return "".join(out)


class IoDumper:
    def __init__(self, read_fds, write_fds):
        self.read_fds = read_fds
        self.write_fds = write_fds

    def dump(self, name: str, args, ret, mem) -> Optional[str]:
        fd = args[0] & 0xFFFFFFFF
        fd = fd - (1 << 32) if fd >= 1 << 31 else fd
        if fd < 0 or ret is None:
            return None
        out = ""
        if _selected(self.write_fds, fd):
            if name in _WRITES:
                addr, n = _WRITES[name]
                out += self._buf(mem, args[addr], args[n])
            elif name in _WRITEV:
                out += self._iov(mem, args[1], args[2], -1)
            elif name == "sendmsg":
                out += self._msg_iov(mem, args[1], -1)
        if -4096 < ret < 0:
            return out or None
        if _selected(self.read_fds, fd):
            if name in _READS:
                out += self._buf(mem, args[1], ret)
            elif name in _READV:
                out += self._iov(mem, args[1], args[2], ret)
            elif name == "recvmsg":
                out += self._msg_iov(mem, args[1], ret)
        return out or None

    def _msg_iov(self, mem, msg: int, size: int) -> str:
        """The iovec of a struct msghdr (msg_iov at 16, msg_iovlen at 24): strace's
        dumpiov_in_msghdr."""
        raw = read_bytes(mem, msg, 32) if msg else None
        if raw is None:
            return ""
        return self._iov(mem, int.from_bytes(raw[16:24], "little"), int.from_bytes(raw[24:32], "little"), size)

    @staticmethod
    def _buf(mem, addr: int, n: int) -> str:
        n = min(n & ((1 << 64) - 1), _DUMP_CAP)
        if n <= 0:
            return ""
        data = read_bytes(mem, addr, n)
        return hexdump(data, n) if data is not None else ""

    def _iov(self, mem, addr: int, count: int, size: int) -> str:
        count = count & 0xFFFFFFFF
        if count > 1024:
            return ""
        raw = read_bytes(mem, addr, 16 * count)
        if raw is None:
            return ""
        left = size if size >= 0 else (1 << 64)
        out = ""
        for i in range(count):
            base = int.from_bytes(raw[16 * i:16 * i + 8], "little")
            n = min(int.from_bytes(raw[16 * i + 8:16 * i + 16], "little"), left)
            if not n:
                break
            left -= n
            out += f" * {n} bytes in buffer {i}\n" + self._buf(mem, base, n)
        return out
