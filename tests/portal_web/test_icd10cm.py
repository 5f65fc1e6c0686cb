"""The portals' ICD-10-CM index: the library's answers, from a cache file a portal loads
without importing the library."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
import simple_icd_10_cm as cm

from portal_web.common import icd10cm

EDGES = ["E11.9", "E119", "e11.9", "E11", "E08-E13", "M51.16", "M5116", "S72.001A",
         "S72001A", "Z99.99", "A00.0X", "A0", "X", "", "E83.42", "J01.90", "1-A00"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EHR_SANDBOX_CACHE", str(tmp_path / "cache"))
    icd10cm.codes.cache_clear()
    yield tmp_path / "cache"
    icd10cm.codes.cache_clear()


def same_as_library(codes):
    for code in codes:
        valid = cm.is_valid_item(code)
        assert icd10cm.is_valid(code) == valid, code
        if valid:
            assert icd10cm.description(code) == cm.get_description(code), code
            assert icd10cm.is_leaf(code) == cm.is_leaf(code), code
        else:
            assert icd10cm.description(code) is None and not icd10cm.is_leaf(code), code
            assert icd10cm.add_dot(code) is None, code


def test_the_index_answers_as_the_library_does_and_is_made_once(cache):
    names = cm.get_all_codes(with_dots=True)
    sample = random.Random(7).sample(names, 3000)
    same_as_library(EDGES + sample + [n.replace(".", "") for n in sample])
    for code in ["E119", "M5116", "S72001A", "E08-E13", *random.Random(8).sample(names, 40)]:
        assert icd10cm.add_dot(code) == cm.add_dot(code), code  # the library's is O(n)
    assert icd10cm.billable() == [(n, cm.get_description(n)) for n in names if cm.is_leaf(n)]
    made = icd10cm.cache_file()
    assert made.is_file() and made.is_relative_to(cache)
    assert not list(made.parent.glob("*.partial"))


def test_a_portal_process_reads_the_cache_without_the_library(cache):
    icd10cm.codes()  # made here
    probe = ("import json, sys\n"
             "from portal_web.common import icd10cm, forms\n"
             "print(json.dumps([icd10cm.is_leaf('E83.42'), forms.icd10cm_description('J01.90'),"
             " 'simple_icd_10_cm' in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env={**os.environ, "EHR_SANDBOX_CACHE": str(cache)}, timeout=60,
                         check=True)
    leaf, description, library_loaded = json.loads(out.stdout)
    assert leaf is True and description == cm.get_description("J01.90")
    assert library_loaded is False  # the 2.3 CPU-s parse of the library's XML is skipped


def test_a_damaged_or_foreign_cache_file_is_made_again(cache):
    path = icd10cm.cache_file()
    path.parent.mkdir(parents=True)
    for junk in (b"", b"\x00garbage", __import__("marshal").dumps(("a", "b"))):
        path.write_bytes(junk)
        icd10cm.codes.cache_clear()
        assert icd10cm.description("E11.9") == cm.get_description("E11.9")
        assert path.stat().st_size > 1_000_000  # rewritten whole


def test_a_cache_that_cannot_be_written_costs_time_not_answers(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("EHR_SANDBOX_CACHE", str(blocker))
    icd10cm.codes.cache_clear()
    try:
        assert icd10cm.is_leaf("E11.9") and not icd10cm.is_leaf("E11")
        assert not icd10cm.cache_file().exists()
    finally:
        icd10cm.codes.cache_clear()
