"""Debug information (DWARF 2-5) and call-frame information: the types and signatures of
functions, read lazily, the values of their arguments and return values at a traced call (SysV
x86-64 ABI), source lines, and the unwinder. Every DWARF-encoded thing emutrace reads is read here.

    elfsec   the debug sections of an ELF file; its separate debug file (build-id, debuglink)
    info     unit headers, abbreviations, DIEs (bounded)
    types    the type model and signatures built from DIEs
    loc      location lists and expressions, evaluated at a function's entry
    index    a module's DWARF by function address, with the metadata cache
    abi      where arguments and return values live (SysV x86-64), read as bytes
    render   values as text (gdb's and uftrace's notation) and as typed JSON
    leb      LEB128 numbers (one reader for all of the above and below)
    lines    .debug_line: addresses to source lines (-k's file:line, coverage)
    ehframe  .eh_frame: pointer encodings, CIEs and FDEs (function discovery reads their ranges)
    unwind   the CFI unwinder over guest registers and memory (-k, backtrace)
"""
