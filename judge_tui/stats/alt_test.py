"""The alternative annotator test: may a judge stand in for the experts?

Calderon, Reichart and Dror, "The Alternative Annotator Test for LLM-as-a-Judge: How to Statistically Justify
Replacing Human Annotators with LLMs" (ACL 2025, arXiv 2501.10970). The procedure, as the authors' reference
implementation runs it:

1. keep the items that at least ``min_experts_per_item`` experts (2) and the judge rated;
2. leave one expert out at a time; on each kept item that expert rated, score the judge's rating and the
   left-out expert's against the remaining experts' ratings of the item (``accuracy``: the share of them it
   equals, for PASS/FAIL and categorical scales; ``neg_rmse``: minus the root mean squared difference from
   them, for graded scales);
3. per item, the judge "wins" when its score is at least the expert's, the expert wins when theirs is at least
   the judge's (a tie counts for both); an expert with fewer than ``min_items_per_expert`` (30) such items is
   left out of the test;
4. per expert, a one-sided one-sample t-test of the item differences (expert won − judge won) with the null
   hypothesis mean ≥ ε: rejecting it says the expert's edge over the judge is below the cost-benefit margin ε;
5. Benjamini–Yekutieli at level q over the experts tested; the **winning rate** ω is the share of tested
   experts whose null was rejected, and the judge passes at ω ≥ 0.5;
6. the **advantage probability** ρ is the mean over tested experts of the share of items the judge won: the
   chance that the judge is as good as or better than a randomly chosen expert, for comparing judges.

ε is the price of an expert: the larger it is, the more an expert must beat the judge by before the judge is
said not to replace them. The authors suggest 0.2 for experts, 0.15 for skilled annotators and 0.1 for
crowd-workers.

A sample t-test with no spread (every item difference equal) has an infinite statistic: its p-value is 0 when
the constant difference is below ε, 1 when above, and undefined (never rejected) when equal, as scipy has it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import t_cdf

__all__ = [
    "AltTest",
    "ExpertComparison",
    "alternative_annotator_test",
    "benjamini_yekutieli",
    "DEFAULT_EPSILON",
    "DEFAULT_Q",
    "MIN_EXPERTS_PER_ITEM",
    "MIN_ITEMS_PER_EXPERT",
    "Scoring",
]

Scoring = Literal["accuracy", "neg_rmse"]

DEFAULT_EPSILON = 0.2  # the authors' value for expert annotators
DEFAULT_Q = 0.05
MIN_EXPERTS_PER_ITEM = 2
# Each expert is compared with the others on the items they share: with one expert there is no one to compare with.
ONE_EXPERT = "needs two or more experts rating the same items (one has rated)"
MIN_ITEMS_PER_EXPERT = 30
PASSING_WINNING_RATE = 0.5


@dataclass(frozen=True)
class ExpertComparison:
    """The judge against one left-out expert, on the items that expert rated."""

    expert: str
    items: int
    judge_won: float  # share of items where the judge scored at least as well as the expert (ρ_j)
    expert_won: float  # share of items where the expert scored at least as well as the judge
    p_value: float  # NaN when the test is undefined (no spread and an edge of exactly ε)
    rejected: bool = False  # under Benjamini–Yekutieli: the expert's edge is below ε


@dataclass(frozen=True)
class AltTest:
    """The outcome of the alternative annotator test for one judge on one figure."""

    scoring: Scoring
    epsilon: float
    q: float
    compared: tuple[ExpertComparison, ...]  # the experts tested
    too_few_items: tuple[tuple[str, int], ...]  # experts left out: (expert, items they shared)
    items_used: int  # items with enough experts and a judge rating
    items_dropped: int  # items some expert rated that had too few experts or no judge rating
    min_items_per_expert: int
    winning_rate: float | Undefined
    advantage_probability: float | Undefined

    @property
    def untested(self) -> str:
        """Why no expert could be tested, in a few words: one expert only, or too few items shared."""
        if len(self.compared) + len(self.too_few_items) < 2:
            return ONE_EXPERT
        most = max((n for _, n in self.too_few_items), default=0)
        return f"at most {most} shared items, needs {self.min_items_per_expert}"

    @property
    def passed(self) -> bool | None:
        """True when ω ≥ 0.5, False below, None when no expert could be tested."""
        if isinstance(self.winning_rate, Undefined):
            return None
        return self.winning_rate >= PASSING_WINNING_RATE


def benjamini_yekutieli(p_values: npt.ArrayLike, q: float) -> np.ndarray:
    """Which hypotheses the Benjamini–Yekutieli step-up procedure rejects at false discovery rate q (valid under
    any dependence): the k smallest p-values, k the largest rank i with p_(i) <= i q / (m H_m). NaN never
    rejects."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    order = np.argsort(p, kind="stable")  # NaN sorts last
    thresholds = np.arange(1, m + 1) / m * q / harmonic
    passing = np.flatnonzero(p[order] <= thresholds)
    if passing.size:
        rejected[order[: passing[-1] + 1]] = True
    return rejected


def _lower_tail_p(differences: np.ndarray, epsilon: float) -> float:
    """P-value of the one-sided one-sample t-test of H0: mean >= epsilon against mean < epsilon."""
    n = differences.size
    if n < 2:
        return math.nan
    shift = float(np.mean(differences)) - epsilon
    spread = float(np.std(differences, ddof=1))
    if spread == 0.0:
        return math.nan if shift == 0.0 else (0.0 if shift < 0 else 1.0)
    return t_cdf(shift / (spread / math.sqrt(n)), n - 1)


def _losses(predictions: np.ndarray, others: np.ndarray, present: np.ndarray, scoring: Scoring) -> np.ndarray:
    """Per item, how far a prediction is from the remaining experts' ratings (lower is better): the share of
    them it differs from (accuracy), or their mean squared difference from it (RMSE's order, without the root)."""
    count = present.sum(axis=0)
    if scoring == "accuracy":
        misses = np.where(present, others != predictions, False).sum(axis=0)
    else:
        misses = np.where(present, (others - predictions) ** 2, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(misses / count, dtype=float)


def alternative_annotator_test(
    experts: np.ndarray,
    judge: np.ndarray,
    expert_ids: Sequence[str],
    *,
    scoring: Scoring,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_experts_per_item: int = MIN_EXPERTS_PER_ITEM,
    min_items_per_expert: int = MIN_ITEMS_PER_EXPERT,
) -> AltTest:
    """Run the alternative annotator test.

    ``experts``: experts x items ratings, NaN where an expert did not rate an item; ``judge``: the judge's rating
    of each item, NaN where it did not rate it. Ratings are numbers (category codes for ``accuracy``).
    """
    experts = np.asarray(experts, dtype=float)
    judge = np.asarray(judge, dtype=float)
    if experts.ndim != 2 or experts.shape[1] != judge.size or experts.shape[0] != len(expert_ids):
        raise ValueError(f"experts must be {len(expert_ids)} x {judge.size}, got {experts.shape}")
    if scoring not in ("accuracy", "neg_rmse"):
        raise ValueError(f"unknown scoring {scoring!r}: accuracy or neg_rmse")
    rated = ~np.isnan(experts)
    kept = (rated.sum(axis=0) >= min_experts_per_item) & ~np.isnan(judge)
    compared: list[ExpertComparison] = []
    too_few: list[tuple[str, int]] = []
    for index, expert in enumerate(expert_ids):
        mine = rated[index] & kept
        n = int(mine.sum())
        if n < min_items_per_expert:
            too_few.append((expert, n))
            continue
        others = np.delete(experts[:, mine], index, axis=0)
        present = np.delete(rated[:, mine], index, axis=0)
        expert_loss = _losses(experts[index, mine], others, present, scoring)
        judge_loss = _losses(judge[mine], others, present, scoring)
        judge_won = judge_loss <= expert_loss
        expert_won = expert_loss <= judge_loss
        differences = expert_won.astype(float) - judge_won.astype(float)
        compared.append(ExpertComparison(expert, n, float(judge_won.mean()), float(expert_won.mean()),
                                         _lower_tail_p(differences, epsilon)))
    rejected = benjamini_yekutieli([c.p_value for c in compared], q)
    compared = [ExpertComparison(c.expert, c.items, c.judge_won, c.expert_won, c.p_value, bool(r))
                for c, r in zip(compared, rejected, strict=True)]
    dropped = int(np.count_nonzero(rated.any(axis=0) & ~kept))
    if compared:
        winning_rate: float | Undefined = float(rejected.mean())
        advantage: float | Undefined = float(np.mean([c.judge_won for c in compared]))
    else:
        reason = (f"no expert shares {min_items_per_expert} items with the judge and another expert "
                  f"(most: {max((n for _, n in too_few), default=0)})" if len(too_few) >= 2 else ONE_EXPERT)
        winning_rate = advantage = Undefined(reason)
    return AltTest(scoring, epsilon, q, tuple(compared), tuple(too_few), int(np.count_nonzero(kept)), dropped,
                   min_items_per_expert, winning_rate, advantage)
