"""The sandbox's YAML reader (libyaml when PyYAML has it) gives the pure-Python parser's
data for every YAML file the project ships, and the same errors' lines."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sandbox import yamltext
from sandbox.paths import FIXTURES_DIR

FILES = sorted(p for pattern in ("*.yaml", "*.yml") for p in FIXTURES_DIR.rglob(pattern))


def test_libyaml_is_what_the_installer_gives():
    # PyYAML's wheels bundle libyaml; without it every start parses its seeds 10x slower
    assert yamltext.SAFE_LOADER is yaml.CSafeLoader


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES_DIR)))
def test_every_fixture_reads_as_the_pure_python_parser_reads_it(path: Path):
    text = path.read_text()
    assert yamltext.safe_load(text) == yaml.safe_load(text)


def test_the_node_tree_gives_the_lines_of_keys():
    node = yamltext.compose("a: 1\nb:\n  - x\n  - y\n")
    assert isinstance(node, yaml.MappingNode)
    (_, _), (b_key, b_value) = node.value
    assert b_key.value == "b" and b_key.start_mark.line == 1
    assert [item.start_mark.line for item in b_value.value] == [2, 3]


def test_a_syntax_error_says_where():
    with pytest.raises(yaml.YAMLError) as caught:
        yamltext.safe_load("a: 1\nb: [unclosed\nc: 3\n")
    assert "line" in str(caught.value)
