"""pa-17: appeal only the denials still in window (30% deadlines; 50% correct appeal set;
20% log consistent; each an equal share over the nine claims)."""

from __future__ import annotations

import pytest

from sandbox.stores.acme import Appeal
from sandbox.stores.fax import FaxJob, fax_digits
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, sink_receives, spec_of

SPEC = spec_of("pa-17")
DEADLINES, SET, LOG = 0.30, 0.50, 0.20
# claim -> (deadline, acme claims.id / member or None for Beta, appealable)
CLAIMS = {
    "26196004102": ("2027-01-11", (1000, 19), True),
    "BC-26071583": ("2026-11-03", None, True),
    "26120003377": ("2026-10-27", (1001, 20), True),
    "26105002254": ("2026-10-19", (1002, 22), True),
    "BC-26064410": ("2026-10-12", None, False),
    "26097001981": ("2026-10-18", (1003, 23), False),
    "26060000845": ("2026-09-01", (1004, 25), False),
    "BC-26052216": ("2026-08-31", None, False),
    "26230005519": ("2027-02-21", (1005, 30), True),
}
OPEN = [c for c, (_, _, ok) in CLAIMS.items() if ok]
EXPIRED = [c for c in CLAIMS if c not in OPEN]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa17"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def reason(run: Run) -> str:
    text = run.input_bytes("appeal_template.txt").decode()
    return text.split("--- reason text ---")[1].split("--- end ---")[0].strip()


def file_appeals(run: Run, claims: list[str], *, to: str = "1-888-555-0177",
                 letter: str | None = None, **write) -> None:
    """Acme: the claim's 'Appeal this claim' form; Beta: a fax with the claim on the cover."""
    letter = reason(run) if letter is None else letter
    for n, claim in enumerate(claims):
        acme = CLAIMS[claim][1]
        if acme:
            with run.write("acme", actor="riverside.billing", **write) as s:
                s.add(Appeal(reference_number=f"AP26-0120{n:02d}", level=1, claim_id=acme[0],
                             member_id=acme[1], appeal_type="post_service",
                             letter_text=letter, status="submitted", created_at=NOW,
                             submitted_at=NOW))
            continue
        with run.write("fax", actor="riverside.fax", **write) as s:
            job = FaxJob(confirmation_id=f"FX-1019-0{n:05d}", account_id=1,
                         from_number="217-555-0199", to_number=to, to_digits=fax_digits(to),
                         cover_subject=f"Appeal of claim {claim}", cover_message=letter,
                         page_count=1, status="delivered", created_at=NOW, sent_at=NOW,
                         delivered_at=NOW)
            s.add(job)
            s.flush()
            job_id = job.id
        sink_receives(run, job_id, episode=write.get("episode"))


def write_log(run: Run, rows: dict[str, tuple[str, str]] | None = None) -> None:
    rows = rows or {c: (d, "appealed" if ok else "expired - not appealed")
                    for c, (d, _, ok) in CLAIMS.items()}
    lines = ["claim,deadline,action"] + [f"{c},{d},{a}" for c, (d, a) in rows.items()]
    run.output("appeal_log.csv", "\n".join(lines) + "\n")


def solve(run: Run) -> None:
    file_appeals(run, OPEN)
    write_log(run)


def test_gold_scores_one(run):
    solve(run)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_untouched_earns_only_the_expired_claims_left_alone(run):
    assert run.fractions() == [0.0, pytest.approx(4 / 9), 0.0]
    assert run.score() == pytest.approx(SET * 4 / 9)


def test_appealing_an_expired_claim_costs_its_share_twice(run):
    file_appeals(run, OPEN + ["26097001981"])      # expired by one day
    write_log(run)                                 # the log says it was not appealed
    assert run.score() == pytest.approx(DEADLINES + SET * 8 / 9 + LOG * 8 / 9)


def test_a_late_appeal_by_fax_costs_its_share_twice(run):
    """Beta's fax line takes an appeal of BC-26064410 (expired 10/12) like any other."""
    file_appeals(run, OPEN + ["BC-26064410"])
    write_log(run)
    report = run.grade()
    assert report.score == pytest.approx(DEADLINES + SET * 8 / 9 + LOG * 8 / 9)
    parts = {p["part"]: p for p in report.checks[1].evidence["parts"]}
    assert parts["BC-26064410"]["fraction"] == 0.0 and parts["BC-26064410"]["found"]


def test_a_beta_appeal_goes_to_the_number_in_its_bulletin(run):
    """Beta's Member Services line is not where its appeals bulletin sends appeals."""
    file_appeals(run, [c for c in OPEN if c != "BC-26071583"])
    file_appeals(run, ["BC-26071583"], to="1-888-555-0124")
    write_log(run)
    assert run.score() == pytest.approx(DEADLINES + SET * 8 / 9 + LOG)


def test_missing_appeal_logged_as_appealed(run):
    file_appeals(run, [c for c in OPEN if c != "26105002254"])   # the last-day claim
    write_log(run)
    assert run.score() == pytest.approx(DEADLINES + SET * 8 / 9 + LOG * 8 / 9)


def test_beta_appeal_to_the_pa_line_is_not_filed(run):
    file_appeals(run, [c for c in OPEN if c != "BC-26071583"])
    file_appeals(run, ["BC-26071583"], to="1-888-555-0142")
    write_log(run)
    assert run.score() == pytest.approx(DEADLINES + SET * 8 / 9 + LOG)


def test_appeal_without_the_template_text_is_half_filed(run):
    file_appeals(run, OPEN[:1], letter="Please reconsider.")
    file_appeals(run, OPEN[1:])
    write_log(run)
    assert run.score() == pytest.approx(DEADLINES + SET * (8.5 / 9) + LOG)


def test_wrong_deadline_costs_a_ninth(run):
    file_appeals(run, OPEN)
    rows = {c: (d, "appealed" if ok else "expired") for c, (d, _, ok) in CLAIMS.items()}
    rows["BC-26064410"] = ("2027-01-10", "expired")        # 180 days, Acme's window
    write_log(run, rows)
    assert run.score() == pytest.approx(DEADLINES * 8 / 9 + SET + LOG)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_appeals_of_another_channel_or_episode_do_not_count(run, write):
    file_appeals(run, OPEN, **write)
    write_log(run)
    report = run.grade()
    # the log is right about deadlines, but claims it appealed what was not filed
    assert report.score == pytest.approx(DEADLINES + SET * 4 / 9 + LOG * 4 / 9)
    assert {"appeals", "fax_jobs"} <= {e["table"] for e in report.channel["exclusions"]}
