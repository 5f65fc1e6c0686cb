"""The fax service's outbound line: moves sent jobs along their transmission plan.

Each queued or sending job follows :func:`portal_web.fax.transmission.transmission_plan`;
:meth:`FaxTransmitter.process` writes every step that is due on the sandbox clock (status,
then delivery or failure) and, on delivery, hands the job to the sink
(:mod:`portal_web.fax.sink`). Those writes are the fax system's, not the user's: channel
``fax``, actor ``fax-server``, in the episode of the session that sent the job.

``process`` runs whenever a page of the service is shown, so a job's status is current
whenever the user looks; while the episode's clock runs, a background thread also runs it
until no job is left in flight, so a fax is delivered even if nobody looks again.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime
from pathlib import Path

from sqlalchemy import select

from portal_web.common.episode import EpisodeStores
from portal_web.common.sessions import Principal
from portal_web.fax.sink import received_pdf, received_row, sink_path, write_sink_file
from portal_web.fax.transmission import (
    UNLISTED,
    LineEvent,
    failure_reason,
    state_at,
    transmission_plan,
)
from sandbox.clock import ClockError, SandboxClock
from sandbox.stores.fax import FaxAccount, FaxDocument, FaxJob, FaxNumber

log = logging.getLogger("portal_web.fax")

SYSTEM = "fax"
FAX_SERVER = Principal(username="fax-server", user_id=0, display_name="Beta Care fax server",
                       channel="fax")
IN_FLIGHT = ("queued", "sending")
MAX_WAIT_S = 1.0


def confirmation_id(job_id: int, sent_at: datetime) -> str:
    """``FX-MMDD-NNNNNN`` (fixtures/world/fax.yaml)."""
    return f"FX-{sent_at:%m%d}-{4200 + job_id:06d}"


def plan_for(job: FaxJob, line: FaxNumber | None) -> list[LineEvent]:
    """The transmission plan of a sent job to the line its number reaches."""
    behaviour = line.line_behaviour if line is not None else UNLISTED
    return transmission_plan(job.sent_at, job.page_count, behaviour, number=job.to_number,
                             remote_csid=line.remote_csid if line is not None else "")


class FaxTransmitter:
    """Persists the due steps of every job in flight (thread-safe)."""

    def __init__(self, stores: EpisodeStores, run_dir: Path):
        self.stores = stores
        self.run_dir = Path(run_dir)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # -- one pass ------------------------------------------------------------------------
    def process(self) -> datetime | None:
        """Write every step due by now; return when the next step falls due (or None when
        no job is in flight)."""
        with self._lock:
            now = self.stores.now()
            with self.stores.reader(SYSTEM) as db:
                jobs = list(db.scalars(select(FaxJob).where(FaxJob.status.in_(IN_FLIGHT))
                                       .order_by(FaxJob.id)))
                lines = {n.digits: n for n in db.scalars(select(FaxNumber))}
            upcoming: datetime | None = None
            for job in jobs:
                plan = plan_for(job, lines.get(job.to_digits))
                state = state_at(plan, now)
                due = next((e.at for e in plan if e.at > now), None)
                if due is not None:
                    upcoming = due if upcoming is None else min(upcoming, due)
                if state.status == job.status:
                    continue
                if state.status == "delivered":
                    self._deliver(job.id, state.at)
                else:
                    self._set_status(job.id, state, plan)
            return upcoming

    def _set_status(self, job_id: int, state: LineEvent, plan: list[LineEvent]) -> None:
        with self.stores.writer(SYSTEM, FAX_SERVER) as db:
            job = db.get(FaxJob, job_id)
            if job is None or job.status not in IN_FLIGHT:
                return
            job.status = state.status
            if state.status == "failed":
                job.failure_reason = failure_reason(plan)

    def _deliver(self, job_id: int, at: datetime) -> None:
        """The sink receives the job: its PDF in ``fax_sink/`` and ``received_faxes``."""
        written = None
        try:
            with self.stores.writer(SYSTEM, FAX_SERVER) as db:
                job = db.get(FaxJob, job_id)
                if job is None or job.status not in IN_FLIGHT:
                    return
                account = db.get(FaxAccount, job.account_id)
                documents = list(db.scalars(select(FaxDocument)
                                            .where(FaxDocument.job_id == job.id)))
                data = received_pdf(job, documents, account)
                written = write_sink_file(self.run_dir, job, data)
                job.status = "delivered"
                job.delivered_at = at
                db.add(received_row(job, data, at))
        except BaseException:
            if written is not None:
                written.unlink(missing_ok=True)
            raise

    # -- background ----------------------------------------------------------------------
    def clock_running(self) -> bool:
        try:
            return SandboxClock.load(self.stores.settings.clock_path).running
        except ClockError:
            return False

    def wake(self) -> None:
        """Keep jobs moving without page views while the sandbox clock runs."""
        if not self.clock_running():
            return
        if self._thread is not None and self._thread.is_alive():
            return
        self._thread = threading.Thread(target=self._run, name="fax-transmitter", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                upcoming = self.process()
                failures = 0
            except Exception:  # noqa: BLE001 - logged; a locked database is retried
                failures += 1
                log.exception("fax transmitter pass failed (%d in a row)", failures)
                if failures >= 5:
                    return
                self._stop.wait(MAX_WAIT_S)
                continue
            if upcoming is None or not self.clock_running():
                return
            wait = (upcoming - self.stores.now()).total_seconds()
            self._stop.wait(min(MAX_WAIT_S, max(0.05, wait)))

    def stop(self) -> None:
        self._stop.set()


__all__ = ["FAX_SERVER", "FaxTransmitter", "confirmation_id", "plan_for", "sink_path"]
