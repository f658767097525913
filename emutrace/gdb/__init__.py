"""emutrace's gdb server (`emutrace --gdb`): the GDB remote protocol over a deterministic run,
with reverse execution by replay. See docs/gdb.md.

packets (framing) < regs, memory, xfer, breaks, positions < debugger, timeline < server < listen.
"""
