"""Deterministic generators for the files a task puts in the agent's ``input/`` folder.

Every generator is a pure function of its spec: PDFs are written with reportlab's invariant
mode (fixed document id and dates), images with a random generator seeded from the file's
path, calendars with a fixed DTSTAMP. Seeding twice, or on another machine with the same
fonts, gives byte-identical files.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sandbox.catalog import InputFile
from sandbox.clock import DEFAULT_START, parse_sandbox_time
from sandbox.errors import SandboxError

FONT_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation")]


class InputError(SandboxError, ValueError):
    """An input-file spec cannot be rendered."""


def _font(name: str, size: int):
    from PIL import ImageFont

    for folder in FONT_DIRS:
        path = folder / name
        if path.exists():
            return ImageFont.truetype(str(path), size)
    raise InputError(f"font {name} is missing; run installer/bootstrap.sh (fonts-dejavu-core)")


def _rng(key: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


# -- text-like ---------------------------------------------------------------------------
def render_text(spec: InputFile, task_dir: Path | None) -> bytes:
    if spec.content is not None:
        text = spec.content
    elif spec.source is not None:
        text = _source(spec, task_dir).read_text()
    else:
        raise InputError(f"{spec.path}: a text input needs 'content' or 'source'")
    return text.encode()


def render_csv(spec: InputFile, _task_dir: Path | None) -> bytes:
    if not spec.rows:
        raise InputError(f"{spec.path}: a csv input needs 'rows' (first row = header)")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in spec.rows:
        writer.writerow(["" if v is None else v for v in row])
    return buf.getvalue().encode()


def render_json(spec: InputFile, _task_dir: Path | None) -> bytes:
    if spec.data is None:
        raise InputError(f"{spec.path}: a json input needs 'data'")
    return (json.dumps(spec.data, indent=2, sort_keys=True, default=str) + "\n").encode()


def render_copy(spec: InputFile, task_dir: Path | None) -> bytes:
    return _source(spec, task_dir).read_bytes()


def _source(spec: InputFile, task_dir: Path | None) -> Path:
    if spec.source is None or task_dir is None:
        raise InputError(f"{spec.path}: needs 'source', a file in the task folder")
    path = (task_dir / spec.source).resolve()
    if task_dir.resolve() not in path.parents:
        raise InputError(f"{spec.path}: source {spec.source!r} is outside the task folder")
    if not path.is_file():
        raise InputError(f"{spec.path}: source file {path} does not exist")
    return path


# -- calendar ----------------------------------------------------------------------------
def render_ics(spec: InputFile, _task_dir: Path | None) -> bytes:
    from icalendar import Calendar, Event

    if not spec.events:
        raise InputError(f"{spec.path}: an ics input needs 'events'")
    cal = Calendar()
    cal.add("prodid", "-//EHR Sandbox//Provider Calendar//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", spec.options.get("calname", "Provider calendar"))
    stamp = parse_sandbox_time(spec.options.get("dtstamp", DEFAULT_START.isoformat()))
    for i, raw in enumerate(spec.events):
        unknown = set(raw) - {"summary", "start", "end", "description", "location", "uid",
                              "busy"}
        if unknown:
            raise InputError(f"{spec.path}: event {i}: unknown keys {sorted(unknown)}")
        event = Event()
        event.add("uid", raw.get("uid", f"evt-{i:03d}@ehr-sandbox.test"))
        event.add("dtstamp", stamp)
        event.add("summary", raw["summary"])
        event.add("dtstart", parse_sandbox_time(str(raw["start"])))
        event.add("dtend", parse_sandbox_time(str(raw["end"])))
        if raw.get("description"):
            event.add("description", raw["description"])
        if raw.get("location"):
            event.add("location", raw["location"])
        event.add("transp", "OPAQUE" if raw.get("busy", True) else "TRANSPARENT")
        cal.add_component(event)
    return cal.to_ical()


# -- images ------------------------------------------------------------------------------
def render_png(spec: InputFile, _task_dir: Path | None) -> bytes:
    """A label or a photo of one: lines of text on a card, optionally tilted with noise."""
    from PIL import Image, ImageDraw, ImageFilter

    if not spec.lines:
        raise InputError(f"{spec.path}: a png input needs 'lines'")
    opts = spec.options
    width, height = int(opts.get("width", 900)), int(opts.get("height", 560))
    rng = _rng(spec.path)
    card = Image.new("RGB", (width, height), opts.get("background", "#fbfaf4"))
    draw = ImageDraw.Draw(card)
    border = opts.get("border", "#1f4e79")
    draw.rectangle([6, 6, width - 7, height - 7], outline=border, width=4)
    y = int(opts.get("margin", 28))
    for line in spec.lines:
        size = int(line.get("size", 28))
        font = _font("DejaVuSans-Bold.ttf" if line.get("bold") else "DejaVuSans.ttf", size)
        fill = line.get("color", "#111111")
        if line.get("band"):
            draw.rectangle([10, y - 6, width - 11, y + size + 8], fill=line["band"])
        draw.text((int(line.get("x", 30)), y), str(line["text"]), font=font, fill=fill)
        y += int(size * float(line.get("spacing", 1.45)))
    image = card
    if opts.get("photo"):
        canvas = Image.new("RGB", (width + 160, height + 160), opts.get("table", "#8b7d6b"))
        tilted = card.rotate(float(opts.get("angle", rng.uniform(-3.5, 3.5))), expand=True,
                             fillcolor=opts.get("table", "#8b7d6b"))
        canvas.paste(tilted, (80 - (tilted.width - width) // 2, 80 - (tilted.height - height) // 2))
        image = canvas.filter(ImageFilter.GaussianBlur(float(opts.get("blur", 0.6))))
        _add_noise(image, rng, int(opts.get("noise", 6)))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _add_noise(image, rng: random.Random, amount: int) -> None:
    if amount <= 0:
        return
    pixels = image.load()
    for _ in range(image.width * image.height // 40):
        x, y = rng.randrange(image.width), rng.randrange(image.height)
        r, g, b = pixels[x, y]
        d = rng.randint(-amount, amount)
        pixels[x, y] = (max(0, min(255, r + d)), max(0, min(255, g + d)), max(0, min(255, b + d)))


# -- PDF ---------------------------------------------------------------------------------
def render_pdf(spec: InputFile, task_dir: Path | None) -> bytes:
    """Typed documents (letterhead, paragraphs, tables), fillable forms, or scanned pages."""
    if not spec.pages and not spec.fields:
        raise InputError(f"{spec.path}: a pdf input needs 'pages' and/or 'fields'")
    if spec.options.get("scanned"):
        return _scanned_pdf(spec)
    return _typed_pdf(spec)


def _pdf_canvas(buf: io.BytesIO, title: str):
    from reportlab import rl_config
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    rl_config.invariant = 1  # fixed ids and dates: identical bytes on every run
    c = canvas.Canvas(buf, pagesize=letter, invariant=1, pageCompression=0)
    c.setTitle(title)
    c.setAuthor("EHR Sandbox")
    c.setCreator("EHR Sandbox")
    return c, letter


def _wrap(text: str, font: str, size: float, width: float) -> list[str]:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines: list[str] = []
    for para_line in str(text).split("\n"):
        words = para_line.split(" ")
        current = ""
        for word in words:
            trial = f"{current} {word}".strip()
            if stringWidth(trial, font, size) <= width or not current:
                current = trial
            else:
                lines.append(current)
                current = word
        lines.append(current)
    return lines


def _typed_pdf(spec: InputFile) -> bytes:
    buf = io.BytesIO()
    title = spec.options.get("title") or (spec.pages[0].get("title") if spec.pages else spec.path)
    c, (width, height) = _pdf_canvas(buf, str(title))
    margin = 54
    letterhead = spec.options.get("letterhead")
    footer = spec.options.get("footer")

    def new_page_header() -> float:
        y = height - margin
        if letterhead:
            c.setFillColorRGB(0.12, 0.3, 0.47)
            c.rect(0, height - 40, width, 40, fill=1, stroke=0)
            c.setFillColorRGB(1, 1, 1)
            c.setFont("Helvetica-Bold", 13)
            c.drawString(margin, height - 26, str(letterhead))
            c.setFillColorRGB(0, 0, 0)
            y = height - 64
        return y

    for page_no, page in enumerate(spec.pages or [{}]):
        unknown = set(page) - {"title", "subtitle", "paragraphs", "table", "signature",
                               "col_widths"}
        if unknown:
            raise InputError(f"{spec.path}: page {page_no + 1}: unknown keys {sorted(unknown)}")
        y = new_page_header()
        if page.get("title"):
            c.setFont("Helvetica-Bold", 15)
            c.drawString(margin, y, str(page["title"]))
            y -= 20
        if page.get("subtitle"):
            c.setFont("Helvetica", 10)
            c.drawString(margin, y, str(page["subtitle"]))
            y -= 18
        for para in page.get("paragraphs", []):
            bold = isinstance(para, dict) and para.get("bold")
            text = para["text"] if isinstance(para, dict) else para
            font = "Helvetica-Bold" if bold else "Helvetica"
            c.setFont(font, 10.5)
            for line in _wrap(text, font, 10.5, width - 2 * margin):
                if y < margin + 20:
                    c.showPage()
                    y = new_page_header()
                    c.setFont(font, 10.5)
                c.drawString(margin, y, line)
                y -= 14
            y -= 6
        if page.get("table"):
            y = _draw_table(c, page["table"], margin, y, width - 2 * margin,
                            page.get("col_widths"))
        if page.get("signature"):
            y -= 24
            c.setFont("Helvetica-Oblique", 11)
            c.drawString(margin, y, str(page["signature"]))
        if spec.fields and page_no == len(spec.pages or [{}]) - 1:
            y = _draw_fields(c, spec, margin, y - 10, width - 2 * margin)
        if footer:
            c.setFont("Helvetica", 8)
            c.drawString(margin, 30, f"{footer}    page {page_no + 1}")
        c.showPage()
    c.save()
    return buf.getvalue()


def _draw_table(c, rows: list[list[Any]], x: float, y: float, width: float,
                col_widths: list[float] | None) -> float:
    ncols = max(len(r) for r in rows)
    widths = col_widths or [width / ncols] * ncols
    row_h = 18
    for r, row in enumerate(rows):
        c.setFont("Helvetica-Bold" if r == 0 else "Helvetica", 9.5)
        cx = x
        for i in range(ncols):
            cell = row[i] if i < len(row) else ""
            if r == 0:
                c.setFillColorRGB(0.9, 0.92, 0.95)
                c.rect(cx, y - 5, widths[i], row_h, fill=1, stroke=0)
                c.setFillColorRGB(0, 0, 0)
            c.rect(cx, y - 5, widths[i], row_h, fill=0, stroke=1)
            c.drawString(cx + 4, y, "" if cell is None else str(cell))
            cx += widths[i]
        y -= row_h
    return y - 10


def _draw_fields(c, spec: InputFile, x: float, y: float, width: float) -> float:
    """Fillable AcroForm fields, one per row: label at left, field at right."""
    form = c.acroForm
    for f in spec.fields or []:
        unknown = set(f) - {"name", "label", "value", "type", "width", "options"}
        if unknown:
            raise InputError(f"{spec.path}: field {f.get('name')}: unknown keys {sorted(unknown)}")
        if y < 80:
            c.showPage()
            y = 740
        c.setFont("Helvetica", 9.5)
        c.drawString(x, y + 4, str(f.get("label", f["name"])))
        kind = f.get("type", "text")
        if kind == "checkbox":
            form.checkbox(name=f["name"], x=x + 230, y=y, size=14,
                          checked=bool(f.get("value")), buttonStyle="check")
        else:
            form.textfield(name=f["name"], value=str(f.get("value", "")), x=x + 230, y=y - 2,
                           width=float(f.get("width", width - 230)), height=17, fontSize=9.5,
                           borderWidth=1, forceBorder=True)
        y -= 24
    return y


def _scanned_pdf(spec: InputFile) -> bytes:
    """Pages drawn as images (no text layer), slightly tilted, with hand-written looking
    table cells: what a scanned paper sheet is."""
    from PIL import Image, ImageDraw, ImageFilter
    from reportlab.lib.utils import ImageReader

    buf = io.BytesIO()
    c, (width, height) = _pdf_canvas(buf, str(spec.options.get("title", spec.path)))
    rng = _rng(spec.path)
    for page in spec.pages or []:
        img = Image.new("RGB", (1275, 1650), "#fdfdf8")
        draw = ImageDraw.Draw(img)
        y = 90
        if page.get("title"):
            draw.text((90, y), str(page["title"]), font=_font("DejaVuSans-Bold.ttf", 34),
                      fill="#202020")
            y += 60
        if page.get("subtitle"):
            draw.text((90, y), str(page["subtitle"]), font=_font("DejaVuSans.ttf", 22),
                      fill="#303030")
            y += 44
        hand = _font("DejaVuSansCondensed-Oblique.ttf", 27)
        for para in page.get("paragraphs", []):
            text = para["text"] if isinstance(para, dict) else para
            draw.text((90 + rng.randint(-3, 3), y), str(text), font=hand, fill="#1d2a6b")
            y += 40
        table = page.get("table")
        if table:
            ncols = max(len(r) for r in table)
            cw = (1275 - 180) // ncols
            rh = 62
            printed = _font("DejaVuSans.ttf", 22)
            for r, row in enumerate(table):
                for i in range(ncols):
                    x0, y0 = 90 + i * cw, y + r * rh
                    draw.rectangle([x0, y0, x0 + cw, y0 + rh], outline="#555555", width=2)
                    cell = row[i] if i < len(row) else ""
                    if cell in (None, ""):
                        continue
                    if r == 0 or i == 0:  # printed headers
                        draw.text((x0 + 10, y0 + 18), str(cell), font=printed, fill="#222222")
                    else:  # hand-written entries, a little off the baseline
                        draw.text((x0 + 14 + rng.randint(-4, 6), y0 + 12 + rng.randint(-4, 5)),
                                  str(cell), font=hand, fill="#1d2a6b")
            y += len(table) * rh + 30
        if page.get("signature"):
            draw.text((90, y + 30), str(page["signature"]), font=hand, fill="#1d2a6b")
        img = img.rotate(rng.uniform(-0.9, 0.9), fillcolor="#fdfdf8", resample=Image.Resampling.BICUBIC)
        img = img.filter(ImageFilter.GaussianBlur(0.5)).convert("L")
        _add_noise_gray(img, rng)
        png = io.BytesIO()
        img.save(png, format="PNG")
        png.seek(0)
        c.drawImage(ImageReader(png), 0, 0, width=width, height=height)
        c.showPage()
    c.save()
    return buf.getvalue()


def _add_noise_gray(image, rng: random.Random) -> None:
    pixels = image.load()
    for _ in range(image.width * image.height // 60):
        x, y = rng.randrange(image.width), rng.randrange(image.height)
        pixels[x, y] = max(0, min(255, pixels[x, y] + rng.randint(-40, 20)))


RENDERERS: dict[str, Callable[[InputFile, Path | None], bytes]] = {
    "text": render_text,
    "csv": render_csv,
    "json": render_json,
    "copy": render_copy,
    "ics": render_ics,
    "png": render_png,
    "pdf": render_pdf,
}


def render(spec: InputFile, task_dir: Path | None = None) -> bytes:
    """The bytes of one input file."""
    return RENDERERS[spec.kind](spec, task_dir)


def render_blob(generator: dict[str, Any], task_dir: Path | None, name: str) -> bytes:
    """A seed value ``{generate: <kind>, ...}`` for a LargeBinary column, rendered."""
    args = {k: v for k, v in generator.items() if k != "generate"}
    args.setdefault("path", name)
    try:
        spec = InputFile(kind=generator["generate"], **args)
    except Exception as exc:  # pydantic ValidationError → one clear line
        raise InputError(f"{name}: bad generator {generator.get('generate')!r}: {exc}") from exc
    return render(spec, task_dir)


def write_inputs(specs: list[InputFile], task_dir: Path | None, out_dir: Path,
                 modified: datetime | None = None) -> list[Path]:
    """Write the input files under ``out_dir``; with ``modified`` (the sandbox clock's
    start), each file's modification time is that moment, so a file chooser lists the same
    dates in every run rather than the machine's time of seeding."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in specs:
        target = out_dir / spec.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(render(spec, task_dir))
        if modified is not None:
            stamp = modified.timestamp()
            os.utime(target, (stamp, stamp))
        written.append(target)
    return written


def iso_date(value: Any) -> str:
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return str(value)
