"""The bytes of an overlay file, kept as tmpfs keeps them: in pages that exist only where
something was written. A hole (ftruncate past the end, a write far past it) reads as zeros and
holds nothing, so a sparse file costs the disk quota (limits.py's `disk`) and the host only
what was written to it: `truncate -s 1T` succeeds, as on Linux, and a 1 TiB file with one byte
written holds one page.

It looks like the bytearray it replaces to the code that reads and writes files: len(), a slice
read gives bytes (zeros in holes), a slice write of the same length stores them, bytes() gives
the whole content."""
from __future__ import annotations

from typing import Dict, Optional

PAGE = 4096


class FileData:
    __slots__ = ("size", "pages")

    def __init__(self, data: bytes = b""):
        self.size = 0
        self.pages: Dict[int, bytearray] = {}     # page index → its 4 KiB (written ones only)
        if data:
            self.resize(len(data))
            self[0:len(data)] = data

    def __len__(self) -> int:
        return self.size

    def __bytes__(self) -> bytes:
        return self[0:self.size]

    def held(self) -> int:
        """The bytes of the pages that exist (what the quota counts)."""
        return len(self.pages) * PAGE

    def image(self, limit: int) -> Optional[bytes]:
        """The whole content, or None when it is longer than `limit` bytes (a sparse file can be
        far larger than what the host could hold as one bytes object)."""
        return bytes(self) if self.size <= limit else None

    def page_digest(self) -> str:
        """A fingerprint of a sparse file too large for image(): SHA-256 over its written pages
        in order, each after its byte offset (8 bytes, little-endian); holes are zeros."""
        import hashlib                  # deferred: OpenSSL's start costs every run (docs/decisions.md)
        h = hashlib.sha256()
        for i in sorted(self.pages):
            h.update((i * PAGE).to_bytes(8, "little"))
            h.update(self.pages[i][:max(0, min(PAGE, self.size - i * PAGE))])
        return h.hexdigest()

    def new_pages(self, off: int, end: int) -> int:
        """How many pages writing [off, end) would add."""
        if end <= off:
            return 0
        first, last = off // PAGE, (end - 1) // PAGE
        span = last - first + 1
        if span <= len(self.pages):
            return sum(1 for i in range(first, last + 1) if i not in self.pages)
        return span - sum(1 for i in self.pages if first <= i <= last)

    def __getitem__(self, key: slice) -> bytes:
        off, end, step = key.indices(self.size)
        if step != 1:
            raise ValueError("FileData takes contiguous slices only")
        if end <= off:
            return b""
        out = bytearray(end - off)
        pages = self.pages
        first, last = off // PAGE, (end - 1) // PAGE
        wanted = range(first, last + 1) if last - first < len(pages) else sorted(
            i for i in pages if first <= i <= last)
        for i in wanted:
            page = pages.get(i)
            if page is None:
                continue
            base = i * PAGE
            lo, hi = max(off, base), min(end, base + PAGE)
            out[lo - off:hi - off] = page[lo - base:hi - base]
        return bytes(out)

    def __setitem__(self, key: slice, data) -> None:
        """Store `data` over [start, stop): the same length, inside the file (resize first)."""
        off, end, step = key.indices(self.size)
        if step != 1 or end - off != len(data):
            raise ValueError("FileData takes same-length contiguous slice writes only")
        mv = memoryview(data).cast("B") if not isinstance(data, (bytes, bytearray)) else data
        pages = self.pages
        pos = off
        while pos < end:
            i, within = divmod(pos, PAGE)
            n = min(PAGE - within, end - pos)
            page = pages.get(i)
            if page is None:
                page = pages[i] = bytearray(PAGE)
            page[within:within + n] = mv[pos - off:pos - off + n]
            pos += n

    def resize(self, size: int) -> None:
        """The file becomes `size` bytes long: a longer one ends in a hole; a shorter one loses
        its pages past the end, and the rest of its last page reads as zeros if it grows again."""
        if size < self.size:
            keep = (size + PAGE - 1) // PAGE
            if self.size // PAGE - keep < len(self.pages):
                doomed = [i for i in range(keep, (self.size + PAGE - 1) // PAGE) if i in self.pages]
            else:
                doomed = [i for i in self.pages if i >= keep]
            for i in doomed:
                del self.pages[i]
            tail = self.pages.get(size // PAGE) if size % PAGE else None
            if tail is not None:
                tail[size % PAGE:] = bytes(PAGE - size % PAGE)
        self.size = size
