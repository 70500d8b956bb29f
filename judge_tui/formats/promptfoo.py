"""promptfoo's `promptfoo eval -o results.json` output, results versions 3 and 2.

The file is {"evalId", "results": {"version", "timestamp", "results": [...], "prompts" | "table", "stats"},
"config", ...}; each entry of results.results is one (prompt, provider, test case) run: `vars`, `response`
(`output`, `error`), `provider` ({"id", "label"} or a string), `prompt`, `testCase`, `namedScores` and
`gradingResult` with `componentResults` (each with `assertion` {"type", "metric", "provider"}, `score`,
`pass`, `reason`), and the test's `metadata` (in `testCase` and beside it). A rating made by a person in
promptfoo's viewer is a component whose assertion type is "human". A bare summary ({"version", "results":
[...]}) is read too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judge_tui.formats import Parsed, Problem
from judge_tui.formats.text import load_json, source_lines

SUPPORTED_VERSIONS = (2, 3)
HUMAN = "human"


@dataclass
class Component:
    type: str
    metric: str | None
    score: Any
    passed: Any
    reason: str
    grader: str | None


@dataclass
class Result:
    line: int
    index: int
    vars: dict[str, Any]
    output: Any
    error: str | None
    provider: str
    prompt_index: int | None
    components: list[Component] = field(default_factory=list)
    named_scores: dict[str, Any] = field(default_factory=dict)
    default_grader: str | None = None
    comment: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)  # the test case's metadata


def _object(value: Any) -> dict[str, Any]:
    """value if it is a JSON object, else an empty one (a missing or malformed part reads as absent)."""
    return value if isinstance(value, dict) else {}


def _name(provider: Any) -> str | None:
    """A provider given as "openai:gpt-4o" or as {"id": ..., "label": ...}."""
    if isinstance(provider, str) and provider.strip():
        return provider.strip()
    if isinstance(provider, dict):
        for key in ("label", "id"):
            value = provider.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def _grader(provider: Any) -> str | None:
    """A grading provider: its id names the model, so the id wins over a label."""
    if isinstance(provider, dict):
        return _name({"id": provider.get("id")}) or _name(provider)
    return _name(provider)


def _components(grading: Any, problems: list[Problem], line: int) -> list[Component]:
    found: list[Component] = []
    if not isinstance(grading, dict):
        return found
    listed = grading.get("componentResults") or []
    if not isinstance(listed, list):
        problems.append(Problem(line, "gradingResult.componentResults is not a list"))
        return found
    pending = list(listed)
    while pending:
        component = pending.pop(0)
        if not isinstance(component, dict):
            problems.append(Problem(line, "a componentResults entry is not an object"))
            continue
        assertion = _object(component.get("assertion"))
        if assertion.get("type") in ("assert-set",) and component.get("componentResults"):
            members = component["componentResults"]
            if not isinstance(members, list):
                problems.append(Problem(line, "an assert-set's componentResults is not a list"))
                continue
            pending.extend(members)  # a group of assertions: read its members
            continue
        metric = assertion.get("metric")
        found.append(Component(
            type=str(assertion.get("type") or ""),
            metric=metric if isinstance(metric, str) and metric else None,
            score=component.get("score"),
            passed=component.get("pass"),
            reason=str(component.get("reason") or ""),
            grader=_grader(assertion.get("provider")),
        ))
    return found


def read(text: str) -> Parsed:
    parsed = Parsed()
    top = load_json(text)
    summary: Any = None
    path: tuple[str, ...] = ()
    if isinstance(top, dict) and isinstance(top.get("results"), dict):
        summary, path = top["results"], ("results", "results")
    elif isinstance(top, dict) and isinstance(top.get("results"), list) and "version" in top:
        summary, path = top, ("results",)
    if summary is None or not isinstance(summary.get("results"), list):
        parsed.problems.append(Problem(1, "not a promptfoo results file: expected {\"results\": {\"version\": 3, "
                                          "\"results\": [...]}} as written by `promptfoo eval -o results.json`"))
        return parsed
    version = summary.get("version")
    if version not in SUPPORTED_VERSIONS:
        parsed.problems.append(Problem(1, f"promptfoo results version {version!r} is not supported "
                                          f"(judge-tui reads versions 2 and 3; re-export with a current promptfoo)"))
        return parsed
    parsed.meta.update(version=version, eval_id=top.get("evalId"), timestamp=summary.get("timestamp"))
    lines = source_lines(text, path, len(summary["results"]))
    for index, (line, entry) in enumerate(zip(lines, summary["results"], strict=True)):
        if not isinstance(entry, dict):
            parsed.problems.append(Problem(line, "a results entry is not an object"))
            continue
        test_case = _object(entry.get("testCase"))
        variables = entry.get("vars", test_case.get("vars"))
        if not isinstance(variables, dict):
            parsed.problems.append(Problem(line, "result has no `vars` object"))
            continue
        response = _object(entry.get("response"))
        error = entry.get("error") or response.get("error")
        options = _object(test_case.get("options"))
        grading = entry.get("gradingResult")
        named = entry.get("namedScores")
        prompt_index = entry.get("promptIdx")
        metadata = test_case.get("metadata", entry.get("metadata"))
        parsed.records.append(Result(
            line=line,
            index=index,
            vars=variables,
            output=response.get("output"),
            error=str(error) if error else None,
            provider=_name(entry.get("provider")) or "unknown-provider",
            prompt_index=prompt_index if isinstance(prompt_index, int) else None,
            components=_components(grading, parsed.problems, line),
            named_scores=_object(named),
            default_grader=_grader(options.get("provider")),
            comment=str(grading.get("comment") or "") if isinstance(grading, dict) else "",
            metadata=_object(metadata),
        ))
    return parsed
