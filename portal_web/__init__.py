"""portal_web."""
