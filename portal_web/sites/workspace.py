"""Site ``workspace`` (host ``workspace.local``): the agent's local files, like a file manager.

Documents (the task's ``input/``, read-only), Output (``output/``: what the verifier reads)
and Downloads (the browser's downloads). Files open in a viewer by kind — text, CSV as a
table, images, PDFs in the browser's own PDF viewer, calendars (.ics) as a list of events;
CSV and TXT files in Output open in an editor (a grid or plain text). Files can be
downloaded, uploaded into Output and copied from Documents or Downloads into Output.

Everything here happens in the workstation's browser, so each change is logged with channel
``browser`` (``logs/workspace.jsonl`` of the run, with the sandbox time); forms are only
accepted from the Workspace's own pages (same-origin check), like any site's CSRF guard.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import quote, urlparse

from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from portal_web.common.params import parse_int
from portal_web.common.templating import make_templates
from portal_web.settings import PortalSettings
from portal_web.workspace.files import (
    AREAS,
    EDITABLE_SUFFIXES,
    MAX_UPLOAD_BYTES,
    WorkspaceError,
    WorkspaceFiles,
    check_name,
    format_csv,
    kind_of,
    media_type,
    parse_csv,
    read_calendar,
    read_csv_rows,
    read_text,
)

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "workspace"
TEMPLATES_DIR = PACKAGE_DIR / "templates"
STATIC_DIR = PACKAGE_DIR / "static"
DEFAULT_GRID = (3, 4)  # rows, columns of a new CSV
MAX_GRID = 200
MAX_TEXT_BYTES = 4 * 1024 * 1024  # a text or CSV saved from the editor
COLUMN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def column_label(index: int) -> str:
    label = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        label = COLUMN_LETTERS[rem] + label
    return label


class WorkspaceSite:
    """The views of one episode's Workspace."""

    def __init__(self, settings: PortalSettings):
        self.settings = settings
        self.files = WorkspaceFiles(settings.run_dir)
        self.templates = make_templates([TEMPLATES_DIR])
        self._clock = None

    # -- plumbing --------------------------------------------------------------------------
    def now(self) -> str:
        from sandbox.clock import SharedClock

        if self._clock is None:
            try:
                self._clock = SharedClock(self.settings.clock_path)
            except ValueError:
                return ""
        return self._clock.now().isoformat()

    def log(self, action: str, **details: object) -> None:
        """One line per change, channel ``browser`` (the Workspace has no other channel)."""
        folder = self.settings.run_dir / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        line = {"sandbox_time": self.now(), "channel": "browser",
                "episode_id": self.settings.episode_id, "action": action, **details}
        with open(folder / "workspace.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")

    def render(self, request: Request, template: str, status: int = 200, **context) -> Response:
        areas = [{"key": k, "title": t, "writable": w, "count": len(self.files.listing(k))}
                 for k, (_, t, w) in AREAS.items()]
        return self.templates.TemplateResponse(
            request, template, {"areas": areas, "flash": request.query_params.get("flash", ""),
                                **context}, status_code=status)

    def error(self, request: Request, exc: WorkspaceError) -> Response:
        return self.render(request, "problem.html", status=exc.status, message=str(exc),
                           title="Cannot do that")

    @staticmethod
    def same_origin(request: Request) -> None:
        """Refuse forms posted from another site (the agent's other tabs included): the
        Origin (or Referer) must have the Workspace's own scheme, host and port."""
        origin = request.headers.get("origin") or request.headers.get("referer")
        if not origin or _origin_of(origin) != _origin_of(str(request.url)):
            raise WorkspaceError("This form must be sent from the Workspace page itself; "
                                 "reload the Workspace and try again.", 403)

    # -- pages -----------------------------------------------------------------------------
    async def home(self, request: Request) -> Response:
        return RedirectResponse(request.url_for("folder", area="documents"), 303)

    async def folder(self, request: Request) -> Response:
        area = request.path_params["area"]
        try:
            entries = self.files.listing(area)
        except WorkspaceError as exc:
            return self.error(request, exc)
        return self.render(request, "folder.html", area=area, title=AREAS[area][1],
                           writable=AREAS[area][2], entries=entries)

    async def view(self, request: Request) -> Response:
        area, name = request.path_params["area"], request.path_params["name"]
        try:
            path = self.files.path(area, name)
        except WorkspaceError as exc:
            return self.error(request, exc)
        kind = kind_of(name)
        context = {"area": area, "name": name, "kind": kind, "title": name,
                   "folder_title": AREAS[area][1], "writable": self.files.writable(area),
                   "editable": self.files.writable(area) and name.lower().endswith(
                       EDITABLE_SUFFIXES)}
        if kind == "pdf":  # the browser's own PDF viewer, full tab
            return RedirectResponse(request.url_for("raw", area=area, name=name), 303)
        if kind == "text":
            context["text"] = read_text(path)
        elif kind == "csv":
            rows = read_csv_rows(path)
            context["header"], context["rows"] = (rows[0], rows[1:]) if rows else ([], [])
        elif kind == "ics":
            try:
                context["calendar"], context["events"] = read_calendar(path)
            except WorkspaceError as exc:
                return self.error(request, exc)
        return self.render(request, "view.html", **context)

    async def raw(self, request: Request) -> Response:
        area, name = request.path_params["area"], request.path_params["name"]
        try:
            path = self.files.path(area, name)
        except WorkspaceError as exc:
            return self.error(request, exc)
        download = request.query_params.get("download") == "1"
        disposition = "attachment" if download else "inline"
        return FileResponse(path, media_type=media_type(name), headers={
            "Content-Disposition": f"{disposition}; filename*=UTF-8''{quote(name)}",
            "Cache-Control": "no-store"})

    async def new_file(self, request: Request) -> Response:
        if request.method == "GET":
            return self.render(request, "new.html", title="New file", name="", kind="csv")
        try:
            self.same_origin(request)
            form = await read_form(request, MAX_TEXT_BYTES)
            kind = str(form.get("kind", "csv"))
            name = str(form.get("name", "")).strip()
            if kind not in ("csv", "txt"):
                raise WorkspaceError("Choose CSV table or Text as the kind of file.")
            if name and not name.lower().endswith(f".{kind}"):
                name = f"{name}.{kind}"
            check_name(name)
            self.files.write("output", name, b"", allow_replace=False)
        except WorkspaceError as exc:
            return self.error(request, exc)
        self.log("create", path=f"output/{name}")
        return RedirectResponse(request.url_for("edit", name=name), 303)

    async def edit(self, request: Request) -> Response:
        name = request.path_params["name"]
        try:
            if not name.lower().endswith(EDITABLE_SUFFIXES):
                raise WorkspaceError(f"{name} cannot be edited here: only .csv and .txt files "
                                     "in Output open in the editor.", 415)
            path = self.files.path("output", name)
        except WorkspaceError as exc:
            return self.error(request, exc)
        text_mode = name.lower().endswith(".txt") or request.query_params.get("mode") == "text"
        text = read_text(path)
        context = {"name": name, "title": f"Edit {name}", "text_mode": text_mode, "text": text,
                   "is_csv": name.lower().endswith(".csv")}
        if not text_mode:
            context.update(self._grid_context(parse_csv(text)))
        return self.render(request, "edit.html", **context)

    def _grid_context(self, rows: list[list[str]], add_row: int = 0, add_col: int = 0) -> dict:
        n_rows = min(MAX_GRID, max(len(rows), DEFAULT_GRID[0]) + add_row)
        n_cols = min(MAX_GRID, max(max((len(r) for r in rows), default=0), DEFAULT_GRID[1])
                     + add_col)
        grid = [[(rows[r][c] if r < len(rows) and c < len(rows[r]) else "")
                 for c in range(n_cols)] for r in range(n_rows)]
        return {"grid": grid, "columns": [column_label(c) for c in range(n_cols)]}

    async def save(self, request: Request) -> Response:
        name = request.path_params["name"]
        try:
            self.same_origin(request)
            path = self.files.path("output", name)
            form = await read_form(request, MAX_TEXT_BYTES)
            action = str(form.get("action", "save"))
            if "text" in form:
                text = str(form.get("text", "")).replace("\r\n", "\n")
                rows = parse_csv(text) if name.lower().endswith(".csv") else None
            else:
                n_rows = _bounded(form.get("rows"))
                n_cols = _bounded(form.get("cols"))
                rows = [[str(form.get(f"cell-{r}-{c}", "")) for c in range(n_cols)]
                        for r in range(n_rows)]
                text = format_csv(rows)
            if len(text.encode("utf-8")) > MAX_TEXT_BYTES:
                raise WorkspaceError(f"{name} would be larger than "
                                     f"{MAX_TEXT_BYTES // (1024 * 1024)} MB, so it was not "
                                     "saved; keep the file shorter.", 413)
            if action in ("add_row", "add_col") and rows is not None:
                context = {"name": name, "title": f"Edit {name}", "text_mode": False,
                           "text": text, "is_csv": True, "unsaved": True,
                           **self._grid_context(rows, action == "add_row",
                                                action == "add_col")}
                return self.render(request, "edit.html", **context)
            self.files.write("output", path.name, text.encode("utf-8"))
        except WorkspaceError as exc:
            return self.error(request, exc)
        self.log("save", path=f"output/{name}", bytes=len(text.encode("utf-8")))
        url = request.url_for("view", area="output", name=name)
        return RedirectResponse(f"{url}?flash=Saved", 303)

    async def upload(self, request: Request) -> Response:
        try:
            self.same_origin(request)
            form = await read_form(request, MAX_UPLOAD_BYTES)
            upload = form.get("file")
            if not isinstance(upload, UploadFile) or not upload.filename:
                raise WorkspaceError("Choose a file to upload first.")
            name = check_name(Path(upload.filename).name)
            data = await upload.read()
            if len(data) > MAX_UPLOAD_BYTES:
                raise WorkspaceError("That file is larger than 25 MB.", 413)
            self.files.write("output", name, data)
        except WorkspaceError as exc:
            return self.error(request, exc)
        self.log("upload", path=f"output/{name}", bytes=len(data))
        url = request.url_for("folder", area="output")
        return RedirectResponse(f"{url}?flash=Uploaded+{quote(name)}", 303)

    async def copy_to_output(self, request: Request) -> Response:
        area, name = request.path_params["area"], request.path_params["name"]
        try:
            self.same_origin(request)
            source = self.files.path(area, name)
            target = self.files.path("output", name, must_exist=False)
            if area == "output":
                raise WorkspaceError(f"{name} is already in Output.")
            shutil.copyfile(source, target)
        except WorkspaceError as exc:
            return self.error(request, exc)
        self.log("copy", source=f"{AREAS[area][0]}/{name}", path=f"output/{name}")
        url = request.url_for("folder", area="output")
        return RedirectResponse(f"{url}?flash=Copied+{quote(name)}", 303)

    async def delete(self, request: Request) -> Response:
        name = request.path_params["name"]
        try:
            self.same_origin(request)
            self.files.delete("output", name)
        except WorkspaceError as exc:
            return self.error(request, exc)
        self.log("delete", path=f"output/{name}")
        url = request.url_for("folder", area="output")
        return RedirectResponse(f"{url}?flash=Deleted+{quote(name)}", 303)


DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL, the port filled in from the scheme; None if unusable."""
    try:
        parts = urlparse(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


async def read_form(request: Request, max_part_size: int = 1024 * 1024) -> FormData:
    """The posted form; a body that cannot be read as one (malformed multipart, a part over
    ``max_part_size``) is a :class:`WorkspaceError` shown on the Workspace's own page."""
    try:
        return await request.form(max_part_size=max_part_size)
    except (HTTPException, MultiPartException) as exc:
        detail = str(getattr(exc, "detail", None) or exc)
        if "maximum size" in detail:
            raise WorkspaceError(f"That is too much to save at once ({detail.rstrip('.')}); "
                                 "keep a file under the limit.", 413) from exc
        raise WorkspaceError("The form could not be read; reload the page and try again.",
                             400) from exc


def _bounded(value: object) -> int:
    number = parse_int(str(value))
    if number is None:
        raise WorkspaceError("The editor form is incomplete; reload the page.")
    if not 0 <= number <= MAX_GRID:
        raise WorkspaceError(f"The table may have at most {MAX_GRID} rows and columns.")
    return number


async def _http_error(request: Request, exc: Exception) -> Response:
    """Every HTTP error (no such page, wrong method, an unreadable request) as the
    Workspace's own page with the error's status."""
    assert isinstance(exc, HTTPException)
    site: WorkspaceSite = request.app.state.workspace
    if exc.status_code in (404, 405):
        message = "There is no such page in the Workspace; go back to the file list."
    else:
        message = str(exc.detail or "The request could not be read; reload the page.")
    return site.error(request, WorkspaceError(message, exc.status_code))


def create_site(settings: PortalSettings) -> Starlette:
    """The Workspace of the episode whose run directory is ``settings.run_dir``."""
    site = WorkspaceSite(settings)
    routes = [
        Route("/", site.home, name="home"),
        Route("/folder/{area}", site.folder, name="folder"),
        Route("/view/{area}/{name}", site.view, name="view"),
        Route("/raw/{area}/{name}", site.raw, name="raw"),
        Route("/new", site.new_file, methods=["GET", "POST"], name="new"),
        Route("/edit/{name}", site.edit, name="edit"),
        Route("/edit/{name}", site.save, methods=["POST"], name="save"),
        Route("/upload", site.upload, methods=["POST"], name="upload"),
        Route("/copy/{area}/{name}", site.copy_to_output, methods=["POST"], name="copy"),
        Route("/delete/{name}", site.delete, methods=["POST"], name="delete"),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error})
    app.state.workspace = site
    return app
