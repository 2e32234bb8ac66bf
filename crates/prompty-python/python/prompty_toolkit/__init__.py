"""Load, render, compile and score ``.prompty`` files.

``load`` reads a prompt; ``Prompt.render`` gives the messages the OpenAI SDK takes,
``Prompt.compile`` a provider's request body, ``Prompt.score`` the result dict of the
azure-ai-evaluation evaluator the prompt follows, and ``evaluate`` scores a data set.
Rendering and scoring run with the interpreter released: threads render in parallel.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Mapping, Optional, Union

from ._native import (
    CompileError,
    InputsError,
    LoadError,
    Prompt,
    PromptyError,
    PromptyWarning,
    RenderError,
    ScoreError,
    load,
    loads,
)

__all__ = [
    "CompileError",
    "InputsError",
    "LoadError",
    "Prompt",
    "PromptyError",
    "PromptyWarning",
    "RenderError",
    "ScoreError",
    "evaluate",
    "load",
    "loads",
]


def _is_dataframe(value: Any) -> bool:
    """Whether ``value`` is a pandas DataFrame, without importing pandas."""
    return type(value).__name__ == "DataFrame" and hasattr(value, "to_dict")


def _records(rows: Any) -> List[Mapping[str, Any]]:
    if _is_dataframe(rows):
        return rows.to_dict(orient="records")
    return list(rows)


def _answers(answers: Any, rows: Any) -> List[Any]:
    # A column name of the DataFrame of rows.
    if isinstance(answers, str) and _is_dataframe(rows):
        return list(rows[answers])
    if isinstance(answers, str):
        raise TypeError("answers is a str: give an iterable of answers (or a column name with a DataFrame of rows)")
    if hasattr(answers, "tolist") and not isinstance(answers, (list, tuple)):
        return list(answers.tolist())
    return list(answers)


def evaluate(
    prompt: Union[Prompt, str],
    rows: Union[Iterable[Mapping[str, Any]], Any],
    answers: Union[Iterable[Any], str, Any],
    *,
    threshold: Optional[float] = None,
) -> List[dict]:
    """Scores the judge's ``answers`` for ``rows`` (the inputs the judge prompt was rendered
    with, one dict per row, or a pandas DataFrame) with ``prompt`` (a ``Prompt`` or a path).

    ``answers``: one per row, in order (an iterable, a pandas Series, or with a DataFrame the
    name of its column): the answer text, a recorded answer ``{"answer", "usage", "model"}``
    or a provider response. Returns one dict per row: the azure-ai-evaluation result dict, or
    ``{"error": {"kind", "code", "message", "file", "line", "column"}}`` for an answer that
    could not be scored. Scoring runs with the interpreter released.
    """
    if not isinstance(prompt, Prompt):
        prompt = load(prompt)
    records = _records(rows)
    replies = _answers(answers, rows)
    if len(records) != len(replies):
        raise ValueError(f"{len(records)} rows but {len(replies)} answers: give one answer per row")
    return prompt.score_many(replies, records, threshold=threshold)
