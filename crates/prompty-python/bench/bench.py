"""Rows per second from Python: prompty_toolkit's render, render_many, score and evaluate
against promptflow-core's rendering of the same prompt, measured in one run.

    python bench.py --promptflow-python /path/to/venv-with-promptflow-core/bin/python

The prompty_toolkit side runs in this interpreter (install the release wheel:
`pip install ./crates/prompty-python`); promptflow-core runs in the interpreter given
(a separate virtualenv: `pip install promptflow-core`), started by this script, with the
same prompt and rows. Both sides first check that they build the same messages for the
rows (promptflow-core's `convert_prompt_template`, the step that builds the messages it
sends, after `Prompty._resolve_inputs`, as `Prompty.render` and `__call__` do). Prints a table and, with --json, the numbers as JSON.

The prompt is the azure-ai-evaluation coherence judge
(../shared/conformance/azure-eval/prompts/1.0.1__coherence__coherence.prompty), loaded by
promptflow-core with the judge deployment azure-ai-evaluation passes; the rows
are generated (query and response of a few hundred characters each, all different).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
PROMPT = (REPO / ".." / "shared" / "conformance" / "azure-eval" / "prompts" / "1.0.1__coherence__coherence.prompty").resolve()


def make_rows(n: int) -> list:
    words = "rust python judge prompt render score token model answer query response coherent clear".split()
    rows = []
    for i in range(n):
        q = " ".join(words[(i * 7 + k) % len(words)] for k in range(12)) + f" #{i}?"
        r = " ".join(words[(i * 5 + k) % len(words)] for k in range(60)) + f" (row {i})."
        rows.append({"query": q, "response": r})
    return rows


# The promptflow-core side, run in the other interpreter: reads {"prompt", "rows", "repeat"}
# on stdin, writes {"messages": first rows' messages, "times": [seconds per pass]}.
PROMPTFLOW_SIDE = r"""
import json, sys, time
from promptflow.core import Prompty
from promptflow.core._prompty_utils import convert_prompt_template

job = json.load(sys.stdin)
# The judge deployment, as azure-ai-evaluation passes it (the prompt has no configuration).
model = {"configuration": {"type": "azure_openai", "azure_deployment": "judge-deployment",
                           "azure_endpoint": "https://judge.invalid", "api_key": "k"}}
prompty = Prompty.load(source=job["prompt"], model=model)
template = prompty._template
api = prompty._model.api

def render(row):
    # What Prompty.render and Prompty.__call__ do before the request: inputs resolved
    # against the declared ones, then the messages built.
    inputs = prompty._resolve_inputs(row)
    return convert_prompt_template(template, inputs, api)

check = [render(r) for r in job["rows"][:20]]
times = []
for _ in range(job["repeat"]):
    t0 = time.perf_counter()
    for row in job["rows"]:
        render(row)
    times.append(time.perf_counter() - t0)
json.dump({"messages": check, "times": times}, sys.stdout)
"""


def best_rate(n: int, times: list) -> float:
    return n / min(times)


def timed(fn, repeat: int) -> list:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--promptflow-python", required=True, help="python of a virtualenv with promptflow-core")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import prompty_toolkit as pt
    from concurrent.futures import ThreadPoolExecutor

    if not PROMPT.is_file():
        sys.exit(f"missing {PROMPT}: the conformance data must sit beside the project")
    rows = make_rows(args.rows)
    prompt = pt.load(PROMPT)

    job = json.dumps({"prompt": str(PROMPT), "rows": rows, "repeat": args.repeat})
    out = subprocess.run([args.promptflow_python, "-c", PROMPTFLOW_SIDE], input=job, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"the promptflow-core side failed:\n{out.stderr}")
    pf = json.loads(out.stdout)
    ours = [prompt.render(r) for r in rows[:20]]
    if ours != pf["messages"]:
        sys.exit("prompty_toolkit and promptflow-core build different messages for the benchmark rows")

    answers = [f"<S0>Let's think step by step.</S0><S1>Row {i} is clear.</S1><S2>{1 + i % 5}</S2>" for i in range(args.rows)]
    chunks = [rows[i : i + 250] for i in range(0, len(rows), 250)]

    def threads_render_many() -> None:
        with ThreadPoolExecutor(args.threads) as pool:
            list(pool.map(prompt.render_many, chunks))

    results = {
        "promptflow-core render (per row)": best_rate(args.rows, pf["times"]),
        "prompty_toolkit render (per row)": best_rate(args.rows, timed(lambda: [prompt.render(r) for r in rows], args.repeat)),
        "prompty_toolkit render_many (one batch)": best_rate(args.rows, timed(lambda: prompt.render_many(rows), args.repeat)),
        f"prompty_toolkit render_many ({args.threads} threads, batches of 250)": best_rate(
            args.rows, timed(threads_render_many, args.repeat)
        ),
        "prompty_toolkit score (per row)": best_rate(
            args.rows, timed(lambda: [prompt.score(a, inputs=r) for a, r in zip(answers, rows)], args.repeat)
        ),
        "prompty_toolkit evaluate (one batch)": best_rate(args.rows, timed(lambda: pt.evaluate(prompt, rows, answers), args.repeat)),
    }
    baseline = results["promptflow-core render (per row)"]
    if args.json:
        print(json.dumps({"rows": args.rows, "repeat": args.repeat, "rows_per_second": results}, indent=2))
        return
    print(f"{args.rows} rows, best of {args.repeat}; python {sys.version.split()[0]}; spread of promptflow passes "
          f"{statistics.pstdev(pf['times']) / statistics.mean(pf['times']):.1%}")
    print(f"{'what':<62} {'rows/s':>12} {'vs promptflow-core render':>26}")
    for name, rate in results.items():
        print(f"{name:<62} {rate:>12,.0f} {rate / baseline:>25.1f}x")


if __name__ == "__main__":
    main()
