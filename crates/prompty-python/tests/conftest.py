"""Shared paths of the pytest suite: the repository, the conformance data beside it, and
the `prompty` binary the parity test compares with. Missing data or a missing binary fails
the run (it never skips)."""

from __future__ import annotations

import os
import pathlib

import pytest

CRATE = pathlib.Path(__file__).resolve().parent.parent
REPO = CRATE.parent.parent
CONFORMANCE = (REPO / ".." / "shared" / "conformance").resolve()
AZURE_EVAL = CONFORMANCE / "azure-eval"


def require_dir(path: pathlib.Path) -> pathlib.Path:
    if not path.is_dir():
        pytest.fail(f"conformance data missing: {path} (the suites must sit beside the project, see README)")
    return path


def prompty_binary() -> pathlib.Path:
    """The `prompty` binary: $PROMPTY_BIN, else the workspace's debug or release build."""
    given = os.environ.get("PROMPTY_BIN")
    candidates = [pathlib.Path(given)] if given else [REPO / "target" / "debug" / "prompty", REPO / "target" / "release" / "prompty"]
    for c in candidates:
        if c.is_file():
            return c
    pytest.fail(f"the prompty binary is missing (looked at {', '.join(map(str, candidates))}): run `cargo build --bin prompty`")
