"""Options of AF_PACKET sockets (SOL_PACKET) and raw ICMP sockets (SOL_RAW), as strace's net.c
prints them: struct packet_mreq, tpacket_req, tpacket_stats, the ICMP filter's bit set."""
from __future__ import annotations

import struct

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, quote_string, read_bytes

SOL_PACKET, SOL_RAW = 263, 255
PACKET_ADD_MEMBERSHIP, PACKET_DROP_MEMBERSHIP, PACKET_RX_RING, PACKET_STATISTICS = 1, 2, 5, 6
PACKET_TX_RING = 13
ICMP_FILTER = 1
_MR_ADDRESS = 8                      # packet_mreq.mr_address[8]


def _packet_mreq(f, mem, addr: int, length: int) -> str:
    data = read_bytes(mem, addr, 16) if length == 16 else None
    if data is None:
        return hexval(addr)
    ifindex, mr_type, alen = struct.unpack_from("<iHH", data)
    raw = data[8:8 + min(alen, _MR_ADDRESS)]
    mac = ":".join("%02x" % b for b in raw)
    style = _x.STYLE.xlat                 # (PRINT_FIELD_MAC_SZ: the bytes under -Xraw, both under -Xverbose)
    if style != "abbrev":
        hexed = quote_string(raw, force_hex=True)
        mac = hexed if style == "raw" else f"{hexed} /* {mac} */"
    return (f"{{mr_ifindex={ifindex}, mr_type={_x.format_enum('packet_mreq_type', mr_type)}, "
            f"mr_alen={alen}, mr_address={mac}}}")


def _tpacket_req(f, mem, addr: int, length: int) -> str:
    data = read_bytes(mem, addr, 16) if length == 16 else None
    if data is None:
        return hexval(addr)
    names = ("tp_block_size", "tp_block_nr", "tp_frame_size", "tp_frame_nr")
    return "{" + ", ".join(f"{n}={v}" for n, v in zip(names, struct.unpack("<4I", data))) + "}"


def _tpacket_stats(f, mem, addr: int, length: int) -> str:
    """As many fields as the length holds; a field cut short as its bytes."""
    length = min(length, 12)
    data = read_bytes(mem, addr, length)
    if data is None or length <= 0:
        return hexval(addr)
    parts = []
    for k, name in enumerate(("tp_packets", "tp_drops", "tp_freeze_q_cnt")):
        chunk = data[4 * k:4 * k + 4]
        if len(chunk) == 4:
            parts.append(f"{name}={int.from_bytes(chunk, 'little')}")
        elif chunk:
            parts.append(f"{name}={quote_string(chunk, force_hex=True)}")
    return "{" + ", ".join(parts) + "}"


def _icmp_filter(f, mem, addr: int, length: int) -> str:
    """The ICMP types in the filter; more than half set is shown as ~[the others]."""
    if length <= 0:
        return hexval(addr)
    length = min(length, 4)
    data = read_bytes(mem, addr, length)
    if data is None:
        return hexval(addr)
    bits = int.from_bytes(data + b"\xff" * (4 - length), "little")   # (strace starts from ~0)
    neg = bin(bits).count("1") > 16
    if neg:
        bits ^= 0xffffffff
    names = [_x.lookup("icmp_filter_flags", i) or str(i) for i in range(32) if bits >> i & 1]
    return ("~" if neg else "") + "[" + " ".join(names) + "]"


# (level, name) -> fn(formatter, memory, address, length): what setsockopt was given
SET_VALUES = {(SOL_PACKET, PACKET_ADD_MEMBERSHIP): _packet_mreq, (SOL_PACKET, PACKET_DROP_MEMBERSHIP): _packet_mreq,
              (SOL_PACKET, PACKET_RX_RING): _tpacket_req, (SOL_PACKET, PACKET_TX_RING): _tpacket_req,
              (SOL_RAW, ICMP_FILTER): _icmp_filter}
# (level, name) -> fn(formatter, memory, address, length): what getsockopt returned
GOT_VALUES = {(SOL_PACKET, PACKET_STATISTICS): _tpacket_stats, (SOL_RAW, ICMP_FILTER): _icmp_filter}
