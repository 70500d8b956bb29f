"""How agreement with the experts moved between two judge prompt (or rubric) versions: `report --compare V1 V2`.

A version is named by what `judge-tui history` shows:

* a judge prompt version (its hash, or a prefix of at least four characters): the judge rater with that
  prompt version;
* a rubric version number (`#4`, or `4` when no prompt version starts with it): the judge's ratings made under
  that rubric version;
* a judge rater id (`judge:<model>:<rubric>@<prompt version>`).

Both versions are measured against the same human reference, the experts' consensus (adjudicated score,
else the mean or PASS/FAIL majority of the experts who rated the item; a single expert's score when only one
did), on the SAME items: those both versions judged and the experts rated. The dev split is used unless
another split is asked for; when no item has a split at all, every item is used and the result says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge_tui.analysis.pair_intervals import Change, paired_changes, pooled_change
from judge_tui.analysis.scores import AlignedPair, load, pooled_alignment
from judge_tui.analysis.team import load_team, team_consensus
from judge_tui.formats.numbers import aligned_text
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats import agreement as ag
from judge_tui.store import Store

DEFAULT_SPLIT = "dev"


@dataclass(frozen=True)
class Version:
    name: str  # as the user gave it
    rater_id: str
    rubric_version_ids: tuple[int, ...] | None  # None: every rubric version of that rater


@dataclass(frozen=True)
class DimensionShift:
    dimension: str
    n: int
    alignment: tuple[ag.Figure, ag.Figure]
    kappa: tuple[ag.Figure, ag.Figure]
    pearson: tuple[ag.Figure, ag.Figure]
    paired: tuple[AlignedPair, AlignedPair]  # the consensus against each version, item by item
    changes: dict[str, Change]  # "alignment", "kappa", "pearson_r": v2 - v1 with a paired interval


@dataclass(frozen=True)
class VersionComparison:
    rubric: str
    split: str | None  # None: every item (no splits assigned)
    v1: Version
    v2: Version
    experts: tuple[str, ...]
    items: int  # items in the comparison (rated by the experts and judged under both versions)
    settings: AgreementSettings  # the tolerance and the confidence of every interval it was measured at
    dimensions: tuple[DimensionShift, ...]
    alignment: tuple[ag.Figure, ag.Figure]  # over every judged dimension
    alignment_change: Change
    aligned: str  # what aligned means on the scale, in words (formats.numbers.aligned_text)


def resolve_version(store: Store, rubric: Rubric, name: str) -> Version:
    """The judge ratings a version name stands for. Tried in order: a judge rater id, an exact prompt version,
    a rubric version number (`#4` always means one), a prompt version prefix of four or more characters."""
    judges = store.judge_raters_with_prompt(rubric.id)
    by_id = {j["id"]: j for j in judges}
    if name in by_id:
        return Version(name, name, None)

    def prompt_of(judge: dict[str, Any]) -> str:
        return str(judge["prompt_version"] or judge["id"].rpartition("@")[2])

    def one(matches: list[str], what: str) -> Version | None:
        if len(matches) > 1:
            raise UserError(f"{what} {name!r} was used by several judges ({', '.join(matches)}); give the full "
                            "judge rater id instead")
        return Version(name, matches[0], None) if matches else None

    exact = one([j["id"] for j in judges if not name.startswith("#") and prompt_of(j) == name], "prompt version")
    if exact:
        return exact
    # A bare number may also be the start of a prompt version (6797 of 6797ab12...): both are looked up, and
    # a name that fits both is refused rather than guessed; "#4" is always a rubric version.
    prefixed = [j["id"] for j in judges if prompt_of(j).startswith(name)] if len(name) >= 4 else []
    number = re.fullmatch(r"#?(\d+)", name)
    if number:
        ids = [v["id"] for v in store.rubric_versions(rubric.id) if v["number"] == int(number.group(1))]
        raters = [r for r in store.judge_raters_on_version(ids[0]) if r in by_id] if ids else []
        if raters and prefixed:
            prompts = ", ".join(sorted({prompt_of(by_id[j]) for j in prefixed}))
            raise UserError(f"{name!r} is both rubric version {int(number.group(1))} (judged by "
                            f"{', '.join(raters)}) and the start of prompt version {prompts}: write "
                            f"#{int(number.group(1))} for the rubric version, or more of the prompt version")
        found = one(raters, "rubric version")
        if found:
            # Its ratings as every figure reads them: under the version that asks the experts the same.
            return Version(name, found.rater_id, (store.compared_rubric_versions().get(ids[0], ids[0]),))
    if prefixed:
        found = one(prefixed, "prompt version")
        if found:
            return found
    known = ", ".join(sorted({prompt_of(j) for j in judges})) or "none"
    raise UserError(f"no judge ratings of rubric {rubric.id!r} under prompt version or rubric version {name!r}; "
                    f"known prompt versions: {known} (see `judge-tui history --rubric {rubric.id}`)")


def compare_versions(store: Store, rubric: Rubric, v1: str, v2: str, split: str | None = None,
                     settings: AgreementSettings | None = None,
                     only_items: set[str] | None = None) -> VersionComparison:
    """Both versions against the experts' consensus on the same items (of ``only_items`` when given: those the
    viewer may see). Each change comes with the interval of
    a paired bootstrap over those items (both versions see the same resampled items), and a verdict: improved
    (the interval lies above 0), worse (below) or no detectable change (it straddles 0)."""
    settings = settings or AgreementSettings()
    first, second = resolve_version(store, rubric, v1), resolve_version(store, rubric, v2)
    if (first.rater_id, first.rubric_version_ids) == (second.rater_id, second.rubric_version_ids):
        raise UserError(f"{v1} and {v2} name the same version; compare two different ones")
    if split is None:
        split = DEFAULT_SPLIT
        if store.count_items(rubric.id, split) == 0 and all(
            store.count_items(rubric.id, s) == 0 for s in ("train", "dev", "test")
        ):
            split = None  # no splits assigned at all
    ratings = load(store, rubric, split)  # read once: the experts and both versions
    view = load_team(store, rubric, split=split, ratings=ratings, notes=False, only_items=only_items)
    if not view.item_ids and only_items is not None:
        raise UserError(f"none of the items you rated is in the {split} split: the blind rule shows you the "
                        "judge only on those")
    if not view.item_ids:
        raise UserError(f"no items of rubric {rubric.id} in the {split} split; assign splits with "
                        f"`judge-tui split` or choose one with --split")
    judged = [ratings.first_runs(v.rater_id, v.rubric_version_ids) for v in (first, second)]
    aligned_within = rubric.scale.alignment_tolerance(settings.tolerance)  # nominal categories: only the same category
    shifts = []
    paired: list[list[AlignedPair]] = [[], []]
    used = np.zeros(len(view.item_ids), dtype=bool)
    for d in view.dimensions:
        column = rubric.dimension_ids.index(d)
        human, _ = team_consensus(view, d, min_raters=1)
        versions = [j.on(view.item_keys, column) for j in judged]
        same = ~np.isnan(human) & ~np.isnan(versions[0]) & ~np.isnan(versions[1])
        used |= same
        pairs = [AlignedPair(view.item_keys[same], human[same], v[same]) for v in versions]
        for k, p in enumerate(pairs):
            paired[k].append(p)
        figures = [p.compare(rubric, settings.tolerance) for p in pairs]
        both = (pairs[0], pairs[1])
        shifts.append(DimensionShift(d, int(np.count_nonzero(same)),
                                     (figures[0].alignment_rate, figures[1].alignment_rate),
                                     (figures[0].cohen_kappa, figures[1].cohen_kappa),
                                     (figures[0].pearson_r, figures[1].pearson_r), both,
                                     paired_changes(both, (figures[0], figures[1]), rubric, aligned_within, settings.confidence)))
    empty = "no items were judged under both versions and rated by the experts"
    pooled = (pooled_alignment(paired[0], aligned_within, empty), pooled_alignment(paired[1], aligned_within, empty))
    change = pooled_change((paired[0], paired[1]), aligned_within, pooled, settings.confidence)
    return VersionComparison(rubric.id, split, first, second, view.experts, int(np.count_nonzero(used)),
                             settings, tuple(shifts), pooled, change, aligned_text(rubric.scale, settings.tolerance))
