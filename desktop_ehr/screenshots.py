"""Screenshots of both personas for the docs, taken from the real client on its own Xvfb.

``python -m desktop_ehr.screenshots --out docs/screenshots`` seeds the task each picture
needs, starts a 1280x800 display (``pixel_stream.display.Display``), runs the client in a
child process that drives itself to the scene (log-in, chart, activity, dialog), and grabs
the whole display with mss, so dialogs over the main window are in the picture.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCENES = {  # file name: (persona, task alias, MRN)
    "desktop-hyperspace-workspace.png": ("hyperspace", "ord-06", "E1006102"),
    "desktop-hyperspace-order-composer.png": ("hyperspace", "ord-20", "E1006930"),
    "desktop-powerchart-medrec.png": ("powerchart", "ord-07", "7004417"),
    "desktop-powerchart-orders-for-signature.png": ("powerchart", "ord-12", "7004528"),
    "desktop-hyperspace-order-set.png": ("hyperspace", "ord-06", "E1006102"),
    "desktop-hyperspace-discharge-navigator.png": ("hyperspace", "ord-10", "E1006577"),
    "desktop-powerchart-documents.png": ("powerchart", "ord-17", "7004639"),
}
MAX_BYTES = 300_000


def _scene(name: str, run_dir: Path, out: Path) -> None:
    """Runs inside the child (DISPLAY set): drive the client to the scene and capture it."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_ehr.app import LaunchOptions, build
    from desktop_ehr.services.chart import search_patients
    from desktop_ehr.services.orders import ScaleBand, draft_for
    from desktop_ehr.widgets.order_composer import OrderComposer

    persona, _alias, mrn = SCENES[name]
    app = QApplication.instance() or QApplication([])
    app.setCursorFlashTime(0)
    window, _ = build(LaunchOptions(persona, run_dir))
    window.fill_screen()
    window.show()
    user = {"hyperspace": ("EPICTRN01", "Hyperspace#2026"),
            "powerchart": ("PCTRAIN01", "PowerChart#2026")}[persona]
    window.login.username.setText(user[0])
    window.login.password.setText(user[1])
    window.login.attempt()
    pid = next(r.id for r in search_patients(window.ctx, mrn) if r.mrn == mrn)
    chart = window.shell.open_patient(pid)
    workspace = window.shell.charts[pid][1]
    ref = chart.ref
    if name == "desktop-hyperspace-workspace.png":
        workspace.activities.select("Chart Review")
        review = workspace.activities.pages.currentWidget()
        review.setCurrentIndex(2)  # Labs
    elif name == "desktop-hyperspace-order-composer.png":
        workspace.activities.select("Orders")
        warfarin = draft_for(ref.orderables[112], chart.ctx.now(), ref)
        chart.pending.add(warfarin)
        draft = draft_for(ref.orderables[110], chart.ctx.now(), ref)
        dialog = OrderComposer(ref.orderables[110], draft, ref, chart.summary,
                               chart.ctx.today, chart.vocab, window)
        dialog.findChild(type(dialog.accept_button), "composer.sentence.3").click()
        dialog.findChild(type(dialog.accept_button), "composer.weightCalc").click()
        dialog.start.date_edit.setText("10/23/2026")
        dialog.start.time_edit.setText("08:00")
        dialog.stop.date_edit.setText("10/25/2026")
        dialog.stop.time_edit.setText("08:00")
        dialog._fields["comments"].setText("Bridging per anticoagulation protocol")
        dialog.show()
    elif name == "desktop-powerchart-medrec.png":
        workspace.select("Medication Reconciliation")
        page = workspace.pages.currentWidget()
        for row, action in enumerate(("continue", "continue", "continue")):
            page.model.choose(row, action)
        page.model.set_change(3, 10, "mg", "PO", "DAILY")
        page.model.choose(5, "discontinue")
        page.model.set_hold(7, "Hold until surgery (bleeding risk)")
    elif name == "desktop-powerchart-orders-for-signature.png":
        workspace.select("Orders")
        lispro = draft_for(ref.orderables[120], chart.ctx.now(), ref)
        lispro.scale = [ScaleBand(150, 199, 2), ScaleBand(200, 249, 4),
                        ScaleBand(250, 299, 6), ScaleBand(300, 349, 8),
                        ScaleBand(350, 399, 10), ScaleBand(400, None, 12)]
        lispro.hold_parameters = "hold if NPO and BG<150"
        chart.pending.add(lispro)
        chart.pending.add(draft_for(ref.orderables[123], chart.ctx.now(), ref))
        chart.pending.add(draft_for(ref.orderables[127] if 127 in ref.orderables
                                    else ref.orderables[209], chart.ctx.now(), ref))
        workspace.orders.pending_panel.table.selectRow(0)
    elif name == "desktop-hyperspace-order-set.png":
        from desktop_ehr.models.order_set import OrderSetModel
        from desktop_ehr.services.order_sets import load_order_set
        from desktop_ehr.widgets.order_set_dialog import OrderSetDialog

        workspace.activities.select("Orders")
        model = OrderSetModel(load_order_set(chart.ctx, 1), ref, chart.ctx.now())
        for item_id in (12, 25, 26):
            model.toggle(item_id)
        for item_id in (13, 17, 21):
            model.toggle(item_id)
        dialog = OrderSetDialog(model, lambda d: None, chart.vocab, window)
        dialog.tree.setCurrentIndex(model.line_for(13).index())
        dialog.show()
    elif name == "desktop-hyperspace-discharge-navigator.png":
        workspace.activities.select("Navigators")
        nav = workspace.activities.pages.currentWidget().widget(0)
        nav.sections.setCurrentRow(2)
        page = nav.medrec
        page.model.set_change(0, 40, "mg", "PO", "DAILY")
        page.model.choose(1, "stop")
        for row in (2, 3, 4):
            page.model.choose(row, "continue")
        page.model.choose(5, "new")
    elif name == "desktop-powerchart-documents.png":
        workspace.select("Documentation")
        page = workspace.documents
        page.inbox.selectRow(1)  # a scan (row 0 is a fax with a text layer)
        page._view(page.inbox_model.index(1, 0))
    loop = QEventLoop()
    QTimer.singleShot(1500, loop.quit)  # let the X server composite every window
    loop.exec()
    import mss
    from PIL import Image

    with mss.mss() as grabber:
        shot = grabber.grab(grabber.monitors[1])
        image = Image.frombytes("RGB", shot.size, shot.rgb)
    save_small(image, out)
    window.ctx.close()


def save_small(image, out: Path) -> None:
    """PNG under MAX_BYTES: lossless when it fits, else an adaptive 256-colour palette."""
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, optimize=True)
    if out.stat().st_size > MAX_BYTES:
        image.quantize(colors=256, method=2).save(out, optimize=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m desktop_ehr.screenshots")
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--only", choices=sorted(SCENES), default=None)
    parser.add_argument("--scene", choices=sorted(SCENES), help=argparse.SUPPRESS)
    parser.add_argument("--run-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scene:  # the child
        _scene(args.scene, args.run_dir, args.out)
        return 0
    from pixel_stream.display import Display
    from sandbox.catalog import load_catalog
    from sandbox.seeding import seed_task

    names = [args.only] if args.only else list(SCENES)
    with tempfile.TemporaryDirectory(prefix="ehr-shots-") as tmp:
        for name in names:
            _persona, alias, _mrn = SCENES[name]
            run_dir = seed_task(load_catalog().get(alias), None, Path(tmp) / name)
            with Display(1280, 800) as display:
                env = display.env()
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path.cwd()),
                                                                  env.get("PYTHONPATH")]))
                subprocess.run([sys.executable, "-m", "desktop_ehr.screenshots", "--scene",
                                name, "--run-dir", str(run_dir), "--out",
                                str(args.out / name)], env=env, check=True, timeout=120)
            print(f"{args.out / name}: {(args.out / name).stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
