"""sha256 and blake2b from CPython's own modules, without `hashlib`.

Importing hashlib loads and initialises OpenSSL (~4 ms), a few percent of a whole traced run of a
small program; the digests emutrace needs (cache keys, the guest's seeded random bytes, ELF
content keys) are the same from the built-in implementations. hashlib remains the fallback for a
Python built without them.
"""
try:
    from _sha256 import sha256          # CPython <= 3.11
except ImportError:                     # pragma: no cover - depends on the Python build
    try:
        from _sha2 import sha256        # CPython >= 3.12
    except ImportError:
        from hashlib import sha256
try:
    from _blake2 import blake2b
except ImportError:                     # pragma: no cover
    from hashlib import blake2b

__all__ = ["sha256", "blake2b"]
