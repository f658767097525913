"""Linux x86-64: ELF (the System V x86-64 ABI the kernel's binfmt reads).

Each constant is declared once, here, with its Linux value (never the host's): the kernel, the
decoders (decode/xlat.py names its sets by these names) and the report import it from here.
"""

PT_LOAD = 1
PT_DYNAMIC = 2
PT_INTERP = 3
PT_NOTE = 4
PT_PHDR = 6
PT_TLS = 7
SHN_UNDEF = 0
SHN_ABS = 0xFFF1
SHT_SYMTAB = 2
SHT_NOBITS = 8
SHT_DYNSYM = 11
STB_LOCAL = 0
STB_GLOBAL = 1
STB_WEAK = 2
STT_NOTYPE = 0
STT_OBJECT = 1
STT_FUNC = 2
STT_SECTION = 3
STT_FILE = 4
STT_TLS = 6
STT_GNU_IFUNC = 10
