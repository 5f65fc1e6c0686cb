"""One module per web system; each exposes ``create_site(settings) -> ASGI app``."""
