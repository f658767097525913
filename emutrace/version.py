"""emutrace's version. Kept at the bottom layer because the on-disk cache keys its entries by it
(an upgraded emutrace must not read what an older one parsed); the package re-exports it."""
__version__ = "0.1.0"
