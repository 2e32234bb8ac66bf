"""The package renders what the command line tool renders: for every shared azure-eval case,
`Prompt.render(inputs, format="prompty")` equals `prompty render --format json`, and the
OpenAI form `render` returns by default is the `messages` of the request `prompty` compiles."""

from __future__ import annotations

import json
import subprocess

import pytest

import prompty_toolkit as pt
from conftest import AZURE_EVAL, prompty_binary, require_dir


def cases():
    return sorted(p.stem for p in require_dir(AZURE_EVAL / "inputs").glob("*.json"))


@pytest.mark.parametrize("case", cases())
def test_render_equals_the_cli(case):
    version, evaluator, file, _scenario = case.split("__", 3)
    path = AZURE_EVAL / "prompts" / f"{version}__{evaluator}__{file}.prompty"
    inputs_path = AZURE_EVAL / "inputs" / f"{case}.json"
    out = subprocess.run(
        [str(prompty_binary()), "render", str(path), "--inputs", str(inputs_path), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    inputs = json.loads(inputs_path.read_text(encoding="utf-8"))
    prompt = pt.load(path)
    assert prompt.render(inputs, format="prompty") == json.loads(out.stdout)
    # The OpenAI form is what compile puts in the request.
    assert prompt.compile(prompt.render(inputs), model="judge")["messages"] == prompt.render(inputs)
