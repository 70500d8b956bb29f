"""Turning promptfoo results into judge-tui items and ratings.

Items: a result's `vars` become the item's fields and `response.output` goes into the rubric's response
field: the field `--map FIELD=output` names, else a field called "response", else the one required field
the vars do not provide (exercise-quality's `exercise`, for instance) unless a var looks like it holds that
field (then `--map` must say which).
Item ids: the usual id names, `item_id`, `id` or `submission_id`, in the vars and then in the test's
metadata (`--map id=metadata.KEY` takes another); else "pf-" and the first 12 hex digits of the SHA-256 of
the item's fields (vars and output), so re-importing a file finds the same ids. When one id is used by
several results with different outputs (several providers or prompts), each gets "@<provider label or id>"
appended, and "#p<prompt index>" if that is still not unique.
Ratings: graded components (and `namedScores`) whose metric is a dimension id become judge ratings, one
rater per grading provider, "judge:<grader>:<rubric id>@promptfoo", scores kept exactly as given in 0-1.
Components of type "human" (a person's rating in promptfoo's viewer) become human ratings of rater
"promptfoo-reviewer": a metric names the dimension, and without one the rating applies to a rubric's only
judged dimension (binary's label); it must lie on the rubric's steps.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from judge_tui.formats import ID_KEYS, Parsed, Problem, RatingRecord, first_present
from judge_tui.formats.field_map import apply_mapping
from judge_tui.formats.promptfoo import HUMAN, Result
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item, Rating, content_hash
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from judge_tui.transfer.validate import (
    Checked,
    check_ratings,
    lacking_required,
    map_hint,
    quoted,
    suggested_maps,
)

HUMAN_RATER = "promptfoo-reviewer"
DEFAULT_GRADER = "default-grader"
OUTPUT = "output"
_MANUAL_REASON = "Manual result"  # promptfoo's own reason text for a viewer rating, not a note worth keeping


def judge_rater(grader: str, rubric: Rubric) -> str:
    return f"judge:{grader}:{rubric.id}@promptfoo"


def response_field(rubric: Rubric, var_names: set[str], mapping: dict[str, str]) -> str | None:
    for target, source in mapping.items():
        if source == OUTPUT:
            return target
    names = [f.name for f in rubric.fields]
    if "response" in names and "response" not in var_names:
        return "response"
    missing = [name for name in rubric.required_fields() if name not in var_names]
    if len(missing) == 1 and not suggested_maps(rubric, missing, var_names):
        return missing[0]
    return None


@dataclass
class PendingRatings:
    """The ratings found in a promptfoo file, checked once its items are."""

    rubric: Rubric
    meta: dict[str, Any]
    records: dict[tuple[str, str], list[RatingRecord]] = field(default_factory=dict)  # (rater, kind) -> rows
    models: dict[str, str] = field(default_factory=dict)
    by_rater: list[tuple[str, str, list[Rating]]] = field(default_factory=list)

    def add(self, rater: str, kind: str, record: RatingRecord) -> None:
        self.records.setdefault((rater, kind), []).append(record)

    def check(self, checked: Checked, store: Store) -> None:
        items: dict[str, Item] = {item.id: item for item in checked.items}
        for (rater, kind), records in sorted(self.records.items()):
            existing = store.rater(rater)
            if existing and existing["kind"] != kind:
                checked.problems.append(Problem(0, f"rater {rater!r} already exists as a {existing['kind']} rater"))
                continue
            usable = [r for r in records if r.item_id in items]
            result = check_ratings(usable, self.rubric, rater=rater, kind=kind, items=items,
                                   source="import:promptfoo")
            checked.problems.extend(result.problems)
            checked.warnings.extend(result.warnings)
            self.by_rater.append((rater, kind, result.ratings))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _fits(rubric: Rubric, results: list[Result], mapping: dict[str, str]) -> bool:
    for result in results:
        names = set(apply_mapping(result.vars, mapping))
        target = response_field(rubric, names, mapping)
        if target:
            names.add(target)
        if any(name not in names for name in rubric.required_fields()):
            return False
    return bool(results)


def promptfoo_rows(
    parsed: Parsed, rubric: Rubric | None, mapping: dict[str, str], all_rubrics: Callable[[], dict[str, Rubric]],
) -> tuple[list[tuple[int, dict[str, Any]]], PendingRatings, list[Problem]]:
    warnings: list[Problem] = []
    results: list[Result] = []
    for result in parsed.records:
        if result.error and result.output is None:
            warnings.append(Problem(result.line, f"the provider failed on this test ({result.error[:120]}); skipped"))
        else:
            results.append(result)
    if rubric is None:
        fitting = [r for r in all_rubrics().values() if _fits(r, results, mapping)]
        if len(fitting) != 1:
            names = ", ".join(dict.fromkeys(name for result in results for name in result.vars))
            raise UserError("pass --rubric NAME to say which rubric the promptfoo results are rated against"
                            + (f" (they fit {', '.join(r.id for r in fitting)})" if fitting else
                               f" (no rubric finds all the fields it needs among the vars {names or '(none)'}; "
                               f"with --rubric the error says which are missing and the --map that fits)"))
        rubric = fitting[0]
    var_mapping = {target: source for target, source in mapping.items() if source != OUTPUT}
    pending = PendingRatings(rubric=rubric, meta=parsed.meta)
    rows: list[tuple[int, dict[str, Any]]] = []
    hashed = 0
    target: str | None = None
    for result in results:
        values = apply_mapping({**result.vars, **_mapped_metadata(result, var_mapping)}, var_mapping)
        target = response_field(rubric, set(values), mapping)
        if target and result.output is not None:
            values[target] = _text(result.output)
        id_key, item_id = first_present(values, ID_KEYS)
        if id_key is not None:
            del values[id_key]
        else:
            _key, item_id = first_present(result.metadata, ID_KEYS)
        values["id"] = "pf-" + content_hash(values)[:12] if item_id is None else item_id
        rows.append((result.line, values))
        hashed += item_id is None
    if hashed:
        warnings.append(Problem(0, f"{hashed} of the tests name no id (vars or metadata {', '.join(ID_KEYS)}); "
                                   f"their items get ids made from their content (pf-...)"))
    if results and target is None:
        warnings.append(Problem(0, f"the outputs are not stored: rubric {rubric.id} has no field left for them "
                                   f"(name one with --map FIELD=output)"))
    rows, kept = _unique_ids(rows, results, warnings)
    _collect_ratings(pending, [results[i] for i in kept], [values for _line, values in rows], warnings)
    return rows, pending, warnings


METADATA = "metadata."


def _mapped_metadata(result: Result, mapping: dict[str, str]) -> dict[str, Any]:
    """The test's metadata that --map FIELD=metadata.KEY names, keyed as named (the rest is not item content)."""
    return {source: result.metadata[source[len(METADATA):]] for source in mapping.values()
            if source.startswith(METADATA) and source[len(METADATA):] in result.metadata}


def lacking_vars(
    results: list[Result], rows: list[tuple[int, dict[str, Any]]], rubric: Rubric, mapping: dict[str, str],
) -> Problem | None:
    """A field the rubric needs that no test's vars hold: one problem naming the vars and the --map that fits."""
    lacking = lacking_required(rubric, (name for _line, values in rows for name in values))
    if not lacking or not rows:  # no rows: every provider call failed, as the warnings say
        return None
    names = list(dict.fromkeys(name for result in results for name in result.vars))
    outputs = [] if OUTPUT in mapping.values() else [OUTPUT]
    fix = map_hint(rubric, lacking, [*names, *outputs], "name the var that holds each with --map FIELD=VAR "
                                                        "(--map FIELD=output for the provider's answer), or "
                                                        "build it from the vars with a template, --map "
                                                        "'FIELD=text {VAR} text'")
    return Problem(results[0].line, f"no test's vars hold {quoted(lacking)}, which rubric {rubric.id} needs to "
                                    f"rate an item: {fix} (vars: {', '.join(names) or 'none'})")


def _id_of(values: dict[str, Any]) -> str:
    return str(values["id"])


def _unique_ids(
    rows: list[tuple[int, dict[str, Any]]], results: list[Result], warnings: list[Problem],
) -> tuple[list[tuple[int, dict[str, Any]]], list[int]]:
    """Drop exact repeats; give results that share an id but differ in content their own ids."""
    def content(values: dict[str, Any]) -> str:
        return content_hash({k: v for k, v in values.items() if k != "id"})

    seen: dict[tuple[str, str], int] = {}
    kept: list[int] = []
    for index, (line, values) in enumerate(rows):
        key = (_id_of(values), content(values))
        if key in seen:
            warnings.append(Problem(line, f"same test and output as line {rows[seen[key]][0]}; read once"))
            continue
        seen[key] = index
        kept.append(index)
    suffixes: tuple[Callable[[Result], str], ...] = (lambda r: f"@{r.provider}", lambda r: f"#p{r.prompt_index}")
    for suffix in suffixes:
        groups: dict[str, list[int]] = {}
        for index in kept:
            groups.setdefault(_id_of(rows[index][1]), []).append(index)
        for members in groups.values():
            if len(members) > 1:
                for index in members:
                    rows[index][1]["id"] = _id_of(rows[index][1]) + suffix(results[index])
    return [rows[i] for i in kept], kept


def _collect_ratings(
    pending: PendingRatings, results: list[Result], rows: list[dict[str, Any]], warnings: list[Problem],
) -> None:
    rubric = pending.rubric
    dims = set(rubric.dimension_ids)
    judged = [d.id for d in rubric.judged_dimensions]
    ignored: set[str] = set()
    for result, values in zip(results, rows, strict=True):
        item_id = _id_of(values)
        graded: dict[str, dict[str, list[float]]] = {}
        reasons: dict[str, list[str]] = {}
        for component in result.components:
            if component.type == HUMAN:
                continue
            if component.metric is None:
                continue
            if component.metric not in dims:
                ignored.add(component.metric)
                continue
            grader = component.grader or result.default_grader or DEFAULT_GRADER
            graded.setdefault(grader, {}).setdefault(component.metric, []).append(component.score)
            if component.reason:
                reasons.setdefault(grader, []).append(f"{component.metric}: {component.reason}")
        seen = {metric for scores in graded.values() for metric in scores}
        for metric, score in result.named_scores.items():
            if metric not in dims:
                ignored.add(metric)
            elif metric not in seen:
                graded.setdefault(result.default_grader or DEFAULT_GRADER, {})[metric] = [score]
        for grader, by_metric in graded.items():
            scores = {m: (v[0] if len(v) == 1 else result.named_scores.get(m, _mean(v))) for m, v in by_metric.items()}
            rater = judge_rater(grader, rubric)
            pending.models[rater] = grader
            pending.add(rater, "judge", RatingRecord(
                line=result.line, item_id=item_id, scores=scores, notes="\n".join(reasons.get(grader, [])),
                details={"provider": result.provider, "promptfoo_eval": pending.meta.get("eval_id")},
            ))
        _human(pending, result, item_id, judged, warnings)
    if ignored:
        warnings.append(Problem(0, f"metrics {', '.join(sorted(ignored))} are not dimensions of rubric {rubric.id}; "
                                   f"ignored"))


def _mean(values: list[Any]) -> Any:
    try:
        return sum(values) / len(values)
    except TypeError:
        return values[0]  # not numbers: let the score check report it


def _human(pending: PendingRatings, result: Result, item_id: str, judged: list[str], warnings: list[Problem]) -> None:
    scores: dict[str, Any] = {}
    notes = result.comment
    for component in result.components:
        if component.type != HUMAN:
            continue
        dim = component.metric if component.metric in pending.rubric.dimension_ids else (
            judged[0] if len(judged) == 1 and component.metric is None else None)
        if dim is None:
            warnings.append(Problem(result.line, f"a rating made in promptfoo's viewer judges the output as a whole, "
                                                 f"not a dimension of rubric {pending.rubric.id}; not imported"))
            continue
        score = component.score
        if isinstance(score, bool) or not isinstance(score, int | float):
            score = 1.0 if component.passed else 0.0
        scores[dim] = score
        if component.reason and not component.reason.startswith(_MANUAL_REASON) and not notes:
            notes = component.reason
    missing = [d for d in judged if d not in scores]
    if scores and missing:
        warnings.append(Problem(result.line, f"the rating made in promptfoo's viewer leaves {', '.join(missing)} "
                                             f"unscored; a person's rating must score every dimension; not imported"))
    elif scores:
        pending.add(HUMAN_RATER, "human", RatingRecord(line=result.line, item_id=item_id, scores=scores, notes=notes))
