"""The single-call scenarios of azure-ai-evaluation 1.18.10 (azure-eval/pipeline-1.18): the
judge prompt rendered with the inputs the evaluator passed gives the messages it sent, and
`Prompt.score` on the recorded judge response gives the result dict it returned, keys in
order, or raises where it raised."""

from __future__ import annotations

import json

import pytest

import prompty_toolkit as pt
from conftest import AZURE_EVAL, require_dir


def scenarios():
    out = []
    for path in sorted(require_dir(AZURE_EVAL / "pipeline-1.18").glob("*.json")):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        if len(scenario.get("llm_calls", [])) == 1:
            out.append(pytest.param(scenario, id=path.stem))
    return out


def test_the_suite_has_its_single_call_scenarios():
    assert len(scenarios()) == 74


@pytest.mark.parametrize("scenario", scenarios())
def test_single_call_scores_like_azure_ai_evaluation_1_18(scenario):
    call = scenario["llm_calls"][0]
    prompt = pt.load(AZURE_EVAL / "prompts-1.18" / call["corpus_file"])
    inputs = call["prompty_kwargs"]
    threshold = scenario["init_kwargs"].get("threshold")
    if "error" in scenario:
        with pytest.raises(pt.PromptyError):
            prompt.score(call["response"], inputs=inputs, threshold=threshold)
        return
    got = prompt.score(call["response"], inputs=inputs, threshold=threshold)
    assert list(got.items()) == list(scenario["result"].items())
