"""Steps that several tasks' ``gold.py`` files share: log in, open a chart, type into a
field and wait for the application to show it.

They obey the same rules as gold code (``episodes.oracle.check_gold_source``): they locate
through the :class:`~episodes.oracle.Oracle` they are given and act only through its agent
API; a test runs the static guard over this package too.
"""
