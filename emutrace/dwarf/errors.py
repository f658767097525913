"""The errors of the DWARF and CFI readers: malformed input, reported as a warning naming the
file (the debug information), or ending a backtrace (the unwind tables)."""


class DwarfError(ValueError):
    pass


class Truncated(DwarfError, IndexError):
    """The data ends inside an item (a LEB128 number, a pointer): an IndexError too, as a
    subscript past the end would raise."""
