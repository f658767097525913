"""What execve needs from a binary format: the kernel's side of binfmt registration.

Linux's execve hands the file to whichever binfmt handler (ELF, script, misc) claims it; the
handlers register themselves, so the exec syscall never names them. Here the loader is that
handler and the session registers it in the hooks' `binfmt` role (kernel.hooks.binfmt): a callable
`binfmt(proc, path, argv, envp, base_dir)` that replaces the process's image, or raises ExecError
before the point of no return. The kernel therefore never imports the loader, which sits above it.
"""


class ExecError(Exception):
    """exec failed before the point of no return; errno is the Linux error."""

    def __init__(self, errno: int, message: str):
        super().__init__(message)
        self.errno = errno
