"""emutrace's gdb server (`emutrace --gdb`): the GDB remote protocol over a deterministic run,
with reverse execution by replay from forked checkpoints (or from the start). See docs/gdb.md.

packets (framing) < regs, memory, xfer, breaks, positions, checkpoints < debugger, timeline < server
< listen.
"""
