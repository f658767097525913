"""TCP's TIME_WAIT on the guest's loopback network.

The side of a connection that sends its FIN first (close or shutdown(SHUT_WR) before the peer's)
keeps the connection's local address for 2*MSL after the connection is gone, 60 s on Linux
(TCP_TIMEWAIT_LEN; an orphaned FIN_WAIT_2 waiting for the peer's FIN lasts tcp_fin_timeout, also
60 s, and the peer's FIN then starts the 60 s again). While it lasts, a bind() that overlaps the
address is EADDRINUSE, unless the new socket and the one that closed both set SO_REUSEADDR (a
listener's accepted connections carry its SO_REUSEADDR), or both set SO_REUSEPORT: Linux's
inet_bind_conflict with a time-wait socket. A reset connection (closed with unread data) leaves
none. Ephemeral ports for bind(0) and listen() pass over ports in TIME_WAIT; a connect() may take
one when no other is free, as Linux's tcp_tw_reuse does on loopback.

The 60 s run on the virtual clock, so the same program sees the same EADDRINUSE on every run, and
one that sleeps out the minute before binding again pays no real time for it.
"""
from __future__ import annotations

from typing import Callable, Dict, List

from emutrace.record import record

TIME_WAIT_NS = 60 * 10**9


@record
class TimeWait:
    ip: bytes                 # the closed connection's local address (16 bytes, v4-mapped or v6)
    port: int
    reuseaddr: bool           # its socket's SO_REUSEADDR / SO_REUSEPORT, as the time-wait socket keeps them
    reuseport: bool
    expires: int              # virtual monotonic ns


class TimeWaits:
    """The loopback network's connections in TIME_WAIT, by local port."""

    def __init__(self, clock: Callable[[], int]):
        self.clock = clock
        self.by_port: Dict[int, List[TimeWait]] = {}

    def start(self, ip: bytes, port: int, reuseaddr: bool, reuseport: bool) -> TimeWait:
        tw = TimeWait(ip, port, reuseaddr, reuseport, self.clock() + TIME_WAIT_NS)
        self.by_port.setdefault(port, []).append(tw)
        return tw

    def restart(self, tw: TimeWait) -> None:
        """The peer's FIN reached an orphaned FIN_WAIT_2: TIME_WAIT proper starts now."""
        tw.expires = max(tw.expires, self.clock() + TIME_WAIT_NS)

    def at(self, port: int) -> List[TimeWait]:
        """The entries of port still waiting (expired ones are dropped here)."""
        entries = self.by_port.get(port)
        if not entries:
            return []
        now = self.clock()
        live = [tw for tw in entries if tw.expires > now]
        if live:
            self.by_port[port] = live
        else:
            del self.by_port[port]
        return live
