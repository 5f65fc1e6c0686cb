"""Dialogs and pages shared by both personas; models and services come in through
constructors, dialogs open through replaceable classmethods."""
