"""Linux x86-64: sockets (include/linux/socket.h, include/uapi/linux/in.h, asm-generic/socket.h).

Each constant is declared once, here, with its Linux value (never the host's): the kernel, the
decoders (decode/xlat.py names its sets by these names) and the report import it from here.
"""

AF_UNSPEC = 0
AF_UNIX = 1
AF_INET = 2
AF_INET6 = 10
AF_NETLINK = 16
IPPROTO_IP = 0
IPPROTO_TCP = 6
IPPROTO_UDP = 17
IPPROTO_IPV6 = 41
MSG_PEEK = 0x2
MSG_TRUNC = 0x20
MSG_DONTWAIT = 0x40
MSG_NOSIGNAL = 0x4000
SHUT_RD = 0
SHUT_WR = 1
SHUT_RDWR = 2
SO_REUSEADDR = 2
SO_TYPE = 3
SO_ERROR = 4
SO_SNDBUF = 7
SO_RCVBUF = 8
SO_REUSEPORT = 15
SO_ACCEPTCONN = 30
SO_PROTOCOL = 38
SO_DOMAIN = 39
SOCK_STREAM = 1
SOCK_DGRAM = 2
SOCK_RAW = 3
SOCK_SEQPACKET = 5
SOCK_MAX = 11            # types are below it (linux/net.h), or socket() is EINVAL
SOCK_TYPE_MASK = 0xF
SOCK_NONBLOCK = 0o4000
SOCK_CLOEXEC = 0o2000000
SOL_SOCKET = 1
