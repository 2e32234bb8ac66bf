"""Every shared azure-eval case rendered through the package, compared with the messages
promptflow-core 1.18.5 builds (azure-eval/expected): the same values, and the same JSON text
byte for byte when written the way the expected files are."""

from __future__ import annotations

import json

import pytest

import prompty_toolkit as pt
from conftest import AZURE_EVAL, require_dir


def cases():
    inputs = require_dir(AZURE_EVAL / "inputs")
    return sorted(p.stem for p in inputs.glob("*.json"))


def test_the_suite_has_every_case():
    assert len(cases()) == 46


@pytest.mark.parametrize("case", cases())
def test_renders_like_promptflow(case):
    version, evaluator, file, _scenario = case.split("__", 3)
    prompt = pt.load(AZURE_EVAL / "prompts" / f"{version}__{evaluator}__{file}.prompty")
    inputs = json.loads((AZURE_EVAL / "inputs" / f"{case}.json").read_text(encoding="utf-8"))
    expected_text = (AZURE_EVAL / "expected" / f"{case}.json").read_text(encoding="utf-8")
    messages = prompt.render(inputs)
    assert messages == json.loads(expected_text)
    assert json.dumps(messages, indent=2, ensure_ascii=False) + "\n" == expected_text
