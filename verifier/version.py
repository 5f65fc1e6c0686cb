"""The grading engine's version, recorded in every report."""

ENGINE_VERSION = "0.1.0"
