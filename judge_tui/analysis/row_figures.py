"""The figure table: every figure of a row of the judge comparison (a dimension, or the overall score), one entry
each, naming its key (the JSON key), the function giving its value, the function giving its interval, its column
header and the per-dimension tables that show it.

``stats.agreement.compare`` computes the values from the entries' point functions, ``uncertainty.row_uncertainty``
the intervals from their interval functions, and the JSON, text and Markdown renderers and the summary screen
lay the figures out from the rest: a new figure is one entry in ``ROW_FIGURES``, and nothing else names it.

The intervals:

* alignment, TPR, TNR and accuracy (one observation per item): the Wilson interval;
* Cohen's kappa and quadratic-weighted kappa: the engine's kappa interval (``stats.intervals.kappa_interval``);
* Pearson's r: Fisher's z; Spearman's rho and Kendall's tau: the engine's choice (a seeded bootstrap at small n,
  Fieller's z at large n); the mean difference: the normal interval of a mean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from judge_tui.stats import agreement as ag
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import Figure, PairAgreement, PairedScores, Undefined
from judge_tui.stats.intervals import IntervalFigure


def _share(successes: int, n: int, confidence: float, empty: str) -> IntervalFigure:
    return iv.wilson(successes, n, confidence) if n else Undefined(empty)


def _undefined_like(value: Figure, fallback: str) -> Undefined:
    return value if isinstance(value, Undefined) else Undefined(fallback)


class Pair(Protocol):
    """The two sides of a row's figure item by item, as ``scores.AlignedPair`` holds them."""

    @property
    def a(self) -> np.ndarray: ...  # the human side's scores

    @property
    def b(self) -> np.ndarray: ...  # the judge's

    @property
    def n(self) -> int: ...

    def aligned(self, within: float) -> np.ndarray: ...


@dataclass(frozen=True)
class RowData:
    """What a row's intervals are computed from."""

    paired: Pair
    agreement: PairAgreement  # the row's figures, by key in its ``figures``
    confidence: float
    table: np.ndarray | None  # the confusion matrix (None: no categories to compare)
    ranks: bool  # the rank correlations' intervals (a bootstrap each) are wanted

    @property
    def binary(self) -> bool:
        return self.table is not None and self.agreement.scale == ag.BINARY_SCALE


_EMPTY = "no items were rated by both"


def _alignment_interval(row: RowData) -> IntervalFigure:
    n = row.paired.n
    aligned = int(np.count_nonzero(row.paired.aligned(row.agreement.tolerance))) if n else 0
    return _share(aligned, n, row.confidence, _EMPTY)


def _kappa_interval(name: str, weights: iv.KappaWeights) -> Callable[[RowData], IntervalFigure]:
    def interval(row: RowData) -> IntervalFigure:
        value = row.agreement.figures[name]
        if isinstance(value, Undefined) or row.table is None:
            return _undefined_like(value, "no categories to compare")
        return iv.kappa_interval(row.table, None if row.table.shape[0] == 2 else weights, row.confidence)
    return interval


def _pearson_interval(row: RowData) -> IntervalFigure:
    r = row.agreement.pearson_r
    return (iv.pearson_interval(row.paired.a, row.paired.b, r, row.confidence) if ag.is_defined(r)
            else _undefined_like(r, _EMPTY))


def _rank_interval(name: str, make: Callable[[np.ndarray, np.ndarray, float, float], IntervalFigure],
                   ) -> Callable[[RowData], IntervalFigure]:
    def interval(row: RowData) -> IntervalFigure:
        value = row.agreement.figures[name]
        if not row.ranks:
            return Undefined("rank-correlation intervals are given for the whole comparison, not per group")
        return (make(row.paired.a, row.paired.b, value, row.confidence) if ag.is_defined(value)
                else _undefined_like(value, _EMPTY))
    return interval


def _mean_difference_interval(row: RowData) -> IntervalFigure:
    difference, scale = row.agreement.mean_difference, row.agreement.scale
    # How far two scores of the scale can differ (an averaged overall has no scale, so no such bound).
    bounds = (scale[0] - scale[-1], scale[-1] - scale[0]) if scale else None
    return (iv.mean_interval(row.paired.b - row.paired.a, row.confidence, bounds=bounds)
            if ag.is_defined(difference) else _undefined_like(difference, _EMPTY))


def _class_share(name: str, counted: Callable[[np.ndarray, int], tuple[int, int]], empty: str,
                 ) -> Callable[[RowData], IntervalFigure]:
    """TPR, TNR and accuracy: the share ``counted(table, n)`` = (hits, of), on PASS/FAIL scales only (the
    table's rows: human FAIL, PASS; its columns: the judge's)."""
    def interval(row: RowData) -> IntervalFigure:
        if not row.binary:
            return _undefined_like(row.agreement.figures[name], "only PASS/FAIL scales have TPR, TNR and accuracy")
        assert row.table is not None  # binary
        hits, of = counted(row.table, row.paired.n)
        return _share(hits, of, row.confidence, empty)
    return interval


# The per-dimension tables a figure can be a column of: on PASS/FAIL scales ("binary") or on the others
# ("non-binary"), each as a report writes it, or as the summary screen's narrower table does ("... compact").
DimensionTable = Literal["binary", "binary compact", "non-binary", "non-binary compact"]
EVERY_TABLE: frozenset[DimensionTable] = frozenset({"binary", "binary compact", "non-binary", "non-binary compact"})


@dataclass(frozen=True)
class RowFigure:
    """One figure of a row of the report (a dimension or the overall score)."""

    key: str  # its name: the JSON key, its key in PairAgreement.figures and the key of its interval
    label: str  # the per-dimension table's column header
    point: Callable[[PairedScores], Figure]  # its value (Undefined with the reason where it has none)
    interval: Callable[[RowData], IntervalFigure]
    percent: bool = False  # a share, written as a percentage
    correlation: bool = False  # in the table's "correlation and bias" group rather than "agreement"
    signed: bool = False  # a difference, written with its sign
    tables: frozenset[DimensionTable] = frozenset()  # the per-dimension tables that show it (none: the JSON only)
    column: int = 0  # its place in those tables, left to right, after the item count


def _shown(*tables: DimensionTable) -> frozenset[DimensionTable]:
    return frozenset(tables)


# Every figure of a row, in the order the JSON lists them: a new figure is one entry here; its value, the JSON,
# the text and Markdown tables and the intervals follow.
ROW_FIGURES = (
    RowFigure("alignment_rate", "Align", ag.alignment_of, _alignment_interval, percent=True, tables=EVERY_TABLE,
              column=10),
    RowFigure("cohen_kappa", "κ", ag.kappa_of, _kappa_interval("cohen_kappa", None), tables=EVERY_TABLE,
              column=20),
    RowFigure("weighted_kappa", "κ quad", ag.weighted_kappa_of, _kappa_interval("weighted_kappa", "quadratic"),
              tables=_shown("non-binary", "non-binary compact"), column=30),
    RowFigure("pearson_r", "r", ag.pearson_of, _pearson_interval, correlation=True,
              tables=_shown("binary", "non-binary", "non-binary compact"), column=70),
    RowFigure("spearman_rho", "ρ", ag.spearman_of, _rank_interval("spearman_rho", iv.spearman_interval),
              correlation=True, tables=_shown("non-binary"), column=80),
    RowFigure("kendall_tau", "τ", ag.kendall_of, _rank_interval("kendall_tau", iv.kendall_interval),
              correlation=True, tables=_shown("non-binary"), column=90),
    RowFigure("mean_difference", "J−H", ag.mean_difference_of, _mean_difference_interval, correlation=True,
              signed=True, tables=EVERY_TABLE, column=100),
    RowFigure("tpr", "TPR", ag.tpr_of, _class_share("tpr", lambda t, n: (int(t[1, 1]), int(t[1, 1] + t[1, 0])),
                                                    "the human labels contain no PASS"), percent=True,
              tables=_shown("binary", "binary compact"), column=40),
    RowFigure("tnr", "TNR", ag.tnr_of, _class_share("tnr", lambda t, n: (int(t[0, 0]), int(t[0, 0] + t[0, 1])),
                                                    "the human labels contain no FAIL"), percent=True,
              tables=_shown("binary", "binary compact"), column=50),
    RowFigure("accuracy", "Acc", ag.accuracy_of, _class_share("accuracy", lambda t, n: (int(t[1, 1] + t[0, 0]), n),
                                                              _EMPTY), percent=True,
              tables=_shown("binary", "binary compact"), column=60),
)
