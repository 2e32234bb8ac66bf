"""The process-pool recipe of docs/python.md, read from the document and run as written:
6,000 rows scored by two worker processes give what one `evaluate` gives."""

from __future__ import annotations

import importlib
import json
import re
import sys

import prompty_toolkit as pt
from conftest import REPO


def recipe_source(name: str) -> str:
    doc = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- recipe: {name} -->\n```python\n(.*?)```", doc, re.S)
    assert found, f"docs/python.md has no `<!-- recipe: {name} -->` python block"
    return found.group(1)


def test_process_pool_recipe(tmp_path, monkeypatch):
    module = tmp_path / "recipe_process_pool.py"
    module.write_text(recipe_source("process-pool"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    recipe = importlib.import_module("recipe_process_pool")

    prompt_path = REPO / "prompts" / "coherence.prompty"
    data = REPO / "prompts" / "data"
    rows = [json.loads(line) for line in (data / "coherence.rows.jsonl").read_text(encoding="utf-8").splitlines()]
    answers = [json.loads(line) for line in (data / "coherence.answers.jsonl").read_text(encoding="utf-8").splitlines()]
    rows, answers = rows * 2000, [json.dumps(a) for a in answers] * 2000
    assert len(rows) == 6000

    got = recipe.score_in_processes(prompt_path, rows, answers, workers=2, chunk_size=1000)
    expected = pt.evaluate(pt.load(prompt_path), rows, answers)
    assert got == expected
    assert {r["coherence_result"] for r in got} == {"pass", "fail"}
    sys.modules.pop("recipe_process_pool", None)
