"""The synthetic world's roster: identifiers valid, unique, and look-alikes that can fool."""

from collections import Counter

import pytest
import yaml
from stdnum import luhn

from sandbox.paths import WORLD_DIR

ROSTER = yaml.safe_load((WORLD_DIR / "roster.yaml").read_text())
PATIENTS = ROSTER["patients"]


def npis():
    found = [ROSTER["facility"]["npi"], ROSTER["hospital"]["npi"]]
    for group in ("providers", "labs", "pharmacies"):
        found += [p["npi"] for p in ROSTER[group]]
    return found


@pytest.mark.parametrize("npi", npis())
def test_every_npi_has_a_valid_check_digit(npi):
    assert len(npi) == 10 and npi[0] in "12"
    assert luhn.is_valid("80840" + npi)


def test_identifiers_are_unique():
    for field in ("key", "ehr_mrn", "hyperspace_mrn", "powerchart_mrn", "fin", "member_id"):
        values = [p[field] for p in PATIENTS if field in p]
        dupes = [v for v, n in Counter(values).items() if n > 1]
        assert not dupes, f"duplicate {field}: {dupes}"


def test_every_patient_lives_in_exactly_one_clinical_system():
    for p in PATIENTS:
        systems = [f for f in ("ehr_mrn", "hyperspace_mrn", "powerchart_mrn") if f in p]
        assert len(systems) == 1, p["key"]


def test_lookalikes_really_look_alike():
    by_key = {p["key"]: p for p in PATIENTS}
    lookalikes = [p for p in PATIENTS if "lookalike_of" in p]
    assert len(lookalikes) >= 10
    for p in lookalikes:
        twin = by_key[p["lookalike_of"]]
        same_birthday = p["dob"] == twin["dob"]
        same_name = (p["lname"], p["fname"]) == (twin["lname"], twin["fname"])
        similar_name = p["lname"][:4] == twin["lname"][:4]
        mrn, twin_mrn = _mrn(p), _mrn(twin)
        close_mrn = len(mrn) == len(twin_mrn) and sum(
            a != b for a, b in zip(mrn, twin_mrn, strict=False)) <= 2
        assert same_birthday or same_name or close_mrn, p["key"]
        assert similar_name, p["key"]


def _mrn(p):
    return p.get("ehr_mrn") or p.get("hyperspace_mrn") or p.get("powerchart_mrn")


def test_named_seed_patients_exist():
    names = {(p["lname"], p["fname"]) for p in PATIENTS}
    for name in [("Alvarez", "Tomas"), ("Brooks", "Lena"), ("Kim", "Daniel"), ("Patel", "Ravi"),
                 ("Ross", "Hannah"), ("Moreno", "Luis"), ("Nash", "Erin"), ("Yu", "Grace"),
                 ("Diaz", "Marco"), ("Fischer", "Anna"), ("Owens", "Carla"), ("Hughes", "Ben"),
                 ("Silva", "Ana"), ("Becker", "Tom"), ("Turner", "Joy"), ("Test", "Walter"),
                 ("Test", "Ivy"), ("Test", "Nora"), ("Test", "Frank"), ("Zztest", "Rosa"),
                 ("Zztest", "Ahmed"), ("Zztest", "Helen")]:
        assert name in names
    mrns = {p.get("ehr_mrn") or p.get("hyperspace_mrn") for p in PATIENTS}
    for mrn in ["402015", "402108", "402233", "402301", "402377", "402480", "402512", "402600",
                "402655", "402711", "402790", "402844", "E1006102", "E1006577", "E1006820",
                "E1006930"]:
        assert mrn in mrns


def test_members_belong_to_a_plan_of_their_payer():
    plans = {pl["key"]: payer["key"] for payer in ROSTER["payers"] for pl in payer["plans"]}
    for p in PATIENTS:
        if "payer" in p:
            assert plans[p["plan"]] == p["payer"], p["key"]
            prefix = {"acme": "ACM", "beta": "BTC"}[p["payer"]]
            assert p["member_id"].startswith(prefix)


def test_named_providers_exist():
    names = {p["name"] for p in ROSTER["providers"]}
    assert "Dr. Test Grant" in names and "Dr. Test Cardio" in names
