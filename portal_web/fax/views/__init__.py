"""The fax service's views, one module per area (each exposes ``routes``)."""
