"""Route modules of the web EHR; each exposes ``routes``, a list of Starlette routes."""

import portal_web.common.convertors  # noqa: F401,E402 - registers the {x:id} URL convertor
