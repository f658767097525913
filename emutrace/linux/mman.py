"""Linux x86-64: memory mapping (include/uapi/asm-generic/mman*.h).

Each constant is declared once, here, with its Linux value (never the host's): the kernel, the
decoders (decode/xlat.py names its sets by these names) and the report import it from here.
"""

MADV_DONTNEED = 4
MADV_FREE = 8
MADV_REMOVE = 9
MAP_FIXED = 0x10
MAP_ANONYMOUS = 0x20
MAP_GROWSDOWN = 0x100
MAP_NORESERVE = 0x4000
MAP_FIXED_NOREPLACE = 0x100000
MREMAP_MAYMOVE = 1
MREMAP_FIXED = 2
MREMAP_DONTUNMAP = 4
PKEY_DISABLE_ACCESS = 1
PKEY_DISABLE_WRITE = 2
PROT_READ = 1
PROT_WRITE = 2
PROT_EXEC = 4
# memory policies (include/uapi/linux/mempolicy.h): set_mempolicy/mbind modes and mode flags
MPOL_DEFAULT = 0
MPOL_PREFERRED = 1
MPOL_BIND = 2
MPOL_INTERLEAVE = 3
MPOL_LOCAL = 4
MPOL_PREFERRED_MANY = 5
MPOL_WEIGHTED_INTERLEAVE = 6
MPOL_MAX = 7
MPOL_F_STATIC_NODES = 0x8000
MPOL_F_RELATIVE_NODES = 0x4000
MPOL_F_NUMA_BALANCING = 0x2000
