"""64-bit register words read as the signed C types they carry."""


def s64(v: int) -> int:
    """The word as a signed 64-bit value (long, off_t, ssize_t)."""
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >> 63 else v


def s32(v: int) -> int:
    """The low half as a signed 32-bit value (int, pid_t)."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v
