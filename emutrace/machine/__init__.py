"""The machine layer: the x86-64 CPU in Unicorn (cpu), guest memory and its TLB fill (memory,
tlb), the x86 encoder (x86enc), fault decoding (faultaddr), plain records (record) and the
digests and on-disk cache beneath everything (digest, cache).

It knows nothing of Linux or of tracing and imports only unicorn, capstone and the standard
library. Importing the package itself loads none of its modules, so a light user (records for
`emutrace diff`) does not pay for Unicorn.
"""
