"""set_mempolicy(2) on the emulated machine: one NUMA node (node 0), so every valid policy places
memory alike and none needs to be kept; the arguments are checked as Linux checks them
(mm/mempolicy.c: the mode and its flags, get_nodes' bounds and the bits past MAX_NUMNODES,
then mpol_new's rules for empty and non-empty node sets, and the nodes that exist).
"""
from __future__ import annotations

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.linux.mman import (MPOL_BIND, MPOL_DEFAULT, MPOL_F_NUMA_BALANCING, MPOL_F_RELATIVE_NODES,
                                 MPOL_F_STATIC_NODES, MPOL_LOCAL, MPOL_MAX, MPOL_PREFERRED, MPOL_PREFERRED_MANY)

_MODE_FLAGS = MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING
_MAX_NUMNODES = 1024            # CONFIG_NODES_SHIFT=10, as distribution kernels build it
_PAGE_BITS = 4096 * 8
_ONLINE = 1                     # node 0


def _get_nodes(proc, nmask: int, maxnode: int):
    """The node bits asked for (an int), or an errno (Linux's get_nodes)."""
    maxnode = (maxnode - 1) & ((1 << 64) - 1)
    if maxnode == 0 or nmask == 0:
        return 0
    if maxnode > _PAGE_BITS:
        return -E.EINVAL
    if maxnode > _MAX_NUMNODES:            # the bits past MAX_NUMNODES must all be clear
        first, last = _MAX_NUMNODES // 64, (maxnode + 63) // 64
        tail = int.from_bytes(proc.aspace.read(nmask + 8 * first, 8 * (last - first)), "little")
        if maxnode % 64:
            tail &= (1 << (64 * (last - first - 1) + maxnode % 64)) - 1
        if tail:
            return -E.EINVAL
        maxnode = _MAX_NUMNODES
    nbytes = (maxnode + 63) // 64 * 8
    bits = int.from_bytes(proc.aspace.read(nmask, nbytes), "little")
    return bits & ((1 << maxnode) - 1)


def sys_set_mempolicy(proc, mode, nmask, maxnode, *_):
    mode = s32(mode)
    flags = mode & _MODE_FLAGS
    mode &= ~_MODE_FLAGS
    if not 0 <= mode < MPOL_MAX:
        return -E.EINVAL
    if flags & MPOL_F_STATIC_NODES and flags & MPOL_F_RELATIVE_NODES:
        return -E.EINVAL
    if flags & MPOL_F_NUMA_BALANCING and mode not in (MPOL_BIND, MPOL_PREFERRED_MANY):
        return -E.EINVAL
    nodes = _get_nodes(proc, nmask, maxnode)
    if nodes < 0:
        return nodes
    if mode == MPOL_DEFAULT:
        return -E.EINVAL if nodes else 0
    if not nodes:
        if mode == MPOL_PREFERRED and not flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES):
            return 0                        # (local allocation)
        return 0 if mode == MPOL_LOCAL and not flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES) \
            else -E.EINVAL
    if mode == MPOL_LOCAL:
        return -E.EINVAL
    if not flags & MPOL_F_RELATIVE_NODES and not nodes & _ONLINE:
        return -E.EINVAL                    # no node of the set exists
    return 0
