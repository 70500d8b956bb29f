"""One path from the store to every figure: a rubric's ratings read once, as arrays, then paired.

Every agreement figure (human vs judge, expert vs expert, the consensus, a judge's repeats, an expert's
re-ratings, one judge version against another) starts here:

* `load` reads every rating of a rubric (optionally one split) in one SQL pass into `RubricRatings`:
  parallel arrays of rater, item key, repeat, rubric version, overall and dimension scores;
* `RubricRatings.first_runs` applies the one rule for "a rater's rating of an item" (the store's view
  current_ratings): their first run (repeat 0) under the newest rubric version they rated the item in, newest
  in the store's order of versions (`version_order`, never the row id). Repeats stay available
  (`by_repeat` for a judge's repeats, `reratings` for an expert's blind re-ratings);
* `pair` lines two sides up over the items both scored (`Pairing`), and `Pairing.column` (a dimension) /
  `Pairing.overall` give an `AlignedPair`: the two sides' scores item by item, with the item keys. Figures
  are computed from AlignedPairs, so an interval can resample their items;
* `pooled_alignment` is the share of aligned scores over several AlignedPairs (every judged dimension);
* `first_run_matrix` lays several raters out as raters x items x dimensions, and `consensus` combines them
  per item (the mean, or the PASS/FAIL majority);
* `item_groups` gives each item's group for a breakdown (task type, split, or a field of the item).

Item keys are the items' row ids (as `store.item_field_values` and `store.item_keys_in_order` give them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from judge_tui.analysis.row_figures import ROW_FIGURES
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.stats import agreement as ag
from judge_tui.store import RubricScores, Store

# Item properties a group (a breakdown) can use besides the item's own fields and its id.
ITEM_COLUMNS = ("task_type", "split")
# Where the overall score sits among a side's columns (`Scores.column`, `Pairing.column`).
OVERALL_COLUMN = -1


# --------------------------------------------------------------------------------------------------
# One side's scores
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scores:
    """One side's scores, one row per item: a rater's first runs, a group's means, a judge's repeat."""

    keys: np.ndarray  # int64 item keys, sorted and unique
    scores: np.ndarray  # items x dimensions (the rubric's dimension order), NaN where unscored
    overall: np.ndarray

    @classmethod
    def empty(cls, n_dimensions: int) -> Scores:
        return cls(np.empty(0, np.int64), np.empty((0, n_dimensions)), np.empty(0))

    def column(self, index: int) -> np.ndarray:
        """One dimension's scores (OVERALL_COLUMN: the overall score)."""
        return self.overall if index == OVERALL_COLUMN else self.scores[:, index]

    def on(self, keys: np.ndarray, index: int) -> np.ndarray:
        """One column laid over other item keys (sorted or not): NaN where this side has no row."""
        column = self.column(index)
        out = np.full(keys.size, np.nan)
        if self.keys.size and keys.size:
            position, found = self._placed(keys)
            out[found] = column[position[found]]
        return out

    def rows_on(self, keys: np.ndarray) -> np.ndarray:
        """Every column (the dimensions, then the overall score) laid over other item keys (sorted or not):
        items x (dimensions + 1), NaN where this side has no row."""
        table = np.column_stack([self.scores, self.overall])
        out = np.full((keys.size, table.shape[1]), np.nan)
        if self.keys.size == 0 or keys.size == 0:
            return out
        position, found = self._placed(keys)
        out[found] = table[position[found]]
        return out

    def _placed(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each of ``keys`` is among this side's (sorted) keys, and whether it is there at all."""
        position = np.clip(np.searchsorted(self.keys, keys), 0, self.keys.size - 1)
        return position, self.keys[position] == keys


def key_places(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct item keys, sorted, and each key's place among them: np.unique(keys, return_inverse=True).
    Item keys are row ids, most of a span taken: marked in a table of the span, several times as fast as the
    sort np.unique makes (5 ms for the 250k keys of 5 dimensions of 50k items)."""
    if keys.size == 0 or int(keys.max()) - int(keys.min()) >= 4 * keys.size:
        unique, inverse = np.unique(keys, return_inverse=True)
        return unique, inverse
    low = int(keys.min())
    offsets = keys - low
    present = np.zeros(int(offsets.max()) + 1, dtype=bool)
    present[offsets] = True
    place = np.cumsum(present) - 1
    return np.flatnonzero(present) + low, place[offsets]


def mean_of(members: Sequence[Scores], n_dimensions: int) -> Scores:
    """A group's scores: the members' mean per item and dimension, ignoring members who left it unscored."""
    if len(members) == 1:
        return members[0]
    if not members:
        return Scores.empty(n_dimensions)
    keys = np.concatenate([m.keys for m in members])
    values = np.column_stack([np.concatenate([m.scores for m in members]),
                              np.concatenate([m.overall for m in members])])
    unique, inverse = key_places(keys)
    present = ~np.isnan(values)
    sums = np.zeros((unique.size, values.shape[1]))
    counts = np.zeros((unique.size, values.shape[1]))
    for column in range(values.shape[1]):
        sums[:, column] = np.bincount(inverse, np.where(present[:, column], values[:, column], 0.0), unique.size)
        counts[:, column] = np.bincount(inverse, present[:, column], unique.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return Scores(unique, mean[:, :-1], mean[:, -1])


def majority_of(members: Sequence[Scores], n_dimensions: int) -> tuple[Scores, int]:
    """A group's scores on unordered categories: the members' most frequent category per item and dimension
    (a mean of category positions would be another category), NaN where the most frequent tie. Returns the
    scores and how many items have a tie."""
    if len(members) == 1:
        return members[0], 0
    if not members:
        return Scores.empty(n_dimensions), 0
    keys = np.unique(np.concatenate([m.keys for m in members]))
    columns = np.stack([m.rows_on(keys) for m in members])  # members x items x (dimensions + overall)
    out = np.full(columns.shape[1:], np.nan)
    tied_items = np.zeros(keys.size, dtype=bool)
    for column in range(columns.shape[2]):
        out[:, column], tied = consensus(columns[:, :, column], ordered=False, min_raters=1)
        tied_items |= tied
    return Scores(keys, out[:, :-1], out[:, -1]), int(np.count_nonzero(tied_items))


# --------------------------------------------------------------------------------------------------
# A rubric's ratings
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RubricRatings:
    """Every rating of one rubric (in one split, or all), every rater, every repeat, as parallel arrays."""

    rubric: Rubric
    split: str | None
    rater_ids: tuple[str, ...]  # every rater with a rating here, sorted
    kinds: dict[str, str]  # rater id -> "human" or "judge"
    rater: np.ndarray  # per rating: index into rater_ids
    item_keys: np.ndarray
    repeats: np.ndarray
    versions: np.ndarray  # rubric version ids
    version_order: np.ndarray  # each rating's version's number in its rubric (the store's order): higher is newer
    overall: np.ndarray
    scores: np.ndarray  # ratings x dimensions
    # Each rater's first runs, made once: a report asks for the same rater's dozens of times. Never copied by
    # dataclasses.replace (a subset of the ratings starts with none).
    _first_runs: dict[str, Scores] = dataclasses.field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_dimensions(self) -> int:
        return int(self.scores.shape[1])

    def restricted_to(self, keys: np.ndarray) -> RubricRatings:
        """The ratings of these items only (the items a viewer may see under the blind rule)."""
        return self._where(np.isin(self.item_keys, keys))

    def at_version(self, version_id: int) -> RubricRatings:
        """The ratings made under one rubric version only: each rater's current rating at that version is then
        their first run there (the figures of one version, never mixed with another's)."""
        return self._where(self.versions == version_id)

    def _where(self, inside: np.ndarray) -> RubricRatings:
        return dataclasses.replace(self, rater=self.rater[inside], item_keys=self.item_keys[inside],
                                   repeats=self.repeats[inside], versions=self.versions[inside],
                                   version_order=self.version_order[inside],
                                   overall=self.overall[inside], scores=self.scores[inside])

    def versions_of(self, rater_id: str) -> tuple[int, ...]:
        """The rubric versions (ids) a rater made first runs under, newest first (the store's order)."""
        mine = self._of(rater_id) & (self.repeats == 0)
        found = {int(v): int(o) for v, o in zip(self.versions[mine].tolist(), self.version_order[mine].tolist(),
                                                   strict=True)}
        return tuple(sorted(found, key=lambda v: -found[v]))

    def raters_of_kind(self, kind: str) -> tuple[str, ...]:
        return tuple(r for r in self.rater_ids if self.kinds[r] == kind)

    def _of(self, rater_id: str) -> np.ndarray:
        if rater_id not in self.kinds:
            return np.zeros(self.rater.size, dtype=bool)
        return np.asarray(self.rater == self.rater_ids.index(rater_id), dtype=bool)

    def rating_counts(self, rater_id: str, repeat: int = 0) -> int:
        return int(np.count_nonzero(self._of(rater_id) & (self.repeats == repeat)))

    def first_runs(self, rater_id: str, versions: Sequence[int] | None = None) -> Scores:
        """The rule for a rater's rating of an item: their first run (repeat 0) under the newest rubric
        version they rated the item in (only among ``versions`` when given). The arrays are shared between
        callers, so they are read-only."""
        if versions is None and rater_id in self._first_runs:
            return self._first_runs[rater_id]
        keep = self._of(rater_id) & (self.repeats == 0)
        if versions is not None:
            keep &= np.isin(self.versions, np.asarray(versions, dtype=np.int64))
        found = _newest_per_item(self.item_keys[keep], self.version_order[keep], self.scores[keep],
                                 self.overall[keep])
        if versions is None:
            for array in (found.keys, found.scores, found.overall):
                array.setflags(write=False)
            self._first_runs[rater_id] = found
        return found

    def first_run_matrix(self, rater_ids: Sequence[str | None], keys: np.ndarray) -> np.ndarray:
        """Raters x items x dimensions of first runs over the items ``keys``, NaN where a rater left a score
        out (a rater None, or without a rating here: a row of NaN)."""
        out = np.full((len(rater_ids), keys.size, self.n_dimensions), np.nan)
        for row, rater in enumerate(rater_ids):
            if rater is not None:
                out[row] = self.first_runs(rater).rows_on(keys)[:, :-1]
        return out

    def by_repeat(self, rater_id: str, restrict: np.ndarray | None = None) -> dict[int, Scores]:
        """A rater's runs, repeat by repeat, each on the item's newest rubric version among the rater's
        ratings (``restrict``: only these item keys)."""
        mask = self._of(rater_id)
        if restrict is not None:
            mask &= np.isin(self.item_keys, restrict)
        keys, order, repeats = self.item_keys[mask], self.version_order[mask], self.repeats[mask]
        if keys.size == 0:
            return {}
        newest = np.full(int(keys.max()) + 1, -1, dtype=np.int64)
        np.maximum.at(newest, keys, order)
        current = order == newest[keys]
        keys, repeats = keys[current], repeats[current]
        scores, overall = self.scores[mask][current], self.overall[mask][current]
        out = {}
        newest_order = order[current]
        for repeat in np.unique(repeats).tolist():
            this = repeats == repeat  # one run per item: between versions that ask the same, the last written
            out[int(repeat)] = _newest_per_item(keys[this], newest_order[this], scores[this], overall[this])
        return out

    def reratings(self, rater_id: str, repeat: int) -> Pairing:
        """A rater's first runs against their re-runs (``repeat``) of the same item under the same rubric
        version, every version counted (keys here stand for item and version together)."""
        mask = self._of(rater_id)
        sides = []
        for wanted in (0, repeat):
            this = mask & (self.repeats == wanted)
            keys = (self.item_keys[this] << 32) | self.versions[this]
            # Versions that ask the same are one (the store's rule): the newest run of each there counts.
            sides.append(_newest_per_item(keys, self.version_order[this], self.scores[this], self.overall[this]))
        return pair(sides[0], sides[1])


def _newest_per_item(keys: np.ndarray, version_order: np.ndarray, scores: np.ndarray, overall: np.ndarray) -> Scores:
    """Each item's rating under its newest version; between ratings of one version number (versions that ask the
    same), the last in the store's order, which is the order they were written (a stable sort keeps it)."""
    order = np.lexsort((version_order, keys))
    sorted_keys = keys[order]
    last = order[np.r_[sorted_keys[1:] != sorted_keys[:-1], True]] if keys.size else order
    return Scores(keys[last], scores[last], overall[last])


def load(store: Store, rubric: Rubric, split: str | None = None) -> RubricRatings:
    """Every rating of ``rubric`` (in ``split``, if given), read in one pass."""
    table: RubricScores = store.rubric_scores(rubric.id, rubric.dimension_ids, split)
    present = np.unique(table.rater_keys)
    named = sorted((table.raters[int(k)][0], int(k)) for k in present)
    rater_ids = tuple(r for r, _ in named)
    index_of_key = np.zeros(int(present.max()) + 1 if present.size else 1, dtype=np.int64)
    for index, (_, key) in enumerate(named):
        index_of_key[key] = index
    return RubricRatings(
        rubric=rubric, split=split, rater_ids=rater_ids,
        kinds={table.raters[k][0]: table.raters[k][1] for _, k in named},
        rater=index_of_key[table.rater_keys], item_keys=table.item_keys, repeats=table.repeats,
        versions=table.versions, version_order=table.version_order, overall=table.overall, scores=table.scores,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------------
# Groups of items
# --------------------------------------------------------------------------------------------------


def has_item_field(store: Store, rubric: Rubric, field: str) -> bool:
    """Whether items can be grouped by ``field``: a property of every item, or a field some item has."""
    return field in ITEM_COLUMNS or field == "id" or store.item_fields_present(rubric.id, field)


def item_groups(store: Store, rubric: Rubric, field: str, keys: np.ndarray, split: str | None = None) -> list[str]:
    """The group of each item key (its ``field`` as text); "(none)" where the item lacks it."""
    known, values = store.item_field_values(rubric.id, field, split)
    out = []
    for position in np.searchsorted(known, keys).tolist():
        value = values[position] if position < len(values) else None
        out.append("(none)" if value is None or value == "" else str(value))
    return out


# --------------------------------------------------------------------------------------------------
# How two scores agree, and how far apart they are (the one home of both rules)
# --------------------------------------------------------------------------------------------------


def agreeing(scale: Scale, a: ag.ArrayLike, b: ag.ArrayLike, tolerance: float) -> np.ndarray:
    """Pair by pair, whether two scores on ``scale`` align: at most ``tolerance`` apart on an ordered scale, the
    same category on a nominal one (Scale.alignment_tolerance). A missing score (NaN) never aligns."""
    return ag.within_tolerance(a, b, scale.alignment_tolerance(tolerance))


def score_gaps(scale: Scale, a: ag.ArrayLike, b: ag.ArrayLike) -> np.ndarray:
    """Pair by pair, how far apart two scores are: |a − b| on an ordered scale; on a nominal one 0 for the same
    category and 1 for another, since the distance between two stored positions means nothing there. NaN where
    a score is missing."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if not scale.nominal:
        return np.abs(x - y)
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x) | np.isnan(y), np.nan, (~agreeing(scale, x, y, 0.0)).astype(np.float64))


# --------------------------------------------------------------------------------------------------
# Pairing two sides
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlignedPair:
    """Two sides' scores of one figure (a dimension, or the overall score) over the items both scored,
    item by item: what every agreement figure is computed from, and what an interval would resample."""

    keys: np.ndarray  # item keys, one per pair
    a: np.ndarray  # the reference side (human, expert, first rating, older version)
    b: np.ndarray  # the side being checked (judge, other expert, re-rating, newer version)

    @classmethod
    def of(cls, keys: np.ndarray, a: np.ndarray, b: np.ndarray) -> AlignedPair:
        """The pairs where both sides have a score (NaN marks a missing one)."""
        both = ~np.isnan(a) & ~np.isnan(b)
        return cls(keys[both], a[both], b[both])

    @property
    def n(self) -> int:
        return int(self.keys.size)

    def aligned(self, within: float) -> np.ndarray:
        """Pair by pair, whether the two scores are at most ``within`` apart (the tolerance on the rubric's scale,
        Scale.alignment_tolerance)."""
        return ag.within_tolerance(self.a, self.b, within)

    def compare(self, rubric: Rubric, tolerance: float) -> ag.PairAgreement:
        """Every pairwise figure on the rubric's scale (alignment: as `agreeing` counts it)."""
        scale = rubric.scale
        return ag.compare(self.a, self.b, scale.points, ordered=scale.ordered,
                          tolerance=scale.alignment_tolerance(tolerance), figures=ROW_FIGURES)

    def subset(self, mask: np.ndarray) -> AlignedPair:
        return AlignedPair(self.keys[mask], self.a[mask], self.b[mask])


@dataclass(frozen=True)
class Pairing:
    """Two sides' scores over the items both rated (each side may still leave a dimension unscored)."""

    keys: np.ndarray
    a: Scores
    b: Scores

    def column(self, index: int) -> AlignedPair:
        """One dimension (OVERALL_COLUMN: the overall score), over the items where both sides scored it."""
        return AlignedPair.of(self.keys, self.a.column(index), self.b.column(index))

    def overall(self) -> AlignedPair:
        return self.column(OVERALL_COLUMN)

    def subset(self, mask: np.ndarray) -> Pairing:
        return Pairing(self.keys[mask], _rows(self.a, mask), _rows(self.b, mask))


def _rows(scores: Scores, mask: np.ndarray) -> Scores:
    return Scores(scores.keys[mask], scores.scores[mask], scores.overall[mask])


def pair(a: Scores, b: Scores) -> Pairing:
    """``a`` and ``b`` over the items both have a row for, aligned row by row."""
    common, ia, ib = np.intersect1d(a.keys, b.keys, assume_unique=True, return_indices=True)
    return Pairing(common, _rows(a, ia), _rows(b, ib))


def aligned_count(pairs: Iterable[AlignedPair], within: float) -> tuple[int, int]:
    """(aligned scores, scores compared) over several AlignedPairs taken together."""
    flags = [p.aligned(within) for p in pairs]
    return sum(int(np.count_nonzero(f)) for f in flags), sum(int(f.size) for f in flags)


def pooled_alignment(pairs: Iterable[AlignedPair], within: float, empty: str) -> ag.Figure:
    """The share of aligned scores over several AlignedPairs taken together (e.g. every judged dimension);
    Undefined, for the reason ``empty``, when there is no pair at all."""
    aligned, total = aligned_count(pairs, within)
    return aligned / total if total else ag.Undefined(empty)


# --------------------------------------------------------------------------------------------------
# Consensus
# --------------------------------------------------------------------------------------------------


def consensus(matrix: np.ndarray, ordered: bool, min_raters: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Per item: the mean of the raters' scores (ordered scales) or the majority value (unordered), NaN where
    fewer than `min_raters` rated or (unordered) the most frequent values tie. Returns (values, tie mask)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    present = ~np.isnan(matrix)
    raters = present.sum(axis=0)
    enough = raters >= min_raters
    if ordered:
        # Summed rater by rater, in the order a mean over each item's column would add them.
        sums = np.where(present, matrix, 0.0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(enough, sums / np.maximum(raters, 1), np.nan), np.zeros(matrix.shape[1], dtype=bool)
    values = np.unique(matrix[present])
    if values.size == 0:
        return np.full(matrix.shape[1], np.nan), np.zeros(matrix.shape[1], dtype=bool)
    counts = np.stack([(matrix == v).sum(axis=0) for v in values])  # values x items
    winners = (counts == counts.max(axis=0)).sum(axis=0)
    out = np.where(enough & (winners == 1), values[counts.argmax(axis=0)], np.nan)
    return out, enough & (winners > 1)


def items_at_least(counts_of: Iterable[Scores], n: int) -> int:
    """How many items appear in at least ``n`` of these sides (e.g. judged at least twice)."""
    keys = [s.keys for s in counts_of]
    if not keys:
        return 0
    _, counts = np.unique(np.concatenate(keys), return_counts=True)
    return int(np.count_nonzero(counts >= n))
