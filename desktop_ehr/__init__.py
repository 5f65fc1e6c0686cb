"""desktop_ehr."""
