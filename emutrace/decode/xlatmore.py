"""Constants strace names that arrived with the fourth round of its suite (issue 39), by subject
as emutrace.decode.xlatsets (which is full): socket options of AF_PACKET and raw ICMP sockets.
Declared with _F / _E into emutrace.decode.xlatcore's SETS, as there."""
from __future__ import annotations

from emutrace.decode.xlatcore import _E, _F

# AF_PACKET and raw ICMP socket options (strace's sock_packet_options, sock_raw_options)
_E("sockopt_packet", "PACKET_???", """
    PACKET_ADD_MEMBERSHIP=1 PACKET_DROP_MEMBERSHIP=2 PACKET_RECV_OUTPUT=3 PACKET_RX_RING=5
    PACKET_STATISTICS=6 PACKET_COPY_THRESH=7 PACKET_AUXDATA=8 PACKET_ORIGDEV=9 PACKET_VERSION=10
    PACKET_HDRLEN=11 PACKET_RESERVE=12 PACKET_TX_RING=13 PACKET_LOSS=14 PACKET_VNET_HDR=15
    PACKET_TX_TIMESTAMP=16 PACKET_TIMESTAMP=17 PACKET_FANOUT=18 PACKET_TX_HAS_OFF=19
    PACKET_QDISC_BYPASS=20 PACKET_ROLLOVER_STATS=21 PACKET_FANOUT_DATA=22 PACKET_IGNORE_OUTGOING=23
    PACKET_VNET_HDR_SZ=24""")
_E("sockopt_raw", "RAW_???", "ICMP_FILTER=1")
_E("packet_mreq_type", "PACKET_MR_???", "PACKET_MR_MULTICAST=0 PACKET_MR_PROMISC PACKET_MR_ALLMULTI PACKET_MR_UNICAST")
_E("icmp_filter_flags", None, """
    ICMP_ECHOREPLY=0 ICMP_DEST_UNREACH=3 ICMP_SOURCE_QUENCH=4 ICMP_REDIRECT=5 ICMP_ECHO=8
    ICMP_TIME_EXCEEDED=11 ICMP_PARAMETERPROB=12 ICMP_TIMESTAMP=13 ICMP_TIMESTAMPREPLY=14
    ICMP_INFO_REQUEST=15 ICMP_INFO_REPLY=16 ICMP_ADDRESS=17 ICMP_ADDRESSREPLY=18""")

# execveat's flags (strace's execveat_flags): AT_EXECVE_CHECK is Linux 6.14's
_F("execveat_flags", "AT_???", "AT_SYMLINK_NOFOLLOW AT_EMPTY_PATH AT_EXECVE_CHECK=0x10000")
