"""The machine layer: the x86-64 CPU in Unicorn (cpu), guest memory and its TLB fill (memory,
tlb), the x86 encoder (x86enc), fault decoding (faultaddr), and the digests and on-disk cache
beneath everything (digest, cache). Below it: the Linux constants (emutrace.linux), the error
type every layer reports with (emutrace.errors), the plain records (emutrace.record) and the
version.

It knows nothing of tracing and imports only unicorn, capstone, the standard library and the
modules below it. Importing the package itself loads none of its modules, so a light user (records for
`emutrace diff`) does not pay for Unicorn.
"""
