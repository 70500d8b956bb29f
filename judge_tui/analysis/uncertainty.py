"""How sure each human-vs-judge figure is: its confidence interval, and the chance-robust figures beside kappa.

For one row of the report (a dimension, or the overall score) from its AlignedPair:

* the interval of each figure of the figure table (``row_figures.ROW_FIGURES``, which says how each is computed);
* Gwet's AC1 (every categorical row) and AC2 with quadratic weights (ordered scales of three or more points),
  PABAK, the prevalence (share of human PASS) and bias index (PASS/FAIL), and the accuracy of a constant judge
  that always answers the humans' most common label.

The pooled alignment over several dimensions counts several scores per item, which are not independent: its
interval is a seeded bootstrap over items (a cluster bootstrap), or at many items its large-sample limit, the
infinitesimal jackknife of a ratio. Everything is deterministic: the same pairs give the same intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from judge_tui.analysis.pair_intervals import pooled_interval
from judge_tui.analysis.row_figures import ROW_FIGURES, RowData
from judge_tui.analysis.scores import AlignedPair
from judge_tui.stats import agreement as ag
from judge_tui.stats import chance
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


# The figures of a row that get an interval, in the order the JSON lists them: the row's, then the chance-robust.
INTERVAL_FIGURES = (*(f.key for f in ROW_FIGURES), "ac1", "ac2")


def row_uncertainty(paired: AlignedPair, figures: PairAgreement, confidence: float,
                    categorical: bool = True, ranks: bool = True) -> RowUncertainty:
    """Intervals and chance-robust figures of one row; ``categorical=False`` for an overall score that is a mean.

    ``ranks=False`` leaves out the Spearman and Kendall intervals, a bootstrap each below 5,000 items: breakdown
    groups, whose tables show neither, skip the resampling (with the reason in the JSON).
    """
    table = np.asarray(figures.confusion, dtype=np.float64) if figures.confusion else None
    row = RowData(paired, figures, confidence, table, ranks)
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
