"""The single-call scenarios of azure-ai-evaluation 1.13.3 (azure-eval/pipeline): the judge
prompt the evaluator used, rendered with the inputs it passed, must give the messages it
sent; `Prompt.score` on the judge's answer must give the result dict it returned, keys in
the same order, or raise where it raised.

The reference's fake client answered every call with token counts, a finish reason and a
model that the scenarios record only in the expected result; the test passes them back in
as the judge's response (an OpenAI chat completion, as `response.model_dump()` gives it), so
what the comparison checks for those keys is their placement, not their origin.
"""

from __future__ import annotations

import json

import pytest

import prompty_toolkit as pt
from conftest import AZURE_EVAL, require_dir

# Scenarios where the reference crashed with a Python error rather than raising its own
# exception; we raise a ScoreError naming the problem instead. (scenario, text the error has)
REFERENCE_CRASHES = {
    "x_similarity_no_digit": "contains no digit",
}


def scenarios(folder: str):
    out = []
    for path in sorted(require_dir(AZURE_EVAL / folder).glob("*.json")):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        if len(scenario.get("llm_calls", [])) == 1:
            out.append(pytest.param(scenario, id=path.stem))
    return out


def judge_response(scenario: dict, key: str) -> dict:
    result = scenario.get("result") or {}
    answer = scenario["canned_llm_outputs"][0]
    response = {
        "object": "chat.completion",
        "model": result.get(f"{key}_model", "gpt-4o-2024-08-06"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer},
                "finish_reason": result.get(f"{key}_finish_reason", "stop"),
            }
        ],
    }
    if f"{key}_prompt_tokens" in result:
        response["usage"] = {
            "prompt_tokens": result[f"{key}_prompt_tokens"],
            "completion_tokens": result[f"{key}_completion_tokens"],
            "total_tokens": result[f"{key}_total_tokens"],
        }
    return response


def result_key(scenario: dict) -> str:
    result = scenario.get("result")
    if result:
        return next(iter(result))
    return ""


def test_the_suite_has_its_single_call_scenarios():
    assert len(scenarios("pipeline")) == 35


@pytest.mark.parametrize("scenario", scenarios("pipeline"))
def test_single_call_scores_like_azure_ai_evaluation(scenario):
    call = scenario["llm_calls"][0]
    prompt = pt.load(AZURE_EVAL / "prompts" / call["corpus_file"])
    inputs = call["prompty_kwargs"]
    rendered = prompt.render(inputs)
    assert rendered == call["request"]["messages"]
    threshold = scenario["init_kwargs"].get("threshold")
    if "error" in scenario:
        with pytest.raises(pt.ScoreError) as raised:
            prompt.score(judge_response(scenario, ""), inputs=inputs, threshold=threshold)
        err = raised.value
        assert err.kind == "score" and err.code, err
        want = REFERENCE_CRASHES.get(scenario["scenario"])
        if want is not None:
            assert want in str(err)
        else:
            # The reference's own message, after its exception type and category.
            reference = scenario["error"].split(": ", 1)[1]
            if reference.startswith("("):
                reference = reference.split(") ", 1)[1]
            assert reference in str(err), (scenario["error"], str(err))
        return
    key = result_key(scenario)
    got = prompt.score(judge_response(scenario, key), inputs=inputs, threshold=threshold)
    expected = scenario["result"]
    assert list(got.items()) == list(expected.items())
