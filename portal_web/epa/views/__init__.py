"""The ePA portal's views, one module per page family; each exposes ``routes``."""
