"""`judge-tui export`: ratings as JSON Lines, CSV, a rating_form.json, or the exercise review template.

This module chooses what to export from the store (raters, rubrics, the marks of skipped items) and hands plain
records to each format's writer in `judge_tui.formats`. The review template stays here: its rows and summary
are the report's figures (`judge_tui.analysis.report`), which no format module may import.

JSON Lines and CSV carry every column `judge-tui import-ratings` reads back (the flag and its reason
included; seconds empty or null when not known), so an export re-imports as the same ratings. After the
ratings come the items a rater skipped or flagged without rating them: rows with no scores that carry
"skipped", "flagged" and "flag_reason" (in a rating form, entries without scores), which import-ratings
reads back as those marks. CSV cells that a spreadsheet would run as a formula (starting with = + - @ tab or carriage
return) are written with a leading quote; import-ratings removes it.
"""

from __future__ import annotations

import glob
import io
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge_tui.formats import rating_form as form_format
from judge_tui.formats import ratings_rows
from judge_tui.formats.numbers import aligned_text, plural, share_text, short_text
from judge_tui.model.errors import UserError
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric, RubricError, rubric_from_definition
from judge_tui.model.settings import AgreementSettings, load_settings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric

try:
    import fcntl
except ImportError:  # Windows: no record locks, so a killed export's leftover is not told from a running one's
    fcntl = None  # type: ignore[assignment]  # leftovers stay there

if TYPE_CHECKING:
    from judge_tui.analysis.report import Report

REVIEW_LABELS = {  # 003's short column names
    "structural_validity": "Struct",
    "difficulty_match": "Diff",
    "instruction_clarity": "Clarity",
    "learning_objective_alignment": "Align",
}
MISSING = "—"
# The format a file name asks for when --format is not given (anything else: JSON Lines).
FORMAT_BY_SUFFIX = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "rating-form",
                    ".md": "review-template"}


class Rubrics:
    """Rubric definitions by rubric version id, exactly as they were recorded."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._by_version: dict[int, Rubric] = {}
        self.versions = {v["id"]: v for v in store.rubric_versions()}

    def __getitem__(self, version_id: int) -> Rubric:
        if version_id not in self._by_version:
            version = self.versions[version_id]
            try:
                rubric = rubric_from_definition(self.store.rubric_definition(version_id), str(self.store.path))
            except RubricError:  # recorded by another judge-tui version: the rubric this database uses now
                rubric = resolve_rubric(version["rubric"], self.store)
            self._by_version[version_id] = rubric
        return self._by_version[version_id]


def score_value(rubric: Rubric, value: float) -> float | str:
    """A score as exported: PASS/FAIL or a category's name on a scale of names, a whole number as itself (not its
    stored place between 0 and 1), otherwise the number exactly (`Scale.written`)."""
    return rubric.scale.written(value)


def overall_value(rubric: Rubric, value: float | None) -> float | str | None:
    """The overall as exported: on a scale of categories whose overall is its one dimension's label, that
    category's name (its stored position means nothing to a reader); otherwise the number, as always written
    (a PASS/FAIL rubric's overall 1.0 or 0.0 beside its verdict)."""
    if value is not None and rubric.scale.categories and rubric.overall == "label":
        return score_value(rubric, value)
    return value


def ordered_scores(rubric: Rubric, scores: dict[str, float]) -> dict[str, float | str]:
    """Scores in the rubric's dimension order (the store keeps them sorted by name)."""
    order = [d for d in rubric.dimension_ids if d in scores] + sorted(set(scores) - set(rubric.dimension_ids))
    return {d: score_value(rubric, scores[d]) for d in order}


# --------------------------------------------------------------------------- JSON Lines and CSV


def rating_rows(store: Store, rubric: str | None = None, rater: str | None = None) -> Iterator[dict[str, Any]]:
    """Every rating (optionally one rubric's, one rater's) as a flat row, in item order."""
    rubrics = Rubrics(store)
    kinds = store.rater_kinds()
    for rating in store.iter_ratings(rubric=rubric, rater_ids=[rater] if rater else None):
        definition = rubrics[rating.rubric_version_id]
        yield ratings_rows.rating_row(rating, kind=kinds.get(rating.rater_id), rubric=definition.id,
                                      rubric_version=rubrics.versions[rating.rubric_version_id]["number"],
                                      scores=ordered_scores(definition, rating.scores),
                                      overall=overall_value(definition, rating.overall))


def mark_rows(store: Store, rubric: str | None = None, rater: str | None = None) -> list[dict[str, Any]]:
    """Every item skipped or flagged without a rating (optionally one rubric's, one rater's), in item order."""
    marks = store.set_aside(rubric, rater)
    kinds = store.rater_kinds()
    items = store.items_by_id(mark.item_id for mark in marks)
    return [ratings_rows.mark_row(mark, kind=kinds.get(mark.rater_id), rubric=items[mark.item_id].rubric)
            for mark in marks]


@dataclass
class Written:
    """What an export wrote: ratings (or the review template's rows), and items skipped or flagged unrated."""

    ratings: int = 0
    marks: int = 0

    def describe(self, fmt: str) -> str:
        if fmt == "review-template":
            return plural(self.ratings, "row")
        marks = f" and {plural(self.marks, 'item')} skipped or flagged without a rating"
        return f"{plural(self.ratings, 'rating')}{marks if self.marks else ''}"


def export_rows(store: Store, rubric: str | None, rater: str | None, written: Written) -> Iterator[dict[str, Any]]:
    """The ratings, then the items skipped or flagged without a rating, counting each kind into written."""
    for row in rating_rows(store, rubric, rater):
        written.ratings += 1
        yield row
    for row in mark_rows(store, rubric, rater):
        written.marks += 1
        yield row


def write_jsonl(store: Store, out: io.TextIOBase, rubric: str | None, rater: str | None) -> Written:
    written = Written()
    ratings_rows.write_jsonl(out, export_rows(store, rubric, rater, written))
    return written


def _dimension_columns(store: Store, rubric: str | None) -> list[str]:
    rubrics = Rubrics(store)
    columns: list[str] = []
    for version_id, version in rubrics.versions.items():
        if rubric and version["rubric"] != rubric:
            continue
        for dim in rubrics[version_id].dimension_ids:
            if dim not in columns:
                columns.append(dim)
    return columns


def write_csv(store: Store, out: io.TextIOBase, rubric: str | None, rater: str | None) -> Written:
    written = Written()
    ratings_rows.write_csv(out, export_rows(store, rubric, rater, written), _dimension_columns(store, rubric))
    return written


# --------------------------------------------------------------------------- rating_form.json


def _only(candidates: list[str], what: str, option: str, *, several: str | None = None) -> str:
    """The one candidate; otherwise an error naming them (`several` says there are several; default: what + s)."""
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UserError(f"no {what} found; rate or import some first")
    raise UserError(f"{several or 'several ' + what + 's'} ({', '.join(candidates)}): choose one with {option}")


def _current_by_item(store: Store, rubric: str, rater: str) -> dict[str, Rating]:
    """The rater's current rating of each item, in item order."""
    return {rating.item_id: rating for rating in store.iter_ratings(rubric=rubric, rater_ids=[rater], current=True)}


def rated_seconds(store: Store, rater: str, rubric: str) -> list[float | None]:
    """The seconds of each item the rater rated, as the rating form counts them (None: not known)."""
    return [rating.seconds for rating in _current_by_item(store, rubric, rater).values()]


def _rated_rubrics(store: Store, rater: str) -> list[str]:
    return sorted(rubric for rubric, _count in store.rubrics_in_use() if store.count_ratings(rater, rubric))


def rating_form(store: Store, rater: str | None, rubric_name: str | None) -> dict[str, Any]:
    """One expert's ratings in the CIS study's rating_form.json shape."""
    if rater is None:
        humans = [r["id"] for r in store.raters("human") if store.count_ratings(rater_id=r["id"])]
        rater = _only(humans, "human rater", "--rater")
    info = store.rater(rater)
    if info is None:
        raise UserError(f"no rater {rater!r} in this database")
    rubric_name = rubric_name or _only(_rated_rubrics(store, rater), f"rubric rated by {rater}", "--rubric",
                                       several=f"{rater} rated several rubrics")
    rubric = resolve_rubric(rubric_name, store)
    latest = _current_by_item(store, rubric.id, rater)
    marks = {mark.item_id: mark for mark in store.set_aside(rubric.id, rater)}
    if not latest and not marks:
        raise UserError(f"{rater} has no ratings of rubric {rubric.id}")
    rubrics = Rubrics(store)
    items = store.items_by_id([*latest, *marks])
    overall_key = f"expert_{rubric.overall_name.lower()}"
    entries, unrated = [], []
    for item in sorted(items.values(), key=lambda i: i.position):
        if item.id in marks:
            unrated.append(form_format.mark_entry(marks[item.id], item.task_type))
            continue
        rating = latest[item.id]
        definition = rubrics[rating.rubric_version_id]
        entries.append(form_format.rating_entry(rating, item.task_type, ordered_scores(definition, rating.scores),
                                                overall_key, overall_value(definition, rating.overall)))
    ratings = list(latest.values())
    # An imported form's study date is kept; ratings made here date the form by when they were made (an expert
    # who only skipped or flagged items: by when they did that). The completion date is when the expert finished
    # (the finish screen, or the imported form's), else when they last changed a rating.
    study_date = store.get_meta(f"study_date:{rater}:{rubric.id}")
    made = [r.created_at for r in ratings] or [m.updated_at for m in marks.values()]
    changed = [r.updated_at for r in ratings] or [m.updated_at for m in marks.values()]
    finish = store.finish(rater, rubric.id)
    return form_format.form(
        expert_name=info.get("display_name") or rater, expert_id=rater,
        study_date=study_date or min(made)[:10], entries=entries, unrated=unrated,
        summary_notes=finish.summary_notes if finish else "", known_seconds=[r.seconds for r in ratings],
        completion_date=(finish.finished_at if finish else "") or max(changed)[:19] + "Z",
    )


# --------------------------------------------------------------------------- review template (003)


def _cell(value: float | None, rubric: Rubric) -> str:
    """A score in the table: a category by its name, a whole number as itself, any other score as a short
    number."""
    if value is None:
        return MISSING
    shown = score_value(rubric, value) if rubric.scale.declared else value
    return _text_cell(shown) if isinstance(shown, str) else short_text(shown)


def _text_cell(text: str) -> str:
    one_line = " ".join(clean(text).split())
    if len(one_line) > 200:
        one_line = one_line[:199] + "…"
    return one_line.replace("\\", "\\\\").replace("|", "\\|")


def _rater_of_kind(store: Store, rubric: str, kind: str, option: str) -> str:
    found = [r["id"] for r in store.raters(kind) if store.count_ratings(r["id"], rubric)]
    return _only(found, f"{kind} rater of {rubric}", option)


def review_template(store: Store, rubric_name: str | None, human: str | None, judge: str | None,
                    settings: AgreementSettings | None = None) -> str:
    """003's review table, one row per item with the human's and the judge's scores, and its summary figures.

    Agreement is the report's: the same tolerance (agreement.tolerance in the settings) and the same figures.
    """
    from judge_tui.analysis.report import Group, ReportError, build_report
    from judge_tui.analysis.scores import agreeing

    settings = settings or load_settings().agreement
    rubric = resolve_rubric(rubric_name or "exercise-quality", store)
    human = human or _rater_of_kind(store, rubric.id, "human", "--rater")
    judge = judge or _rater_of_kind(store, rubric.id, "judge", "--judge")
    human_ratings = _current_by_item(store, rubric.id, human)
    judge_ratings = _current_by_item(store, rubric.id, judge)
    judged = [d.id for d in rubric.judged_dimensions]
    labels = {d.id: REVIEW_LABELS.get(d.id, d.name) for d in rubric.dimensions}
    item_columns = ["CEFR", "Focus"] if {"cefr_level", "focus"} <= {f.name for f in rubric.fields} else ["Item"]
    header = ["#", *item_columns]
    for d in rubric.dimensions:
        header += [f"Human: {labels[d.id]}", f"Judge: {labels[d.id]}"]
    header += ["Agreement?", "Notes"]
    source = "the categories are nominal" if rubric.scale.nominal else "agreement.tolerance in the settings"
    lines = [f"# Review template: {rubric.name}", "",
             f"Human: {_text_cell(human)} · Judge: {_text_cell(judge)} · agreement = every judged dimension "
             f"{aligned_text(rubric.scale, settings.tolerance)} ({source}, as in `judge-tui report`)", "",
             "| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    items: list[Item] = list(store.iter_items(rubric=rubric.id))
    for number, item in enumerate(items, start=1):
        h, j = human_ratings.get(item.id), judge_ratings.get(item.id)
        code = rubric.code_scores(item.fields)
        cells = [str(number)]
        cells += ([_text_cell(str(item.fields.get("cefr_level", ""))), _text_cell(str(item.fields.get("focus", "")))]
                  if item_columns == ["CEFR", "Focus"] else [_text_cell(item.id)])
        for d in rubric.dimensions:
            human_value = h.scores.get(d.id) if h else None
            judge_value = (j.scores.get(d.id, code.get(d.id)) if j else None)
            cells += [_cell(human_value, rubric), _cell(judge_value, rubric)]
        agreement = MISSING
        if h and j:
            both = [d for d in judged if d in h.scores and d in j.scores]
            if both:
                within = agreeing(rubric.scale, [h.scores[d] for d in both], [j.scores[d] for d in both],
                                  settings.tolerance).tolist()
                agreement = "yes" if all(within) else f"no ({sum(within)}/{len(within)})"
        cells += [agreement, _text_cell(h.notes) if h else ""]
        lines.append("| " + " | ".join(cells) + " |")
    try:
        report = build_report(store, rubric, human=Group("human", (human,)), judge=Group("judge", (judge,)),
                              settings=settings)
    except ReportError:
        report = None  # no item rated by both: every figure is missing
    lines += ["", *_summary(report, len(items), aligned_text(rubric.scale, settings.tolerance)), ""]
    return "\n".join(lines)


def _summary(report: Report | None, total: int, aligned: str) -> list[str]:
    """The summary metrics, as the report computes them."""
    lowest = highest = MISSING
    reviewed = agreed = pairs = 0
    rate = MISSING
    if report is not None:
        s = report.summary
        reviewed, agreed, pairs = s.cases, s.agreements, s.pairs
        from judge_tui.stats.agreement import Undefined

        rate = share_text(s.alignment_rate, 1) if pairs and not isinstance(s.alignment_rate, Undefined) else MISSING

        rates: dict[str, float] = {}
        for r in report.judged_rows:
            dimension_rate = r.agreement.alignment_rate
            if r.agreement.n and not isinstance(dimension_rate, Undefined):  # a compared pair: a defined rate
                rates[r.key] = dimension_rate
        if rates:
            low, high = min(rates.values()), max(rates.values())
            lowest = ", ".join(f"{d} ({share_text(value)})" for d, value in rates.items() if value == low)
            highest = ", ".join(f"{d} ({share_text(value)})" for d, value in rates.items() if value == high)
    rows = [
        ("Total cases reviewed", f"{reviewed}/{total}"),
        (f"Dimension agreements ({aligned})", f"{agreed}/{pairs}"),
        ("Overall alignment rate", rate),
        ("Dimension with lowest alignment", lowest),
        ("Dimension with highest alignment", highest),
    ]
    return ["## Summary metrics", "", "| Metric | Value |", "| --- | --- |",
            *(f"| {name} | {value} |" for name, value in rows)]


# --------------------------------------------------------------------------- command


def export(store: Store, fmt: str, out: io.TextIOBase, *, rubric: str | None = None, rater: str | None = None,
           judge: str | None = None) -> Written:
    """Write one export to out; returns how many ratings (or rows) and marks it holds."""
    if rubric:
        rubric = resolve_rubric(rubric, store).id
    if fmt == "jsonl":
        return write_jsonl(store, out, rubric, rater)
    if fmt == "csv":
        return write_csv(store, out, rubric, rater)
    if fmt == "rating-form":
        form = rating_form(store, rater, rubric)
        form_format.write(out, form)
        return Written(len(form["ratings"]), len(form.get("unrated", [])))
    if fmt == "review-template":
        out.write(review_template(store, rubric, rater, judge))
        return Written(store.count_items(rubric=rubric or "exercise-quality"))
    raise UserError(f"unknown export format {fmt!r}")


def export_to_file(store: Store, fmt: str, target: Path, *, rubric: str | None = None, rater: str | None = None,
                   judge: str | None = None) -> Written:
    """Write next to the target and rename, so a failed export never leaves half a file behind."""
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UserError(f"{target}: the folder {folder} does not exist")
    _remove_abandoned(folder, target)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        if fcntl is not None:
            fcntl.lockf(handle, fcntl.LOCK_EX)  # held until the file is closed: it is being written
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            written = export(store, fmt, out, rubric=rubric, rater=rater, judge=judge)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return written


def _remove_abandoned(folder: Path, target: Path) -> None:
    """Remove the hidden temporaries of exports to ``target`` that were killed midway: those no process holds
    locked (the operating system drops a lock with its process); one still locked is being written."""
    if fcntl is None:
        return
    for leftover in folder.glob(f".{glob.escape(target.name)}.*.tmp"):
        try:
            fd = os.open(leftover, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            leftover.unlink(missing_ok=True)
        except OSError:
            continue  # an export writing it now
        finally:
            os.close(fd)
