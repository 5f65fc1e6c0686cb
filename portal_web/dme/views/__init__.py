"""View modules of the DME portal; each exposes ``routes``."""
