"""The regulator portal's views (each module exposes ``routes``)."""
