"""Type stubs of the compiled module (``prompty_toolkit._native``)."""

import os
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Union

Message = Dict[str, Any]
Diagnostic = Dict[str, Any]

class PromptyError(Exception):
    """A .prompty file could not be loaded, rendered, compiled or scored.

    ``str()`` is one line per problem, ``file:line:column: message [code]``; no form shows a
    value that ``${env:}`` supplied.
    """

    kind: Literal["read", "load", "template", "inputs", "render", "compile", "score"]
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    code: Optional[str]
    diagnostics: List[Diagnostic]
    report: str
    row: Optional[int]

class LoadError(PromptyError): ...
class InputsError(PromptyError): ...
class RenderError(PromptyError): ...
class CompileError(PromptyError): ...
class ScoreError(PromptyError): ...
class PromptyWarning(UserWarning): ...

class Prompt:
    """A loaded .prompty file. Immutable; share one between threads."""

    @property
    def name(self) -> Optional[str]: ...
    @property
    def file(self) -> str: ...
    @property
    def profile(self) -> Literal["spec", "promptflow"]: ...
    @property
    def warnings(self) -> List[Diagnostic]: ...
    def render(
        self,
        inputs: Optional[Mapping[str, Any]] = None,
        *,
        format: Literal["openai", "prompty"] = "openai",
    ) -> List[Message]: ...
    def render_many(
        self,
        rows: Iterable[Mapping[str, Any]],
        *,
        format: Literal["openai", "prompty"] = "openai",
    ) -> List[List[Message]]: ...
    def compile(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        provider: Optional[Literal["openai", "azure", "foundry", "anthropic"]] = None,
        api: Optional[Literal["chat", "responses", "embedding", "image"]] = None,
        model: Optional[str] = None,
    ) -> Dict[str, Any]: ...
    def score(
        self,
        answer: Union[str, Mapping[str, Any]],
        *,
        inputs: Optional[Mapping[str, Any]] = None,
        threshold: Optional[float] = None,
    ) -> Dict[str, Any]: ...
    def score_many(
        self,
        answers: Iterable[Union[str, Mapping[str, Any]]],
        rows: Optional[Iterable[Mapping[str, Any]]] = None,
        *,
        threshold: Optional[float] = None,
    ) -> List[Dict[str, Any]]: ...

def load(
    source: Union[str, "os.PathLike[str]"],
    *,
    allow_env: bool = False,
    roots: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
    profile: Optional[Literal["auto", "spec", "promptflow"]] = None,
) -> Prompt: ...
def loads(
    text: str,
    *,
    allow_env: bool = False,
    roots: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
    profile: Optional[Literal["auto", "spec", "promptflow"]] = None,
) -> Prompt: ...
