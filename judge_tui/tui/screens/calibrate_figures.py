"""What the judge screen shows: where the judge stands on the dev split, and whether the last change helped.

Every figure comes from the code the report uses: the judge against the experts (`report.build_report`, the
experts as the human group), the paired comparison of the previous and the current prompt version
(`compare.compare_versions`, drawn as the report draws it), the biases (`biases.judge_biases`). The
misaligned items are those where the judge and the experts' consensus differ by more than the tolerance on
some judged dimension, the largest gap first, with the experts' notes and the judge's reasoning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from judge_tui.analysis.biases import Biases, consensus_and_judge, judge_biases
from judge_tui.analysis.compare import VersionComparison, compare_versions
from judge_tui.analysis.judges import ChosenJudge, judge_model, previous_judge, the_judge
from judge_tui.analysis.jury import build_jury, default_members
from judge_tui.analysis.report import Group, NoComparison, Report, Row, build_report
from judge_tui.analysis.report_render.blocks import lines_of
from judge_tui.analysis.report_render.comparison import compare_blocks
from judge_tui.analysis.report_render.jury import jury_blocks
from judge_tui.analysis.scores import agreeing, load, score_gaps
from judge_tui.analysis.team import load_team
from judge_tui.analysis.validity import ValidityPage, ratings_coming_in, validity_by_version
from judge_tui.formats.numbers import (
    aligned_text,
    cost_text,
    decimal_text,
    figure_text,
    figure_with_interval,
    plural,
    share_text,
)
from judge_tui.model.errors import UserError
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import Interval
from judge_tui.store import Store

DEV = "dev"
TEST_NOTE = ("The test split never enters this loop: it gives the final, unbiased figure once you stop "
             "changing the judge: judge-tui report --split test")


@dataclass(frozen=True)
class VersionNote:
    label: str  # "rubric #3" or "prompt 1a2b3c4d5e6f"
    created_at: str
    reason: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class Misaligned:
    item_id: str
    gap: float  # the largest |judge − consensus| over the judged dimensions (nominal: 1, another category)
    differing: int  # judged dimensions further apart than the tolerance
    consensus: dict[str, float]
    judge: dict[str, float]
    notes: dict[str, str]  # expert -> note


@dataclass(frozen=True)
class Cost:
    calls: int
    dollars: float
    input_tokens: int  # every input token, cached or not
    cache_read_tokens: int

    @property
    def cache_share(self) -> float | None:
        return self.cache_read_tokens / self.input_tokens if self.input_tokens else None

    def line(self) -> str:
        if not self.input_tokens:
            return f"{self.calls_text} · {cost_text(self.dollars, self.calls)} · no tokens counted"
        share = self.cache_share
        cached = f"{share_text(share)} of input tokens read from the cache" if share is not None else "no tokens yet"
        return (f"{self.calls_text} · {cost_text(self.dollars, self.calls)} · {self.input_tokens:,} input tokens, "
                f"{cached}")

    @property
    def calls_text(self) -> str:
        return plural(self.calls, "call", grouped=True)


@dataclass(frozen=True)
class Standing:
    rubric: str
    split: str
    rubric_version: VersionNote | None
    prompt_version: VersionNote
    judge: str | None  # the judge rater of the current prompt version (None: not judged yet)
    previous: str | None  # the judge rater of the previous prompt version
    figures: tuple[str, ...]  # the current judge against the experts: what was compared, then per dimension
    comparison: VersionComparison | None
    comparison_lines: tuple[str, ...]  # the comparison as the report draws it, or why there is none
    misaligned: tuple[Misaligned, ...]
    cost: Cost | None
    biases: Biases | None
    notes: tuple[str, ...] = field(default=())  # what could not be computed, and why
    figure_rows: tuple[tuple[str, str, str, str], ...] = field(default=())  # the figures' dimensions as a table
    jury: tuple[str, ...] = field(default=())  # with two judges or more: the jury section as the report draws it
    validity: ValidityPage | None = None  # what the judge in force may be used for (None: no comparison yet)
    heading: str = ""  # which judge the screen shows, and why (Shown.heading)


@dataclass(frozen=True)
class Shown:
    """Which judge the judge screen shows and what it compares it with: the judge (judges.the_judge) beside the
    previous kept version, or a version under trial beside the judge."""

    prompt_version: str  # the headline's version
    judge: str | None  # its judge rater (None: not judged yet)
    previous: str | None  # the version beside it
    previous_judge: str | None
    heading: str  # the screen's heading names it


def shown_judges(store: Store, rubric_id: str, *, in_force: str, trial: str | None, model: str | None,
                 named: str | None = None) -> Shown:
    """The screen's judges: under a trial, the tried version (``trial``, judged by ``model``) beside the judge;
    otherwise the judge (or the one ``named`` with --judge) beside the kept version before it. Without any
    judgment, the prompt in force, not judged yet."""
    chosen = judge_in_view(store, rubric_id, trial=trial is not None, named=named)
    if trial is not None:
        judge = judge_of(store, rubric_id, trial, model)
        beside = chosen.rater if chosen is not None else None
        heading = f"On trial: prompt {trial}, beside the judge {beside or '(none judged yet)'}"
        return Shown(trial, judge, _version_of(store, rubric_id, beside), beside, heading)
    if chosen is None:
        return Shown(in_force, None, None, None, f"The judge: prompt {in_force}, not judged yet")
    before = previous_judge(store, rubric_id, chosen.prompt_version) if chosen.prompt_version else None
    return Shown(chosen.prompt_version or in_force, chosen.rater, _version_of(store, rubric_id, before), before,
                 chosen.line())


def judge_in_view(store: Store, rubric_id: str, *, trial: bool, named: str | None = None) -> ChosenJudge | None:
    """The judge the screen shows: the judge, or the one --judge names; beside a change under trial, the judge."""
    return the_judge(store, rubric_id) if trial else the_judge(store, rubric_id, named)


def _version_of(store: Store, rubric_id: str, rater: str | None) -> str | None:
    """A judge rater's prompt version (its rater id when it has none)."""
    if rater is None:
        return None
    found = next((j for j in store.judge_raters_with_prompt(rubric_id) if j["id"] == rater), None)
    return str((found["prompt_version"] if found else None) or rater.rpartition("@")[2] or rater)


def judge_of(store: Store, rubric_id: str, prompt_version: str | None, model: str | None = None) -> str | None:
    """The judge rater that judged under this prompt version: of this model if there is one, else the one
    with the most ratings."""
    if prompt_version is None:
        return None
    found = [j for j in store.judge_raters_with_prompt(rubric_id)
             if (j["prompt_version"] or j["id"].rpartition("@")[2]) == prompt_version]
    found.sort(key=lambda j: (j["model"] == model, j["ratings"]), reverse=True)
    return found[0]["id"] if found else None


def _version_notes(store: Store, rubric: Rubric, prompt_version: str) -> tuple[VersionNote | None, VersionNote]:
    row = store.rubric_version_by_hash(rubric.content_hash)
    rubric_note = (VersionNote(f"rubric #{row['number']}", row["created_at"], row["reason"] or "",
                               tuple(row["motivating_items"])) if row else None)
    prompt = next((p for p in store.prompt_versions(rubric.id) if p["prompt_version"] == prompt_version), None)
    prompt_note = VersionNote(f"prompt {prompt_version}", prompt["created_at"] if prompt else "",
                              (prompt["reason"] if prompt else "") or "", tuple(prompt["motivating_items"])
                              if prompt else ())
    return rubric_note, prompt_note


def _figure(row: Row, name: str, percent: bool = False) -> str:
    """A figure of a report row with its interval."""
    return figure_with_interval(getattr(row.agreement, name), row.uncertainty.intervals.get(name), percent=percent)


def _figure_rows(report: Report) -> tuple[tuple[str, str, str, str], ...]:
    """Per judged dimension: its name, alignment, kappa and r, each with its interval."""
    return tuple((row.name, _figure(row, "alignment_rate", True), _figure(row, "cohen_kappa"),
                  _figure(row, "pearson_r")) for row in report.judged_rows)


def _figure_lines(report: Report, experts: tuple[str, ...], split: str,
                  settings: AgreementSettings) -> tuple[str, ...]:
    lines = [f"{report.counts['compared']} {split} items judged and rated by the experts "
             f"({', '.join(experts)}); alignment {aligned_text(report.rubric.scale, settings.tolerance)}"]
    for name, alignment, kappa, r in _figure_rows(report):
        lines.append(f"  {name}: alignment {alignment} · kappa {kappa} · r {r}")
    return tuple(lines)


def change_headline(comparison: VersionComparison) -> str:
    """The paired change in alignment over every judged dimension with its interval and what it means, e.g.
    "alignment 62.5% → 68.8%: +6.2 pts [-2, +14] over 16 items judged by both: no detectable change yet"."""
    before, after = comparison.alignment
    if not (ag.is_defined(before) and ag.is_defined(after)):
        return f"alignment change: n/a over {comparison.items} items"
    change = comparison.alignment_change
    text = f"alignment {figure_text(before, percent=True)} → {figure_text(after, percent=True)}: " \
           f"{figure_text(after - before, percent=True, signed=True)}"
    if isinstance(change.interval, Interval):
        low, high = (decimal_text(bound * 100, 0, signed=True) for bound in (change.interval.low, change.interval.high))
        text += f" [{low}, {high}]"
    text += f" over {comparison.items} items judged by both"
    if change.verdict is None:
        return f"{text}: too few items for an interval yet"
    return f"{text}: {change.verdict}" + (" yet" if change.verdict == "no detectable change" else "")


def _misaligned(store: Store, rubric: Rubric, judge: str, split: str, settings: AgreementSettings,
                visible: set[str] | None) -> tuple[Misaligned, ...]:
    view = load_team(store, rubric, split=split, judge=judge, only_items=visible)
    dims = view.dimensions
    if not dims or not view.item_ids:
        return ()
    human, machine = consensus_and_judge(view)
    diff = score_gaps(rubric.scale, machine, human)  # on nominal categories: 1 for another category
    differing = np.count_nonzero(~np.isnan(diff) & ~agreeing(rubric.scale, machine, human, settings.tolerance), axis=0)
    gap = np.where(np.isnan(diff), -1.0, diff).max(axis=0)
    order = np.lexsort((np.arange(gap.size), -differing, -gap))
    out = []
    for i in order.tolist():
        if differing[i] == 0:
            continue
        item = view.item_ids[i]
        out.append(Misaligned(
            item, float(gap[i]), int(differing[i]),
            {d: float(human[k, i]) for k, d in enumerate(dims) if not np.isnan(human[k, i])},
            {d: float(machine[k, i]) for k, d in enumerate(dims) if not np.isnan(machine[k, i])},
            {e: view.notes[(e, item)] for e in (*view.experts, CONSENSUS_RATER) if view.notes.get((e, item))},
        ))
    return tuple(out)


def standing(store: Store, rubric: Rubric, *, prompt_version: str, previous: str | None, model: str | None = None,
             split: str = DEV, settings: AgreementSettings | None = None,
             visible: set[str] | None = None, shown: Shown | None = None) -> Standing:
    """Where the judge of `prompt_version` stands on `split`, and how it compares with `previous` (``shown``:
    the judge raters of both, as `shown_judges` chose them).

    ``visible``: the items the viewer may see (blind.visible_items; None: every item). A lead who has rated is
    an expert too and, as on the adjudication screen, sees every figure over the items they rated only."""
    if split == "test":
        raise UserError(TEST_NOTE)
    settings = settings or AgreementSettings()
    notes: list[str] = []
    rubric_note, prompt_note = _version_notes(store, rubric, prompt_version)
    judge = shown.judge if shown is not None else judge_of(store, rubric.id, prompt_version, model)
    before = shown.previous_judge if shown is not None else judge_of(store, rubric.id, previous, model)
    experts = tuple(r["id"] for r in store.rubric_raters(rubric.id)
                    if r["kind"] == "human" and r["id"] != CONSENSUS_RATER)
    figures: tuple[str, ...] = ()
    figure_rows: tuple[tuple[str, str, str, str], ...] = ()
    misaligned: tuple[Misaligned, ...] = ()
    biases = None
    cost = None
    validity = None
    if judge is None:
        notes.append(f"The judge has not judged any item under prompt {prompt_version} yet.")
    elif not experts:
        notes.append("No expert has rated an item of this rubric yet: there is nothing to compare the judge with.")
    else:
        ratings = load(store, rubric, split)  # one read of the scores for the figures, the biases and the items
        if visible is not None:
            keys, ids = store.item_keys_in_order(rubric.id, split)
            ratings = ratings.restricted_to(keys[np.isin(np.array(ids, dtype=object), list(visible))])
            notes.append(f"Over the {split} items you rated only: you are an expert of this rubric too, and the "
                         "blind rule shows you the judge and the other experts on those alone.")
        report: Report | None = None
        try:
            report = build_report(store, rubric, human=Group("human", experts), judge=Group("judge", (judge,)),
                                  split=split, settings=settings, ratings=ratings, judge_only=visible is None)
            figures = _figure_lines(report, experts, split, settings)
            figure_rows = _figure_rows(report)
            # A lead who rated sees the page over their own items, without the pool estimate (the blind rule).
            # Read while ratings come in, it decides at any time; once every item is compared, at fixed n.
            validity = validity_by_version(store, report, ratings, settings, judge_only=visible is None,
                                           live=ratings_coming_in(store, report))
        except NoComparison as exc:
            notes.append(str(exc))
        misaligned = _misaligned(store, rubric, judge, split, settings, visible)
        biases = judge_biases(store, rubric, judge, split=split, settings=settings, ratings=ratings, report=report)
    if judge is not None:
        totals = store.judge_call_totals(judge)
        cost = Cost(int(totals["calls"]), float(totals["cost_usd"]),
                    int(totals["input_tokens"] + totals["cache_read_tokens"] + totals["cache_write_tokens"]),
                    int(totals["cache_read_tokens"]))
    comparison = None
    if previous is None:
        comparison_lines: tuple[str, ...] = ("No earlier prompt version to compare with: this is the first.",)
    elif judge is None or before is None:
        comparison_lines = (f"Waiting for judgments under both prompt {previous} and prompt {prompt_version}.",)
    else:
        try:
            try:  # by prompt version, as `history` names them; by judge rater when several models used one
                comparison = compare_versions(store, rubric, previous, prompt_version, split=split,
                                              settings=settings, only_items=visible)
                if (comparison.v1.rater_id, comparison.v2.rater_id) != (before, judge):
                    raise UserError("another model's judgments under these versions")
            except UserError:
                comparison = compare_versions(store, rubric, before, judge, split=split, settings=settings,
                                              only_items=visible)
            comparison_lines = (change_headline(comparison),
                                *lines_of(compare_blocks(comparison), "text"))
        except UserError as exc:
            comparison_lines = (str(exc),)
    jury = _jury_lines(store, rubric, judge, split, settings, visible) if experts else ()
    return Standing(rubric.id, split, rubric_note, prompt_note, judge, before, figures, comparison,
                    comparison_lines, misaligned, cost, biases, tuple(notes), figure_rows, jury, validity,
                    shown.heading if shown is not None else "")


def _jury_lines(store: Store, rubric: Rubric, judge: str | None, split: str, settings: AgreementSettings,
                visible: set[str] | None) -> tuple[str, ...]:
    """Every judge of the rubric as a jury (the judge in force standing for its model), drawn as the report
    draws it; nothing with fewer than two judges."""
    members = default_members(store, rubric.id)
    if judge is not None:
        members = tuple(sorted({*(m for m in members if judge_model(m) != judge_model(judge)), judge}))
    jury = build_jury(store, rubric, members, split=split, settings=settings, only_items=visible)
    return tuple(lines_of(jury_blocks(jury), "text")) if jury is not None else ()
