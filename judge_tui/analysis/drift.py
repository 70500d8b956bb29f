"""Criteria drift: re-show some already-rated items later in a session and measure self-agreement.

An expert's idea of a score can shift as they see more items. With the `drift_check` setting on, the rating
screen asks a DriftScheduler before each new item whether a re-check is due. The rule, deterministic for a
session's seed:

* a re-check is due whenever the re-checks shown so far are fewer than `share` (default 10%) of the items
  newly rated in this session, so one in ten at the default;
* it is drawn at random (seeded) from the items this expert rated once under the current rubric version and
  never re-rated, leaving out the MIN_GAP items rated most recently (too fresh in memory to test anything);
* the screen shows it like a new item, blind: no earlier score, note or draft.

The re-rating is saved as repeat 1 of the same rater with source "drift"; the first rating (repeat 0) is never
touched and stays the expert's rating everywhere else. Self-agreement compares repeat 0 with repeat 1.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store

if TYPE_CHECKING:
    from judge_tui.analysis.scores import AlignedPair, RubricRatings
    from judge_tui.stats import agreement as ag
    from judge_tui.stats.intervals import IntervalFigure

DEFAULT_SHARE = 0.10
MIN_GAP = 5
DRIFT_SOURCE = "drift"
DRIFT_REPEAT = 1


@dataclass(frozen=True)
class DriftSettings:
    """Drift checks for one session: the share re-shown and the session's seed (recorded with each re-rating)."""

    share: float = DEFAULT_SHARE
    seed: int = 0

    @classmethod
    def for_new_session(cls, share: float) -> DriftSettings:
        return cls(share=share, seed=random.SystemRandom().randrange(2**31))


class DriftScheduler:
    """When to re-show which already-rated item, for one expert, rubric version and session."""

    def __init__(self, store: Store, rater_id: str, rubric: Rubric, rubric_version_id: int, *,
                 share: float = DEFAULT_SHARE, seed: int = 0, min_gap: int = MIN_GAP) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"drift share must be above 0 and at most 1, got {share}")
        self.store, self.rater_id, self.rubric, self.version = store, rater_id, rubric, rubric_version_id
        self.share, self.seed, self.min_gap = share, seed, min_gap
        self._rng = random.Random(seed)
        self.new_ratings = 0
        self.rechecks = 0
        self._pending: str | None = None

    def record_new_rating(self) -> None:
        """The expert submitted a first rating of an item in this session."""
        self.new_ratings += 1

    def record_recheck(self, item_id: str) -> None:
        """The expert submitted the re-rating of a re-shown item."""
        if self._pending == item_id:
            self._pending = None
        self.rechecks += 1

    def due(self) -> bool:
        return self.rechecks < int(self.share * self.new_ratings + 1e-9)

    def next_recheck(self) -> Item | None:
        """The item to re-show now, or None when no re-check is due (or none is possible)."""
        if self._pending is not None:
            return self.store.item(self._pending)
        if not self.due():
            return None
        candidates = [item_id for item_id, version in self.store.drift_candidates(self.rater_id, self.rubric.id)
                      if version == self.version]
        pool = candidates[: max(0, len(candidates) - self.min_gap)]
        if not pool:
            return None
        self._pending = self._rng.choice(pool)
        return self.store.item(self._pending)

    def is_recheck(self, item_id: str) -> bool:
        return self._pending == item_id

    def rating(self, item: Item, scores: dict[str, float], notes: str = "", seconds: float = 0.0) -> Rating:
        """The re-rating to save: repeat 1 of this rater, marked as a drift check."""
        full = {**self.rubric.code_scores(item.fields), **scores}
        return Rating(item_id=item.id, rater_id=self.rater_id, rubric_version_id=self.version, scores=full,
                      overall=self.rubric.overall_score(full), verdict=self.rubric.verdict(full), notes=notes,
                      seconds=seconds, repeat=DRIFT_REPEAT, source=DRIFT_SOURCE,
                      details={"drift": {"seed": self.seed, "share": self.share}})


# --------------------------------------------------------------------------- self-agreement


@dataclass(frozen=True)
class ExpertSelfAgreement:
    rater_id: str
    pairs: int  # items rated twice
    alignment: ag.Figure  # over every judged dimension
    by_dimension: dict[str, ag.PairAgreement]  # first rating as "human", re-rating as "judge"
    paired: dict[str, AlignedPair]  # per dimension: first rating and re-rating, item by item
    alignment_interval: IntervalFigure  # items resampled with all their dimensions
    dimension_intervals: dict[str, dict[str, IntervalFigure]]  # dimension -> alignment (Wilson), kappa


def self_agreement(store: Store, rubric: Rubric, split: str | None = None,
                   settings: AgreementSettings | None = None,
                   ratings: RubricRatings | None = None) -> list[ExpertSelfAgreement]:
    """Each expert's agreement with their own earlier ratings, over the items they rated twice; two scores
    count as aligned when at most the settings' tolerance apart. `ratings`: the split's ratings, when already
    loaded."""
    from judge_tui.analysis.pair_intervals import pair_intervals, pooled_interval
    from judge_tui.analysis.scores import load, pooled_alignment

    settings = settings or AgreementSettings()
    if ratings is None:
        ratings = load(store, rubric, split)
    columns = [(d.id, rubric.dimension_ids.index(d.id)) for d in rubric.judged_dimensions]
    aligned_within = rubric.scale.alignment_tolerance(settings.tolerance)  # nominal categories: only the same category
    out = []
    for rater in ratings.raters_of_kind("human"):
        pairing = ratings.reratings(rater, DRIFT_REPEAT)
        if pairing.keys.size == 0:
            continue
        paired = {d: pairing.column(column) for d, column in columns}
        by_dim = {d: p.compare(rubric, settings.tolerance) for d, p in paired.items()}
        alignment = pooled_alignment(paired.values(), aligned_within, "no items were rated twice")
        intervals = {d: {k: v for k, v in pair_intervals(paired[d], p, settings.confidence).items() if k != "pearson_r"}
                     for d, p in by_dim.items()}
        out.append(ExpertSelfAgreement(rater, int(pairing.keys.size), alignment, by_dim, paired,
                                       pooled_interval(list(paired.values()), aligned_within, settings.confidence),
                                       intervals))
    return out


def drift_figures(store: Store, rubric: Rubric, split: str | None = None, rater: str | None = None,
                  settings: AgreementSettings | None = None,
                  ratings: RubricRatings | None = None) -> list[ExpertSelfAgreement]:
    """Each expert's (or one expert's) self-agreement over the items they rated twice (empty when none did): the
    report's section, and the summary screen's for one reviewer."""
    if ratings is None and not store.has_human_rerating(rubric.id):
        return []
    return [s for s in self_agreement(store, rubric, split, settings, ratings=ratings)
            if rater is None or s.rater_id == rater]
