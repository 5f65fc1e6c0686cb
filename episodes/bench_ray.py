"""The Ray backend of a bench (``ehr-sandbox bench … --backend ray``): each episode a Ray task.

A task needs one unit of the custom resource :data:`SLOT` (``ehr_episode_slot``), which every
node advertises sized from its cores and memory (:func:`episode_slots`; ``ray start
--resources "$(python -m episodes.bench_ray resources)"``), so no node takes more episodes
than it can run. On its node a task runs the very child process of the local bench
(``python -m episodes.bench_jobs job …``) in a scratch folder, then sends the whole run
folder back through the object store as a tar archive (or copies it under a shared
``--artifacts`` folder); the driver unpacks it into ``<out>/runs/<job>`` and writes the row
into the same ``results.jsonl``/``results.csv``/``report.html`` as the local bench.

A task whose worker or node dies (a system error, not the episode's own failure) is
submitted once more — Ray places it on a node that is alive — and its row says
``retries: 1``. Ctrl-C cancels every task: a running one stops its child's process group
(the episode stops Xvfb, Chromium and its apps) before it ends. Model credentials travel
through the object store (one ``ray.put`` of the driver's, handed to each task) into the
child's environment: never on a command line, in a file or in Ray's runtime environment,
which Ray's runtime-env agent writes into its log; the driver checks that no artefact
holds one of their values.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from episodes.agents import AgentSpec
from episodes.episode import EpisodeConfig
from episodes.jobs import Job, failed_row, job_argv, job_row, job_timeout
from episodes.runner import RunnerError

SLOT = "ehr_episode_slot"
EPISODES_PER_CORE = 2      # an episode mostly waits on pages: ~4 fit a 2-core machine
GIB_PER_EPISODE = 0.75     # Xvfb + Chromium + the apps + the job, measured ~0.5-0.7 GiB
GIB_RESERVED = 1.5         # the OS and Ray's own processes
INSTALL_HINT = "--backend ray needs Ray: pip install -e '.[ray]'"
CREDENTIAL = re.compile(r"(_API_KEY|_API_TOKEN|_AUTH_TOKEN|_SECRET_KEY)$|"
                        r"^(ANTHROPIC|OPENAI|GEMINI|GOOGLE_API|AZURE_OPENAI|MISTRAL)_")


def episode_slots(cores: int | None = None, mem_bytes: int | None = None) -> int:
    """Episodes one node runs at once: ``max(1, min(2 × cores, ⌊(GiB − 1.5) / 0.75⌋))``;
    ``EHR_EPISODE_SLOTS`` overrides it."""
    if os.environ.get("EHR_EPISODE_SLOTS", "").isdigit():
        return max(1, int(os.environ["EHR_EPISODE_SLOTS"]))
    cores = cores or os.cpu_count() or 1
    if mem_bytes is None:
        mem_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    by_memory = int((mem_bytes / 2**30 - GIB_RESERVED) // GIB_PER_EPISODE)
    return max(1, min(EPISODES_PER_CORE * cores, by_memory))


def import_ray() -> Any:
    """Ray, or a :class:`RunnerError` saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise RunnerError(INSTALL_HINT) from exc
    return ray


def credentials(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The model credentials of this environment (handed to the nodes' episodes)."""
    environ = dict(os.environ if environ is None else environ)
    return {k: v for k, v in environ.items() if CREDENTIAL.search(k) and v}


# -- on the node ------------------------------------------------------------------------------
def run_on_node(job: Job, agent: AgentSpec, tasks_dirs: list[str], config_json: str | None,
                artifacts: str | None, bench_id: str, attempt: int,
                secrets: dict[str, str] | None = None) -> dict[str, Any]:
    """One episode on this node: the bench's child process in a scratch folder (with the
    driver's model credentials ``secrets`` in its environment), its run folder packed (or
    copied to ``artifacts``); stops the child if cancelled."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    root = os.environ.get("EHR_RAY_SCRATCH") or Path(tempfile.gettempdir()) / "ehr-sandbox-ray"
    scratch = Path(root) / f"{bench_id}.{job.key}.{node[:12]}.{attempt}"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    run_dir = scratch / job.key
    config = EpisodeConfig.model_validate_json(config_json) if config_json else None
    argv = job_argv(job, agent, run_dir, [Path(d) for d in tasks_dirs],
                    config)
    log_path = scratch / "job.log"
    secrets = dict(secrets or {})
    started = time.monotonic()
    try:
        with open(log_path, "wb") as log_file:
            log_file.write(f"ray: attempt {attempt + 1} on node {node}; credentials from the "
                           f"driver: {', '.join(sorted(secrets)) or 'none'}\n".encode())
            log_file.flush()
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log_file,
                                    start_new_session=True, env={**os.environ, **secrets})
            try:
                stdout, _ = proc.communicate(timeout=job_timeout(agent))
            except BaseException:  # cancelled (KeyboardInterrupt), timed out, dying
                _stop_group(proc)
                if not isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
                    raise
                stdout = b""
        row = job_row(job, stdout, proc.returncode, run_dir, time.monotonic() - started,
                      log_path)
        row["node_run_dir"] = str(run_dir)
        result: dict[str, Any] = {"row": row, "log": log_path.read_bytes()}
        if artifacts:
            target = Path(artifacts) / bench_id / f"{job.key}.{attempt}"
            shutil.rmtree(target, ignore_errors=True)
            if run_dir.exists():
                shutil.copytree(run_dir, target, symlinks=True)
            result["shared"] = str(target)
        else:
            result["archive"] = _pack(run_dir)
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _stop_group(proc: subprocess.Popen, grace: float = 25.0) -> None:
    """SIGTERM the child's process group (the episode stops itself), SIGKILL after a grace."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _pack(folder: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as tar:
        if folder.exists():
            tar.add(folder, arcname=".")
    return buf.getvalue()


# -- the driver -------------------------------------------------------------------------------
def connect(address: str | None) -> Any:
    """``ray.init``: a cluster at ``address`` (``auto``, ``ray://HOST:PORT``, ``HOST:PORT``), or
    a local one whose node advertises :func:`episode_slots`."""
    ray = import_ray()
    check_address(address)
    kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if address and address.startswith("ray://"):
        kwargs = {}  # what a Ray Client connection accepts
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(resources={SLOT: episode_slots()}, include_dashboard=False, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise RunnerError(f"cannot reach the Ray cluster at {address}: "
                          f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                          ) from exc
    if not ray.cluster_resources().get(SLOT):
        ray.shutdown()
        raise RunnerError(f"no node of the Ray cluster at {address} advertises the {SLOT} "
                          "resource; start nodes with ray start --resources \"$(python -m "
                          "episodes.bench_ray resources)\"")
    return ray


def check_address(address: str | None, timeout: float = 5.0) -> None:
    """A ``HOST:PORT`` or ``ray://HOST:PORT`` that does not answer is an error at once (Ray
    itself waits minutes)."""
    if not address or address == "auto":
        return
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise RunnerError(f"--address {address!r}: use auto, ray://HOST:PORT or HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout).close()
    except OSError as exc:
        raise RunnerError(f"cannot reach the Ray cluster at {address}: {exc}") from exc


async def bench_ray(todo: list[Job], agent: AgentSpec, out: Path, *, tasks_dirs: list[Path],
                    config: EpisodeConfig | None, address: str | None,
                    artifacts: Path | None, parallel: int | None,
                    write_row: Callable[[Job, dict[str, Any]], None],
                    on_start: Callable[[Job], None] | None = None) -> None:
    """Run ``todo`` as Ray tasks; ``write_row`` gets each row as it comes back."""
    ray = connect(address)  # in this thread: Ray sets its signal handlers here
    remote = ray.remote(run_on_node).options(num_cpus=0, resources={SLOT: 1}, max_retries=0)
    bench_id = f"{os.getpid()}-{int(time.time())}"
    held = credentials()
    secrets = set(held.values())
    held_ref = ray.put(held)  # resolved into each task's ``secrets`` argument
    queue = list(todo)
    pending: dict[Any, tuple[Job, int, float]] = {}

    def submit(job: Job, attempt: int) -> None:
        ref = remote.remote(job, agent, [str(d.resolve()) for d in tasks_dirs],
                            config.model_dump_json() if config else None,
                            str(artifacts.resolve()) if artifacts else None, bench_id,
                            attempt, held_ref)
        pending[ref] = (job, attempt, time.monotonic())
        if on_start and attempt == 0:
            on_start(job)

    try:
        while queue or pending:
            while queue and (parallel is None or len(pending) < parallel):
                submit(queue.pop(0), 0)
            ready, _ = await asyncio.to_thread(ray.wait, list(pending), num_returns=1,
                                               timeout=0.5)
            for ref in ready:
                job, attempt, started = pending.pop(ref)
                try:
                    result = await asyncio.to_thread(ray.get, ref)
                except ray.exceptions.RayTaskError as exc:  # raised by our own code
                    result = {"row": failed_row(job, out / "runs" / job.key,
                                                time.monotonic() - started, str(exc)[-1500:])}
                except ray.exceptions.RayError as exc:  # the worker or its node died
                    if attempt == 0:
                        submit(job, 1)
                        continue
                    result = {"row": failed_row(job, out / "runs" / job.key,
                                                time.monotonic() - started,
                                                f"the node died twice: {exc}"[:1500])}
                row = await asyncio.to_thread(_receive, result, job, out, secrets)
                row["agent"] = str(agent)
                row["retries"] = attempt
                row["wall_s"] = round(time.monotonic() - started, 3)
                write_row(job, row)
    except (asyncio.CancelledError, KeyboardInterrupt):
        await asyncio.shield(asyncio.to_thread(_cancel_all, ray, list(pending)))
        raise
    finally:
        await asyncio.to_thread(ray.shutdown)
        if artifacts:  # every run folder was moved out of it
            with contextlib.suppress(OSError):
                (artifacts / bench_id).rmdir()


def _receive(result: dict[str, Any], job: Job, out: Path, secrets: set[str]
             ) -> dict[str, Any]:
    """Unpack a task's run folder into ``<out>/runs/<job>``; the row's paths point there."""
    row = dict(result["row"])
    run_dir = out / "runs" / job.key
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    if "archive" in result:
        with tarfile.open(fileobj=io.BytesIO(result["archive"]), mode="r:gz") as tar:
            tar.extractall(run_dir, filter="tar")
    elif result.get("shared") and Path(result["shared"]).exists():
        shutil.move(result["shared"], run_dir)
    if "log" in result:
        (out / "runs" / f"{job.key}.log").write_bytes(result["log"])
    old = row.pop("node_run_dir", None)
    if old:
        row = json.loads(json.dumps(row).replace(json.dumps(old)[1:-1],
                                                 json.dumps(str(run_dir.resolve()))[1:-1]))
    row["run_dir"] = str(run_dir)
    leaked = _files_holding(out / "runs", job.key, secrets)
    if leaked:
        for path in leaked:
            path.unlink()
        row["error"] = ((row.get("error") or "") + f" a model credential was found in "
                        f"{', '.join(p.name for p in leaked)}; removed").strip()
    return row


def _files_holding(runs: Path, key: str, secrets: set[str]) -> list[Path]:
    needles = [s.encode() for s in secrets if len(s) >= 8]
    if not needles:
        return []
    paths = [runs / f"{key}.log", *(p for p in (runs / key).rglob("*") if p.is_file())]
    found = []
    for path in paths:
        with contextlib.suppress(OSError):
            data = path.read_bytes()
            if any(n in data for n in needles):
                found.append(path)
    return found


def _cancel_all(ray: Any, refs: list[Any], grace: float = 40.0) -> None:
    """Cancel every task: a running one stops its episode; force what is left after a grace."""
    for ref in refs:
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=False)
    with contextlib.suppress(Exception):
        ray.wait(refs, num_returns=len(refs), timeout=grace)
    for ref in refs:
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["resources"]:
        print(json.dumps({SLOT: episode_slots()}))
        sys.exit(0)
    print("usage: python -m episodes.bench_ray resources   (this node's episode slots as "
          "ray start --resources JSON)", file=sys.stderr)
    sys.exit(2)
