"""Decoding for traces: strace's rendering of system calls (strace), the names of Linux's flag
and enum values (xlat) and signal descriptions (sigdesc). Only the tracer's formatters use them;
the emulated kernel works with numbers."""
