"""The Jinja2 environment of a site: its own templates first, then the shared ones.

Forms get their hidden CSRF and one-time tokens from ``{{ form_tokens() }}``, which reads
the request's session from the template context, so no view can forget them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import jinja2
from markupsafe import Markup, escape
from starlette.templating import Jinja2Templates

COMMON_TEMPLATES = Path(__file__).parent / "templates"


class TestableUndefined(jinja2.StrictUndefined):
    """Strict (a typo in a template fails its test) but false in ``{% if name %}``."""

    def __bool__(self) -> bool:
        return False


@jinja2.pass_context
def form_tokens(context: jinja2.runtime.Context) -> Markup:
    """Hidden inputs: the session's CSRF token and a fresh one-time form token."""
    request = context["request"]
    session = request.state.session
    token = context.get("form_token") or session.issue_form_token()
    return Markup(
        f'<input type="hidden" name="csrf_token" value="{escape(session.csrf_token)}">'
        f'<input type="hidden" name="form_token" value="{escape(token)}">')


def make_templates(site_dirs: Sequence[Path]) -> Jinja2Templates:
    """Templates for one site (``site_dirs`` searched before the shared templates)."""
    loader = jinja2.FileSystemLoader([str(p) for p in site_dirs] + [str(COMMON_TEMPLATES)])
    env = jinja2.Environment(loader=loader, autoescape=jinja2.select_autoescape(
        ["html", "xml", "j2"], default=True), undefined=TestableUndefined,
        trim_blocks=True, lstrip_blocks=True)
    env.globals["form_tokens"] = form_tokens
    return Jinja2Templates(env=env)
