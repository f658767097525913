"""Decoders fixed for strace's own suite, tests a..o (issue 39, fourth round): each line below is
the one strace 7.2's suite expects (tests/NAME.c at the pinned snapshot), decoded from the same
memory by emutrace's formatter. The kernel behaviour those tests probe is checked against Linux's
documented answers in test_strace_suite_ao_kernel.py."""
from __future__ import annotations

import re

import pytest

from test_strace_format import FakeMem, fmt_line

_NAME = "30313233343536373839" * 25          # memfd_create.c: 250 bytes of "0123456789...", no NUL

# (syscall, args, return, memory, options, the line strace 7.2's suite expects)
CASES = [
    # epoll_ctl.c: data as one hex number; EPOLL_CTL_DEL's event is not read
    ("epoll_ctl", (0xffffffff, 1, 0xfffffffe, 0x1000), -9, {0x1000: "01000000" + "ff" * 8}, {},
     "epoll_ctl(-1, EPOLL_CTL_ADD, -2, {events=EPOLLIN, data=0xffffffffffffffff}) = -1 EBADF (Bad file descriptor)"),
    ("epoll_ctl", (0xfffffffd, 2, 0xfffffffc, 0x1000), -9, {0x1000: "01000000" + "ff" * 8}, {},
     "epoll_ctl(-3, EPOLL_CTL_DEL, -4, 0x1000) = -1 EBADF (Bad file descriptor)"),
    # epoll_pwait2.c: timeout and sigmask are read at exit, so a failed call shows their addresses
    ("epoll_pwait2", (0xffffffff, 0x1000, 9, 0x2000, 0x3000, 9), -22, {0x2000: "ff" * 16, 0x3000: "00" * 8}, {},
     "epoll_pwait2(-1, 0x1000, 9, 0x2000, 0x3000, 9) = -1 EINVAL (Invalid argument)"),
    ("epoll_pwait2", (3, 0x1000, 1, 0x2000, 0x3000, 8), 0, {0x2000: "00" * 16, 0x3000: "00" * 8}, {},
     "epoll_pwait2(3, [], 1, {tv_sec=0, tv_nsec=0}, [], 8) = 0"),
    # ioprio.c: the value as an int under -Xraw, the macro in a comment under -Xverbose
    ("ioprio_set", (2, 1000, 8191), -38, {}, {"xlat_style": "raw"},
     "ioprio_set(0x2, 1000, 8191) = -1 ENOSYS (Function not implemented)"),
    ("ioprio_set", (0xfa57beef, 0xdeadbeefda7a1057, 0xfacefeed), -38, {}, {"xlat_style": "verbose"},
     "ioprio_set(0xfa57beef /* IOPRIO_WHO_??? */, -629534633, -87097619 /* IOPRIO_PRIO_VALUE(0x7d677 "
     "/* IOPRIO_CLASS_??? */, 7917) */) = -1 ENOSYS (Function not implemented)"),
    # fsconfig.c: key, value and aux by command
    ("fsconfig", (3, 8, 0x1000, 0x2000, 0xffffff9c), -38, {0x1000: "61626300"}, {},
     "fsconfig(3, FSCONFIG_CMD_CREATE_EXCL, 0x1000, 0x2000, -100) = -1 ENOSYS (Function not implemented)"),
    ("fsconfig", (3, 1, 0x1000, 0x2000, 0), -38, {0x1000: "61626300", 0x2000: "78797a00"}, {},
     'fsconfig(3, FSCONFIG_SET_STRING, "abc", "xyz", 0) = -1 ENOSYS (Function not implemented)'),
    ("fsconfig", (3, 3, 0x1000, 0x2000, 0xffffff9c), -38, {0x1000: "61626300", 0x2000: "2f00"}, {},
     'fsconfig(3, FSCONFIG_SET_PATH, "abc", "/", AT_FDCWD) = -1 ENOSYS (Function not implemented)'),
    ("fsconfig", (3, 2, 0x1000, 0x2000, 2), -38, {0x1000: "61626300", 0x2000: "4142"}, {},
     'fsconfig(3, FSCONFIG_SET_BINARY, "abc", "\\x41\\x42", 2) = -1 ENOSYS (Function not implemented)'),
    # memfd_create.c: a name without its NUL before memory ends, cut at the kernel's limit
    ("memfd_create", (0x1000, 0xfacefeed0000001f), 4, {0x1000: _NAME}, {"string_limit": 256},
     'memfd_create("' + "0123456789" * 25 + '"..., MFD_CLOEXEC|MFD_ALLOW_SEALING|MFD_HUGETLB|MFD_NOEXEC_SEAL|MFD_EXEC) = 4'),
    ("memfd_create", (0x1000, 0), 3, {0x1000: _NAME}, {},
     'memfd_create("' + "0123456789" * 3 + '01"..., 0) = 3'),
    # getxattrat.c: struct xattr_args, the bytes of a bigger one, the value at exit
    ("getxattrat", (0xffffffff, 0x1000, 0, 0x1100, 0x2000, 24), -38,
     {0x1000: "00", 0x1100: "7573657200", 0x2000: "00" * 8 + "01000000" + "04000000" + "9091929394959697"}, {},
     'getxattrat(-1, "", 0, "user", {value=NULL, size=1, flags=0x4 /* XATTR_??? */, /* bytes 16..23 */ '
     '"\\x90\\x91\\x92\\x93\\x94\\x95\\x96\\x97"}, 24) = -1 ENOSYS (Function not implemented)'),
    ("getxattrat", (0xffffffff, 0x1000, 0, 0x1100, 0x2000, 17), -38,
     {0x1000: "00", 0x1100: "7573657200", 0x2000: "0030000000000000" + "20000000" + "00000000"}, {},
     'getxattrat(-1, "", 0, "user", {value=0x3000, size=32, flags=0, ???}, 17) = -1 ENOSYS (Function not implemented)'),
    ("getxattrat", (3, 0, 0x1000, 0x1100, 0x2000, 16), 3,
     {0x1100: "7573657200", 0x2000: "0030000000000000" + "20000000" + "01000000", 0x3000: "76616c00"}, {},
     'getxattrat(3, NULL, AT_EMPTY_PATH, "user", {value="val", size=32, flags=XATTR_CREATE}, 16) = 3'),
    ("getxattrat", (3, 0, 0, 0x1100, 0x2000, 15), -22, {0x1100: "7573657200"}, {},
     'getxattrat(3, NULL, 0, "user", 0x2000, 15) = -1 EINVAL (Invalid argument)'),
    # cachestat-success.c: the struct the call wrote
    ("cachestat", (9, 0, 0x2000, 0), 42, {0x2000: b"".join(v.to_bytes(8, "little") for v in (1, 2, 3, 4, 5))}, {},
     "cachestat(9, NULL, {nr_cache=1, nr_dirty=2, nr_writeback=3, nr_evicted=4, nr_recently_evicted=5}, 0) = 42"),
    # getdents64-v.c: -v lists the entries (linux_dirent64: d_type before d_name)
    ("getdents64", (3, 0x1000, 8192), 48,
     {0x1000: "0100100000000000" "0100000000000000" "1800" "04" "2e00000000"
              "0200010000000000" "0200000000000000" "1800" "04" "2e2e000000"}, {"verbose": True},
     'getdents64(3, [{d_ino=1048577, d_off=1, d_reclen=24, d_type=DT_DIR, d_name="."}, '
     '{d_ino=65538, d_off=2, d_reclen=24, d_type=DT_DIR, d_name=".."}], 8192) = 48'),
    ("getdents", (3, 0x1000, 8192), 24,
     {0x1000: "0100100000000000" "0100000000000000" "1800" "2e00000000" "04"}, {"verbose": True},
     'getdents(3, [{d_ino=1048577, d_off=1, d_reclen=24, d_name=".", d_type=DT_DIR}], 8192) = 24'),
    ("getdents64", (3, 0x1000, 8192), 0, {0x1000: "00"}, {"verbose": True}, "getdents64(3, [], 8192) = 0"),
    ("getdents64", (3, 0x1000, 8192), 24,
     {0x1000: "0100100000000000" "0100000000000000" "1800" "04" "2e00000000"}, {},
     "getdents64(3, 0x1000 /* 1 entries */, 8192) = 24"),
    # mount_setattr.c, open_tree_attr.c: struct mount_attr by its size; userns_fd a descriptor
    # only with MOUNT_ATTR_IDMAP; MOUNT_ATTR__ATIME names the whole atime field
    ("mount_setattr", (0xffffffff, 0x1000, 0, 0x2000, 31), -38, {0x1000: "00"}, {},
     'mount_setattr(-1, "", 0, 0x2000, 31) = -1 ENOSYS (Function not implemented)'),
    ("mount_setattr", (0xffffffff, 0x1000, 0, 0x2000, 40), -38,
     {0x1000: "00", 0x2000: "0000000000000000" "0000000000000000" "0000020000000000" "0900000000000000"
                            "8081828384858687"}, {},
     'mount_setattr(-1, "", 0, {attr_set=0, attr_clr=0, propagation=MS_UNBINDABLE, userns_fd=9, '
     '/* bytes 32..39 */ "\\x80\\x81\\x82\\x83\\x84\\x85\\x86\\x87"}, 40) = -1 ENOSYS (Function not implemented)'),
    ("open_tree_attr", (9, 0x1000, 0x1000, 0x2000, 32), -38,
     {0x1000: "00", 0x2000: "ff00300000000000" "0200000000000000" "0000080000000000" "0100000000000000"},
     {"fd_paths": True, "fd_path": lambda fd: "/dev/full" if fd in (1, 9) else None},
     'open_tree_attr(9</dev/full>, "", AT_EMPTY_PATH, {attr_set=MOUNT_ATTR_RDONLY|MOUNT_ATTR_NOSUID|MOUNT_ATTR_NODEV|'
     'MOUNT_ATTR_NOEXEC|MOUNT_ATTR__ATIME|MOUNT_ATTR_NODIRATIME|MOUNT_ATTR_IDMAP|MOUNT_ATTR_NOSYMFOLLOW, '
     'attr_clr=MOUNT_ATTR_NOSUID, propagation=MS_SLAVE, userns_fd=1</dev/full>}, 32) = -1 ENOSYS (Function not implemented)'),
    ("open_tree", (0xffffffff, 0x1000, 3), -38, {0x1000: "00"}, {},
     'open_tree(-1, "", OPEN_TREE_CLONE|OPEN_TREE_NAMESPACE) = -1 ENOSYS (Function not implemented)'),
    ("fsmount", (0xffffffff, 2, 0x200000), -38, {}, {},
     "fsmount(-1, FSMOUNT_NAMESPACE, MOUNT_ATTR_NOSYMFOLLOW) = -1 ENOSYS (Function not implemented)"),
    ("move_mount", (0xffffffff, 0x1000, 0xffffffff, 0x1000, 0x200), -38, {0x1000: "00"}, {},
     'move_mount(-1, "", -1, "", MOVE_MOUNT_BENEATH) = -1 ENOSYS (Function not implemented)'),
    # openat.c: O_EMPTYPATH; openat2-v-y-Xraw.c: AT_FDCWD's directory follows it in any -X style
    ("openat", (0xffffffff, 0x1000, 0x4000000), -9, {0x1000: "6100"}, {},
     'openat(-1, "a", O_RDONLY|O_EMPTYPATH) = -1 EBADF (Bad file descriptor)'),
    ("openat", (0xffffff9c, 0x1000, 0), -2, {0x1000: "6100"},
     {"fd_paths": True, "fd_path": lambda fd: "/tmp" if fd == -100 else None, "xlat_style": "raw"},
     'openat(-100</tmp>, "a", 0) = -1 ENOENT (No such file or directory)'),
    ("openat", (0xffffff9c, 0x1000, 0), -2, {0x1000: "6100"},
     {"fd_paths": True, "fd_path": lambda fd: "/tmp" if fd == -100 else None, "xlat_style": "verbose"},
     'openat(-100 /* AT_FDCWD */</tmp>, "a", 0 /* O_RDONLY */) = -1 ENOENT (No such file or directory)'),
    # net-packet_mreq.c, net-tpacket_req.c, net-tpacket_stats(-success).c, net-icmp_filter.c
    ("setsockopt", (0xffffffff, 263, 1, 0x1000, 16), -9, {0x1000: "00000000" "ffff" "0700" + "ff" * 8}, {},
     "setsockopt(-1, SOL_PACKET, PACKET_ADD_MEMBERSHIP, {mr_ifindex=0, mr_type=0xffff /* PACKET_MR_??? */, mr_alen=7, "
     "mr_address=ff:ff:ff:ff:ff:ff:ff}, 16) = -1 EBADF (Bad file descriptor)"),
    ("setsockopt", (0xffffffff, 263, 2, 0x1000, 16), -9, {0x1000: "00000000" "0100" "0800" + "ff" * 8}, {"xlat_style": "raw"},
     'setsockopt(-1, 0x107, 0x2, {mr_ifindex=0, mr_type=0x1, mr_alen=8, '
     'mr_address="\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff"}, 16) = -1 EBADF (Bad file descriptor)'),
    ("setsockopt", (0xffffffff, 263, 1, 0x1000, 17), -9, {0x1000: "00" * 17}, {},
     "setsockopt(-1, SOL_PACKET, PACKET_ADD_MEMBERSHIP, 0x1000, 17) = -1 EBADF (Bad file descriptor)"),
    ("setsockopt", (0xffffffff, 263, 5, 0x1000, 16), -9, {0x1000: "ff" * 16}, {},
     "setsockopt(-1, SOL_PACKET, PACKET_RX_RING, {tp_block_size=4294967295, tp_block_nr=4294967295, "
     "tp_frame_size=4294967295, tp_frame_nr=4294967295}, 16) = -1 EBADF (Bad file descriptor)"),
    ("setsockopt", (0xffffffff, 263, 0xffffffff, 0, 0), -9, {}, {},
     "setsockopt(-1, SOL_PACKET, 0xffffffff /* PACKET_??? */, NULL, 0) = -1 EBADF (Bad file descriptor)"),
    ("getsockopt", (0xffffffff, 263, 6, 0x1000, 0x2000), 42, {0x1000: "ff" * 12, 0x2000: "07000000"}, {},
     'getsockopt(-1, SOL_PACKET, PACKET_STATISTICS, {tp_packets=4294967295, tp_drops="\\xff\\xff\\xff"}, [7]) = 42'),
    ("getsockopt", (0xffffffff, 263, 6, 0x1000, 0x2000), 42, {0x1000: "ff" * 12, 0x2000: "00000000"}, {},
     "getsockopt(-1, SOL_PACKET, PACKET_STATISTICS, 0x1000, [0]) = 42"),
    ("setsockopt", (0xffffffff, 255, 1, 0x1000, 4), -9, {0x1000: "39180000"}, {},
     "setsockopt(-1, SOL_RAW, ICMP_FILTER, [ICMP_ECHOREPLY ICMP_DEST_UNREACH ICMP_SOURCE_QUENCH ICMP_REDIRECT "
     "ICMP_TIME_EXCEEDED ICMP_PARAMETERPROB], 4) = -1 EBADF (Bad file descriptor)"),
    ("setsockopt", (0xffffffff, 255, 1, 0x1000, 8), -9, {0x1000: "c6e7ffff00000000"}, {},
     "setsockopt(-1, SOL_RAW, ICMP_FILTER, ~[ICMP_ECHOREPLY ICMP_DEST_UNREACH ICMP_SOURCE_QUENCH ICMP_REDIRECT "
     "ICMP_TIME_EXCEEDED ICMP_PARAMETERPROB], 8) = -1 EBADF (Bad file descriptor)"),
    ("setsockopt", (0xffffffff, 255, 1, 0x1000, 0xfffffffe), -9, {0x1000: "00000000"}, {},
     "setsockopt(-1, SOL_RAW, ICMP_FILTER, 0x1000, -2) = -1 EBADF (Bad file descriptor)"),
    # execveat(-v).c: an argv that stops being readable, an unterminated envp, AT_EXECVE_CHECK
    ("execveat", (0xffffff9c, 0x1000, 0x2000, 0x3000, 0x11100), -14,
     {0x1000: "6100", 0x2000: "0010000000000000" "0010000000000000", 0x3000: "0010000000000000"}, {},
     'execveat(AT_FDCWD, "a", ["a", "a", ... /* 0x2010 */], 0x3000 /* 1 var, unterminated */, '
     'AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH|AT_EXECVE_CHECK) = -1 EFAULT (Bad address)'),
    ("execveat", (0xffffff9c, 0x1000, 0x2000, 0x3000, 0xfffeeeff), -14,
     {0x1000: "6100", 0x2000: "0000000000000000", 0x3000: "0010000000000000" "0000000000000000"},
     {"verbose": True},
     'execveat(AT_FDCWD, "a", [], ["a"], 0xfffeeeff /* AT_??? */) = -1 EFAULT (Bad address)'),
    # getrusage.c with -v: every field
    ("getrusage", (0, 0x1000), 0, {0x1000: "00" * 8 + "83" + "00" * 7 + "00" * 16 + "2428" + "00" * 110}, {"verbose": True},
     "getrusage(RUSAGE_SELF, {ru_utime={tv_sec=0, tv_usec=131}, ru_stime={tv_sec=0, tv_usec=0}, ru_maxrss=10276, "
     "ru_ixrss=0, ru_idrss=0, ru_isrss=0, ru_minflt=0, ru_majflt=0, ru_nswap=0, ru_inblock=0, ru_oublock=0, "
     "ru_msgsnd=0, ru_msgrcv=0, ru_nsignals=0, ru_nvcsw=0, ru_nivcsw=0}) = 0"),
    # mq_sendrecv.c: the name is a path (no -s cut, its address when unreadable); mq_open's
    # mq_flags in hex; a 32-byte sigevent whose signo, not a signal, is unsigned
    ("mq_open", (0x1000, 0xc3, 0xdeadbeef, 0x2000), -14,
     {0x1000: "61" * 40 + "00", 0x2000: "bbbcbdbebfc0c1c2" + "00" * 56}, {},
     'mq_open("' + "a" * 40 + '", O_ACCMODE|O_CREAT|O_EXCL, 0137357, {mq_flags=0xc2c1c0bfbebdbcbb, mq_maxmsg=0, '
     'mq_msgsize=0, mq_curmsgs=0}) = -1 EFAULT (Bad address)'),
    ("mq_unlink", (0x1000,), -14, {0x1000: "61" * 40 + "00"}, {},
     'mq_unlink("' + "a" * 40 + '") = -1 EFAULT (Bad address)'),
    ("mq_notify", (0xdeadf00d, 0x1000), -22,
     {0x1000: "ed0ddcbaefbeadde" "edfecefa" "edacef0d" + "00" * 16}, {},
     "mq_notify(-559026163, {sigev_value={sival_int=-1159983635, sival_ptr=0xdeadbeefbadc0ded}, "
     "sigev_signo=4207869677, sigev_notify=0xdefaced /* SIGEV_??? */}) = -1 EINVAL (Invalid argument)"),
    # landlock_create_ruleset.c, landlock_add_rule.c
    ("landlock_create_ruleset", (0x1000, 8, 0), 7, {0x1000: "0100000000000000"}, {},
     "landlock_create_ruleset({handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE}, 8, 0) = 7"),
    ("landlock_create_ruleset", (0x1000, 56, 0), -38, {0x1000: "0000ca00edeffeff" "0300000000000000" + "00" * 40}, {},
     "landlock_create_ruleset({handled_access_fs=0xfffeefed00ca0000 /* LANDLOCK_ACCESS_FS_??? */, "
     "handled_access_net=LANDLOCK_ACCESS_NET_BIND_TCP|LANDLOCK_ACCESS_NET_CONNECT_TCP, scoped=0, "
     "quiet_access_fs=0, quiet_access_net=0, quiet_scoped=0, ...}, 56, 0) = -1 ENOSYS (Function not implemented)"),
    ("landlock_create_ruleset", (0, 0, 1), 7, {}, {},
     "landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) = 7"),
    ("landlock_add_rule", (0xffffffff, 1, 0x1000, 0), -38, {0x1000: "0100000000000000" "ffffffff"}, {},
     "landlock_add_rule(-1, LANDLOCK_RULE_PATH_BENEATH, {allowed_access=LANDLOCK_ACCESS_FS_EXECUTE, parent_fd=-1}, 0)"
     " = -1 ENOSYS (Function not implemented)"),
    ("landlock_add_rule", (0xffffffff, 2, 0x1000, 0), -38, {0x1000: "0100000000000000" "5000000000000000"}, {},
     "landlock_add_rule(-1, LANDLOCK_RULE_NET_PORT, {allowed_access=LANDLOCK_ACCESS_NET_BIND_TCP, port=80}, 0)"
     " = -1 ENOSYS (Function not implemented)"),
    # fanotify_init.c, fanotify_mark.c: Linux 6.13-6.14's flags in strace's order
    ("fanotify_init", (0x6000, 0), -38, {}, {},
     "fanotify_init(FAN_CLASS_NOTIF|FAN_REPORT_FD_ERROR|FAN_REPORT_MNT, O_RDONLY) = -1 ENOSYS (Function not implemented)"),
    ("fanotify_mark", (3, 0x111, 0x43100000, 0xffffff9c, 0), -38, {}, {},
     "fanotify_mark(3, FAN_MARK_ADD|FAN_MARK_MNTNS, FAN_PRE_ACCESS|FAN_MNT_ATTACH|FAN_MNT_DETACH|FAN_ONDIR, "
     "AT_FDCWD, NULL) = -1 ENOSYS (Function not implemented)"),
    # listmount(-success).c, listns(-success).c
    ("listmount", (0x1000, 0x2000, 3, 1), 2,
     {0x1000: "20000000" "ffffffff" + "ff" * 8 + "0000000000000000" "0100000000000000",
      0x2000: "0100000000000000" "0200000000000000"}, {},
     "listmount({size=32, mnt_ns_fd=-1, mnt_id=LSMT_ROOT, param=0, mnt_ns_id=0x1}, [0x1, 0x2], 3, LISTMOUNT_REVERSE) = 2"),
    ("listmount", (0x1000, 0x2000, 1, 0), -38, {0x1000: "17000000"}, {},
     "listmount({size=23}, 0x2000, 1, 0) = -1 ENOSYS (Function not implemented)"),
    ("listmount", (0, 0x2000, 0, 0), -38, {}, {}, "listmount(NULL, [], 0, 0) = -1 ENOSYS (Function not implemented)"),
    ("listns", (0x1000, 0, 0, 0), -38, {0x1000: "20000000" "00000000"}, {},
     "listns({size=32, ???}, NULL, 0, 0) = -1 ENOSYS (Function not implemented)"),
    ("listns", (0x1000, 0, 0, 0), -38,
     {0x1000: "20000000" "00000000" "0500000000000000" "80000200" "00000000" + "ff" * 8}, {},
     "listns({size=32, ns_id=0x5, ns_type=TIME_NS|MNT_NS, user_ns_id=LISTNS_CURRENT_USER}, NULL, 0, 0)"
     " = -1 ENOSYS (Function not implemented)"),
    # lsm_get_self_attr(-success).c, lsm_set_self_attr.c, lsm_list_modules(-success).c
    ("lsm_get_self_attr", (101, 0x1fe1, 0x3000, 1), -38, {0x1fe1: "00" * 31, 0x3000: "efbeadde"}, {},
     "lsm_get_self_attr(LSM_ATTR_EXEC, 0x1fe1, [3735928559], LSM_FLAG_SINGLE) = -1 ENOSYS (Function not implemented)"),
    ("lsm_get_self_attr", (100, 0x1000, 0x3000, 0), 1,
     {0x1000: "6500000000000000" "0000000000000000" "2200000000000000" "0200000000000000" "6162",
      0x3000: "22000000"}, {},
     'lsm_get_self_attr(LSM_ATTR_CURRENT, [{id=LSM_ID_SELINUX, flags=0, len=34, ctx_len=2, ctx="\\x61\\x62"}], '
     "[34], 0) = 1"),
    ("lsm_set_self_attr", (100, 0x1000, 31, 1), -38, {0x1000: "00" * 32}, {},
     "lsm_set_self_attr(LSM_ATTR_CURRENT, 0x1000, 31, 0x1) = -1 ENOSYS (Function not implemented)"),
    ("lsm_list_modules", (0x1000, 0x3000, 0), 2, {0x1000: "6400000000000000" "ff00000000000000", 0x3000: "10000000"}, {},
     "lsm_list_modules([LSM_ID_CAPABILITY, 0xff /* LSM_ID_??? */], [16], 0) = 2"),
    ("lsm_list_modules", (0x1000, 0x3000, 0xffffffff), -38, {0x3000: "07000000"}, {},
     "lsm_list_modules(0x1000, [7], 0xffffffff) = -1 ENOSYS (Function not implemented)"),
    # move_pages.c (-s3): arrays cut at the limit, the element after it read too; status at exit
    ("move_pages", (1000, 4, 0x1000, 0x2000, 0x3000, 0xfacefeed00000004), -38,
     {0x1000: "0010000000000000" * 3, 0x2000: "22d1adde" "21d1adde" "20d1adde" "1fd1adde"}, {"string_limit": 3},
     "move_pages(1000, 4, [0x1000, 0x1000, 0x1000, ... /* 0x1018 */], [-559034078, -559034079, -559034080, ...], "
     "0x3000, MPOL_MF_MOVE_ALL) = -1 ENOSYS (Function not implemented)"),
    ("move_pages", (1000, 2, 0x1000, 0, 0x3000, 2), 0,
     {0x1000: "0010000000000000" * 2, 0x3000: "00000000" "f2ffffff"}, {},
     "move_pages(1000, 2, [0x1000, 0x1000], NULL, [0, -EFAULT], MPOL_MF_MOVE) = 0"),
    ("move_pages", (1000, 0, 0x1000, 0, 0x3000, 2), -38, {}, {},
     "move_pages(1000, 0, [], NULL, [], MPOL_MF_MOVE) = -1 ENOSYS (Function not implemented)"),
]


@pytest.mark.parametrize("name, args, ret, mem, opts, want", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_decoded_as_strace_suite(name, args, ret, mem, opts, want):
    opts = dict(opts)
    settings = {k: opts.pop(k) for k in ("xlat_style", "verbose") if k in opts}
    from emutrace.decode.strace import SyscallFormatter
    from emutrace.kernel import table
    f = SyscallFormatter(align=0, **opts)
    for k, v in settings.items():
        setattr(f, k, v)
    got = f.format(table.BY_NAME[name], list(args) + [0] * (6 - len(args)), ret, FakeMem(mem))
    assert re.sub(r" +=", " =", got) == want


def test_fsconfig_paths_by_command():
    """-P and fsconfig (strace's pathtrace.c): the path and descriptor named by SET_PATH(_EMPTY)
    and SET_FD count, the filesystem context in the first argument never does."""
    from emutrace.kernel import table
    from emutrace.sysgate import PathSelection
    sel = PathSelection(["/dev/full"])
    paths = {0x2000: "/dev/full"}
    read_path = lambda proc, addr: paths.get(addr)
    fd_path = lambda proc, fd: "/dev/full" if fd == 3 else None
    row = table.BY_NAME["fsconfig"]
    match = lambda *args: sel.matches(None, row, list(args), read_path, fd_path)
    assert not match(3, 0, 0x1000, 0x2000, 0xffffff9c)          # SET_FLAG: fd 3 is the context
    assert match(0xffffffff, 3, 0, 0x2000, 0xffffff9c)           # SET_PATH: the path
    assert match(0xffffffff, 4, 0, 0x3000, 3)                    # SET_PATH_EMPTY: the dirfd
    assert match(0xffffffff, 5, 0, 0x3000, 3)                    # SET_FD: the descriptor
    assert not match(0xffffffff, 5, 0, 0x2000, 4)                # (SET_FD has no path)


def test_membarrier_as_linux():
    """kernel/sched/membarrier.c: QUERY lists every command x86-64 has, private commands need
    their registration (EPERM before), flags other than FLAG_CPU with the rseq command are
    EINVAL, registrations belong to the address space and GET_REGISTRATIONS returns them."""
    from emutrace.kernel import errno as E
    from emutrace.kernel.membarrier import sys_membarrier

    class Space:
        pass

    class Proc:
        def __init__(self, aspace):
            self.aspace = aspace

    mm = Space()
    thread, other = Proc(mm), Proc(Space())
    assert sys_membarrier(thread, 0, 0, 0) == 0x3ff
    assert sys_membarrier(thread, 3, 255, -1) == -E.EINVAL
    assert sys_membarrier(thread, 0, 1, 0) == -E.EINVAL
    assert sys_membarrier(thread, 128, 1, 0xffffffff) == -E.EPERM
    assert sys_membarrier(thread, 8, 0, 0) == -E.EPERM
    assert sys_membarrier(thread, 16, 0, 0) == 0
    assert sys_membarrier(Proc(mm), 8, 0, 0) == 0              # (a thread of the same mm)
    assert sys_membarrier(other, 8, 0, 0) == -E.EPERM
    assert sys_membarrier(thread, 512, 0, 0) == 16
    assert sys_membarrier(thread, 1 << 12, 0, 0) == -E.EINVAL


def test_membarrier_query_decoded_as_strace():
    from emutrace.decode.strace import SyscallFormatter
    from emutrace.kernel import table
    f = SyscallFormatter(align=0)
    got = f.format(table.BY_NAME["membarrier"], [0, 0, 0, 0, 0, 0], 0x3fe, FakeMem({}))
    assert got == ("membarrier(MEMBARRIER_CMD_QUERY, 0) = 0x3fe (MEMBARRIER_CMD_GLOBAL_EXPEDITED|"
                   "MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED|MEMBARRIER_CMD_PRIVATE_EXPEDITED|"
                   "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED|MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE|"
                   "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE|MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ|"
                   "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ|MEMBARRIER_CMD_GET_REGISTRATIONS)")
    assert f.format(table.BY_NAME["membarrier"], [0] * 6, 0, FakeMem({})) == "membarrier(MEMBARRIER_CMD_QUERY, 0) = 0"
