"""View modules of the Acme portal; each exposes ``routes`` (listed in ``app.VIEW_MODULES``)."""
