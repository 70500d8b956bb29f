"""How sure each human-vs-judge figure is: its confidence interval, and the chance-robust figures beside kappa.

For one row of the report (a dimension, or the overall score) from its AlignedPair:

* alignment, TPR, TNR and accuracy (one observation per item): the Wilson interval;
* Cohen's kappa and quadratic-weighted kappa: the engine's kappa interval (``stats.intervals.kappa_interval``);
* Pearson's r: Fisher's z; Spearman's rho and Kendall's tau: the engine's choice (a seeded bootstrap at small n,
  Fieller's z at large n); the mean difference: the normal interval of a mean;
* Gwet's AC1 (every categorical row) and AC2 with quadratic weights (ordered scales of three or more points),
  PABAK, the prevalence (share of human PASS) and bias index (PASS/FAIL), and the accuracy of a constant judge
  that always answers the humans' most common label.

The pooled alignment over several dimensions counts several scores per item, which are not independent: its
interval is a seeded bootstrap over items (a cluster bootstrap), or at many items its large-sample limit, the
infinitesimal jackknife of a ratio. Everything is deterministic: the same pairs give the same intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from judge_tui.analysis.pair_intervals import pooled_interval
from judge_tui.analysis.scores import AlignedPair
from judge_tui.stats import agreement as ag
from judge_tui.stats import chance
from judge_tui.stats import intervals as iv
from judge_tui.stats.agreement import AVERAGED_OVERALL, Figure, PairAgreement, Undefined
from judge_tui.stats.intervals import IntervalFigure

# Past this many items the pooled alignment takes its large-sample limit instead of the bootstrap.
POOLED_BOOTSTRAP_MAX_ITEMS = 1000
CHANCE_FIGURES = ("ac1", "ac1_standard_error", "ac2", "ac2_standard_error", "pabak", "prevalence", "bias_index",
                  "baseline_accuracy")


@dataclass(frozen=True)
class RowUncertainty:
    """The intervals of a row's figures (by figure name) and its chance-robust figures."""

    intervals: dict[str, IntervalFigure] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)  # CHANCE_FIGURES


def _share(successes: int, n: int, confidence: float, empty: str) -> IntervalFigure:
    return iv.wilson(successes, n, confidence) if n else Undefined(empty)


def _undefined_like(value: Figure, fallback: str) -> Undefined:
    return value if isinstance(value, Undefined) else Undefined(fallback)


@dataclass(frozen=True)
class _Row:
    """What a row's intervals are computed from."""

    paired: AlignedPair
    figures: PairAgreement
    confidence: float
    table: np.ndarray | None  # the confusion matrix (None: no categories to compare)
    ranks: bool  # the rank correlations' intervals (a bootstrap each) are wanted

    @property
    def binary(self) -> bool:
        return self.table is not None and self.figures.scale == ag.BINARY_SCALE


_EMPTY = "no items were rated by both"


def _alignment_interval(row: _Row) -> IntervalFigure:
    n = row.paired.n
    aligned = int(np.count_nonzero(row.paired.aligned(row.figures.tolerance))) if n else 0
    return _share(aligned, n, row.confidence, _EMPTY)


def _kappa_interval(name: str, weights: iv.KappaWeights) -> Callable[[_Row], IntervalFigure]:
    def interval(row: _Row) -> IntervalFigure:
        value = getattr(row.figures, name)
        if isinstance(value, Undefined) or row.table is None:
            return _undefined_like(value, "no categories to compare")
        return iv.kappa_interval(row.table, None if row.table.shape[0] == 2 else weights, row.confidence)
    return interval


def _pearson_interval(row: _Row) -> IntervalFigure:
    r = row.figures.pearson_r
    return (iv.pearson_interval(row.paired.a, row.paired.b, r, row.confidence) if ag.is_defined(r)
            else _undefined_like(r, _EMPTY))


def _rank_interval(name: str, make: Callable[[np.ndarray, np.ndarray, float, float], IntervalFigure],
                   ) -> Callable[[_Row], IntervalFigure]:
    def interval(row: _Row) -> IntervalFigure:
        value = getattr(row.figures, name)
        if not row.ranks:
            return Undefined("rank-correlation intervals are given for the whole comparison, not per group")
        return (make(row.paired.a, row.paired.b, value, row.confidence) if ag.is_defined(value)
                else _undefined_like(value, _EMPTY))
    return interval


def _mean_difference_interval(row: _Row) -> IntervalFigure:
    difference, scale = row.figures.mean_difference, row.figures.scale
    # How far two scores of the scale can differ (an averaged overall has no scale, so no such bound).
    bounds = (scale[0] - scale[-1], scale[-1] - scale[0]) if scale else None
    return (iv.mean_interval(row.paired.b - row.paired.a, row.confidence, bounds=bounds)
            if ag.is_defined(difference) else _undefined_like(difference, _EMPTY))


def _class_share(name: str, counted: Callable[[np.ndarray, int], tuple[int, int]], empty: str,
                 ) -> Callable[[_Row], IntervalFigure]:
    """TPR, TNR and accuracy: the share ``counted(table, n)`` = (hits, of), on PASS/FAIL scales only (the
    table's rows: human FAIL, PASS; its columns: the judge's)."""
    def interval(row: _Row) -> IntervalFigure:
        if not row.binary:
            return _undefined_like(getattr(row.figures, name), "only PASS/FAIL scales have TPR, TNR and accuracy")
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

    key: str  # its name: the PairAgreement attribute, the JSON key and the key of its interval
    label: str  # the per-dimension table's column header
    interval: Callable[[_Row], IntervalFigure]
    percent: bool = False  # a share, written as a percentage
    correlation: bool = False  # in the table's "correlation and bias" group rather than "agreement"
    signed: bool = False  # a difference, written with its sign
    tables: frozenset[DimensionTable] = frozenset()  # the per-dimension tables that show it (none: the JSON only)
    column: int = 0  # its place in those tables, left to right, after the item count


def _shown(*tables: DimensionTable) -> frozenset[DimensionTable]:
    return frozenset(tables)


# Every figure of a row, in the order the JSON lists them: a new figure is one entry here (its value a field of
# stats.agreement.PairAgreement); the JSON, the text and Markdown tables and the intervals follow.
ROW_FIGURES = (
    RowFigure("alignment_rate", "Align", _alignment_interval, percent=True, tables=EVERY_TABLE, column=10),
    RowFigure("cohen_kappa", "κ", _kappa_interval("cohen_kappa", None), tables=EVERY_TABLE, column=20),
    RowFigure("weighted_kappa", "κ quad", _kappa_interval("weighted_kappa", "quadratic"),
              tables=_shown("non-binary", "non-binary compact"), column=30),
    RowFigure("pearson_r", "r", _pearson_interval, correlation=True,
              tables=_shown("binary", "non-binary", "non-binary compact"), column=70),
    RowFigure("spearman_rho", "ρ", _rank_interval("spearman_rho", iv.spearman_interval), correlation=True,
              tables=_shown("non-binary"), column=80),
    RowFigure("kendall_tau", "τ", _rank_interval("kendall_tau", iv.kendall_interval), correlation=True,
              tables=_shown("non-binary"), column=90),
    RowFigure("mean_difference", "J−H", _mean_difference_interval, correlation=True, signed=True,
              tables=EVERY_TABLE, column=100),
    RowFigure("tpr", "TPR", _class_share("tpr", lambda t, n: (int(t[1, 1]), int(t[1, 1] + t[1, 0])),
                                         "the human labels contain no PASS"), percent=True,
              tables=_shown("binary", "binary compact"), column=40),
    RowFigure("tnr", "TNR", _class_share("tnr", lambda t, n: (int(t[0, 0]), int(t[0, 0] + t[0, 1])),
                                         "the human labels contain no FAIL"), percent=True,
              tables=_shown("binary", "binary compact"), column=50),
    RowFigure("accuracy", "Acc", _class_share("accuracy", lambda t, n: (int(t[1, 1] + t[0, 0]), n),
                                              _EMPTY), percent=True,
              tables=_shown("binary", "binary compact"), column=60),
)
# The figures of a row that get an interval, in the order the JSON lists them: the row's, then the chance-robust.
INTERVAL_FIGURES = (*(f.key for f in ROW_FIGURES), "ac1", "ac2")


def row_uncertainty(paired: AlignedPair, figures: PairAgreement, confidence: float,
                    categorical: bool = True, ranks: bool = True) -> RowUncertainty:
    """Intervals and chance-robust figures of one row; ``categorical=False`` for an overall score that is a mean.

    ``ranks=False`` leaves out the Spearman and Kendall intervals, a bootstrap each below 5,000 items: breakdown
    groups, whose tables show neither, skip the resampling (with the reason in the JSON).
    """
    table = np.asarray(figures.confusion, dtype=np.float64) if figures.confusion else None
    row = _Row(paired, figures, confidence, table, ranks)
    out = {f.key: f.interval(row) for f in ROW_FIGURES}
    extra = _chance_figures(table if categorical else None, figures, confidence, out)
    return RowUncertainty(out, extra)


def _chance_figures(table: np.ndarray | None, figures: PairAgreement, confidence: float,
                    out: dict[str, IntervalFigure]) -> dict[str, Figure]:
    extra: dict[str, Figure] = {}
    if table is None or table.sum() == 0:
        why = Undefined(AVERAGED_OVERALL if table is None else "no items were rated by both")
        for name in CHANCE_FIGURES:
            extra[name] = why
        out["ac1"] = out["ac2"] = why
        return extra
    ac1 = chance.gwet_ac(table, None, confidence)
    extra["ac1"], extra["ac1_standard_error"] = _ac_value(ac1)
    out["ac1"] = ac1.interval if isinstance(ac1, chance.GwetAC) else ac1
    if figures.ordered and table.shape[0] > 2:
        ac2: chance.GwetAC | Undefined = chance.gwet_ac(table, "quadratic", confidence)
    else:
        ac2 = Undefined("AC2 weighs ordered scales of three or more points; here it would equal AC1"
                        if figures.ordered else "AC2 needs an ordered scale")
    extra["ac2"], extra["ac2_standard_error"] = _ac_value(ac2)
    out["ac2"] = ac2.interval if isinstance(ac2, chance.GwetAC) else ac2
    extra["pabak"] = chance.pabak(table)
    human_codes = np.repeat(np.arange(table.shape[0]), table.sum(axis=1).astype(np.int64))
    extra["baseline_accuracy"] = chance.majority_baseline_accuracy(human_codes)
    if figures.scale == ag.BINARY_SCALE:
        extra["prevalence"] = float(table[1].sum() / table.sum())  # share of human PASS
        extra["bias_index"] = chance.bias_index(table)  # + : the judge says FAIL to human PASS more than the reverse
    else:
        why = Undefined("prevalence and bias index are defined for PASS/FAIL")
        extra["prevalence"] = extra["bias_index"] = why
    return extra


def _ac_value(found: chance.GwetAC | Undefined) -> tuple[Figure, Figure]:
    if isinstance(found, Undefined):
        return found, found
    return found.value, found.standard_error


def pooled_alignment_interval(pairs: Sequence[AlignedPair], tolerance: float, confidence: float) -> IntervalFigure:
    """The interval of the share of aligned scores over several dimensions, resampling items (clusters), as
    every section computes it (``pair_intervals.pooled_interval``). Past ``POOLED_BOOTSTRAP_MAX_ITEMS`` items
    its large-sample limit, which the bootstrap approaches there (drawing 2,000 resamples of thousands of items
    would keep the summary screen waiting seconds)."""
    return pooled_interval([p for p in pairs if p.n], tolerance, confidence,
                           max_bootstrap_items=POOLED_BOOTSTRAP_MAX_ITEMS)


def items_in(pairs: Sequence[AlignedPair]) -> int:
    """How many distinct items stand behind several AlignedPairs."""
    keys = [p.keys for p in pairs if p.n]
    return int(np.unique(np.concatenate(keys)).size) if keys else 0
