"""The Workspace: the agent's local documents, served as a small file manager.

``files`` knows the three folders of an episode (Documents = ``input/``, read-only; Output =
``output/``; Downloads = ``downloads/``) and how to read each kind of file; the site itself
(routes and views) is ``portal_web.sites.workspace``.
"""
