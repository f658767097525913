"""emutrace: ltrace + strace + ftrace for x86-64 Linux programs, run inside the Unicorn emulator."""
__version__ = "0.1.0"
