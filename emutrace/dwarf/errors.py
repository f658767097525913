"""The one error of the DWARF reader: malformed input, reported as a warning naming the file."""


class DwarfError(Exception):
    pass
