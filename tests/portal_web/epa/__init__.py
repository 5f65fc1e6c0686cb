"""Tests of the ePA portal (portal_web/epa)."""
