"""Intervals of the figures of aligned scores: one pair of raters, several dimensions pooled, a rater's repeats,
and the change between two judges on the same items.

The choice of method lives here, so every section makes it alike (docs/agreement.md gives the references):

* alignment on one dimension (one observation per item): Wilson;
* Cohen's kappa: the Fleiss–Cohen–Everitt standard error; Pearson's r: Fisher's z;
* alignment pooled over several dimensions (the scores of one item are not independent), a figure averaged
  over a rater's repeat pairs, and every change between two judges on the same items: a seeded bootstrap over
  items (a cluster bootstrap; a paired one for changes, both judges seeing the same resampled items), or past
  ``BOOTSTRAP_MAX_ITEMS`` items its large-sample limit, the infinitesimal jackknife (``stats.linearised``).

Like stats/, it takes explicit numbers: the confidence its callers read from the agreement settings, and
``within``, the settings' tolerance on the rubric's scale (Scale.alignment_tolerance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from judge_tui.analysis.scores import AlignedPair, key_places
from judge_tui.model.rubrics import Rubric
from judge_tui.stats import agreement as ag
from judge_tui.stats.intervals import (
    BOOTSTRAP_MAX_ITEMS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    IntervalFigure,
    bootstrap,
    kappa_interval,
    pearson_interval,
    percentile_interval,
    weighted_kappa,
    weighted_pearson,
    weighted_share,
    wilson,
    wilson_at,
    z_value,
)
from judge_tui.stats.linearised import kappa_influence, normal_interval, pearson_influence, share_influence

ChangeVerdict = Literal["improved", "worse", "no detectable change"]


def _when_defined(figure: ag.Figure, interval: Callable[[float], IntervalFigure]) -> IntervalFigure:
    """The figure's interval, or the figure's own reason when the figure itself cannot be computed."""
    return interval(figure) if ag.is_defined(figure) else figure  # type: ignore[return-value]


def pair_intervals(paired: AlignedPair, agreement: ag.PairAgreement,
                   confidence: float) -> dict[str, IntervalFigure]:
    """Intervals of one pairing's alignment (Wilson), Cohen's kappa (``kappa_interval``) and Pearson's r
    (Fisher's z with the jackknife's standard error, from the items' scores), by figure name as the JSON report
    names them; ``agreement`` is ``paired.compare(...)``."""
    n = agreement.n
    return {
        "alignment": _when_defined(agreement.alignment_rate, lambda rate: wilson(int(round(rate * n)), n, confidence)),
        "kappa": _when_defined(agreement.cohen_kappa,
                               lambda _: kappa_interval(np.asarray(agreement.confusion), None, confidence)),
        "pearson_r": _when_defined(agreement.pearson_r, lambda r: pearson_interval(paired.a, paired.b, r, confidence)),
    }


@dataclass(frozen=True)
class Clusters:
    """Scores of several AlignedPairs per item: aligned scores and scores compared, item by item."""

    keys: np.ndarray
    hits: np.ndarray
    counted: np.ndarray

    @classmethod
    def of(cls, pairs: Sequence[AlignedPair], within: float) -> Clusters:
        keys = np.concatenate([p.keys for p in pairs]) if pairs else np.empty(0, np.int64)
        flags = np.concatenate([p.aligned(within) for p in pairs]) if pairs else np.empty(0, bool)
        unique, inverse = key_places(keys)
        return cls(unique, np.bincount(inverse, flags, unique.size), np.bincount(inverse, minlength=unique.size)
                   .astype(np.float64))


def _share_interval(hits: float, counted: float, items: int, confidence: float, resampled: Callable[[], IntervalFigure]
                    ) -> IntervalFigure:
    """A share over clusters of scores: the bootstrap, except when every score agreed (or none did), where every
    resample says the same and would claim certainty; then Wilson's interval counting each item once."""
    if hits in (0.0, counted):
        found = wilson(items if hits else 0, items, confidence)
        return found if isinstance(found, ag.Undefined) else Interval(found.low, found.high, "wilson (items)",
                                                                       confidence)
    return resampled()


def _resampled(statistic: Callable[[np.ndarray], np.ndarray], n: int, confidence: float, method: str, *,
               low: float, high: float, n_boot: int, seed: int) -> IntervalFigure:
    return percentile_interval(bootstrap(statistic, n, n_boot=n_boot, seed=seed), confidence, method=method,
                               low=low, high=high)


def pooled_interval(pairs: Sequence[AlignedPair], within: float, confidence: float, *,
                    n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                    max_bootstrap_items: int = BOOTSTRAP_MAX_ITEMS) -> IntervalFigure:
    """The interval of alignment pooled over several dimensions: items are resampled with all their scores
    (Wilson's interval when each item has one score)."""
    c = Clusters.of(pairs, within)
    return cluster_share_interval(c.hits, c.counted, confidence, n_boot=n_boot, seed=seed,
                                  max_bootstrap_items=max_bootstrap_items)


def cluster_share_interval(hits: np.ndarray, counted: np.ndarray, confidence: float, *,
                           n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                           max_bootstrap_items: int = BOOTSTRAP_MAX_ITEMS) -> IntervalFigure:
    """The interval of a share of scores counted per item (``hits`` aligned of ``counted``, item by item):
    items are resampled with all their scores (Wilson's interval when each item has one score)."""
    n = int(hits.size)
    if n == 0:
        return ag.Undefined("no items were rated by both")
    if np.all(counted == 1):  # one score per item (one judged dimension): a plain share
        return wilson(int(hits.sum()), n, confidence)
    if n > max_bootstrap_items:
        share = float(hits.sum() / counted.sum())
        return normal_interval(share, share_influence(hits, counted), confidence,
                               "infinitesimal jackknife (items)", low=0.0, high=1.0)
    shares = hits[counted > 0] / counted[counted > 0]
    if shares.size and np.ptp(shares) == 0.0:
        # Every item has the same share (all aligned, none, or 3 of 4 on each): every resample says the same
        # and would claim certainty; Wilson's interval counting each item once does not.
        found = wilson_at(float(shares[0]), n, confidence)
        return Interval(found.low, found.high, "wilson (items)", confidence)
    return _resampled(lambda w: weighted_share(w, hits, counted), n, confidence, "cluster bootstrap (items)",
                      low=0.0, high=1.0, n_boot=n_boot, seed=seed)


# --------------------------------------------------------------------------------------------------
# A figure averaged over a rater's repeat pairs
# --------------------------------------------------------------------------------------------------


def _codes(values: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Each score's nearest scale point (a mean between points is snapped, as kappa snaps it)."""
    return np.asarray(np.abs(np.asarray(values, dtype=np.float64)[:, None] - points[None, :]).argmin(axis=1))


def repeat_intervals(pairs: Sequence[AlignedPair], rubric: Rubric, within: float, *, kappa: bool,
                     confidence: float, n_boot: int = DEFAULT_RESAMPLES,
                     seed: int = DEFAULT_SEED) -> dict[str, IntervalFigure]:
    """Intervals of alignment (and kappa) averaged over repeat pairs (first run against second, ...).

    One repeat pair is one pairing: Wilson and Fleiss–Cohen–Everitt. Several pairs share items, so the mean is
    bootstrapped over the items (each resample weighs an item alike in every pair); past BOOTSTRAP_MAX_ITEMS
    items each pair's standard error is averaged, which bounds the standard error of the mean from above."""
    usable = [p for p in pairs if p.n]
    if not usable:
        reason = ag.Undefined("no items were judged twice")
        return {"alignment": reason, **({"kappa": reason} if kappa else {})}
    if len(usable) == 1:
        found = pair_intervals(usable[0], usable[0].compare(rubric, within), confidence)
        return {"alignment": found["alignment"], **({"kappa": found["kappa"]} if kappa else {})}
    points = np.asarray(rubric.scale.points, dtype=np.float64)
    keys = np.unique(np.concatenate([p.keys for p in usable]))
    where = [np.searchsorted(keys, p.keys) for p in usable]
    hits = [p.aligned(within).astype(np.float64) for p in usable]
    codes = [(_codes(p.a, points), _codes(p.b, points)) for p in usable]
    out: dict[str, IntervalFigure] = {}
    if keys.size > BOOTSTRAP_MAX_ITEMS:
        shares = [float(h.mean()) for h in hits]
        errors = [np.sqrt(p * (1.0 - p) / h.size) for p, h in zip(shares, hits, strict=True)]
        out["alignment"] = _mean_of_errors(float(np.mean(shares)), float(np.mean(errors)), confidence, 0.0, 1.0,
                                           "normal")
        if kappa:
            out["kappa"] = _mean_of_kappa_intervals(usable, points, confidence)
        return out

    def mean_share(w: np.ndarray) -> np.ndarray:
        return np.asarray(np.mean([weighted_share(w[:, i], h) for i, h in zip(where, hits, strict=True)], axis=0))

    method = "bootstrap (items, mean over repeat pairs)"
    out["alignment"] = _share_interval(
        float(sum(h.sum() for h in hits)), float(sum(h.size for h in hits)), keys.size, confidence,
        lambda: _resampled(mean_share, keys.size, confidence, method, low=0.0, high=1.0, n_boot=n_boot, seed=seed))
    if kappa:
        k = points.size

        def mean_kappa(w: np.ndarray) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.asarray(np.mean([weighted_kappa(w[:, i], a, b, k)
                                           for i, (a, b) in zip(where, codes, strict=True)], axis=0))

        resampled = _resampled(mean_kappa, keys.size, confidence, method, low=-1.0, high=1.0, n_boot=n_boot,
                               seed=seed)
        # Too many resamples without a kappa (a pair with one category, or every item agreed): the pairs' own
        # intervals, which handle those tables, averaged.
        out["kappa"] = (_mean_of_kappa_intervals(usable, points, confidence) if isinstance(resampled, ag.Undefined)
                        else resampled)
    return out


def _mean_of_kappa_intervals(pairs: Sequence[AlignedPair], points: np.ndarray, confidence: float) -> IntervalFigure:
    """[mean of the pairs' lower bounds, mean of their upper bounds]: at least as wide as the interval of the
    mean of correlated kappas (its standard error is at most the mean of theirs)."""
    k = points.size
    found = []
    for p in pairs:
        table = np.bincount(_codes(p.a, points) * k + _codes(p.b, points), minlength=k * k).reshape(k, k)
        found.append(kappa_interval(table, None, confidence))
    bounds = [f for f in found if isinstance(f, Interval)]
    if len(bounds) < len(found):
        return next(f for f in found if isinstance(f, ag.Undefined))
    return Interval(float(np.mean([f.low for f in bounds])), float(np.mean([f.high for f in bounds])),
                    f"{bounds[0].method} (mean over repeat pairs, conservative)", confidence)


def _mean_of_errors(value: float, error: float, confidence: float, low: float, high: float,
                    method: str) -> Interval:
    """value ± z·(mean of the pairs' standard errors): the standard error of a mean of correlated figures is at
    most the mean of their standard errors."""
    half = z_value(confidence) * error
    return Interval(max(low, value - half), min(high, value + half),
                    f"{method} (mean over repeat pairs, conservative)", confidence)


# --------------------------------------------------------------------------------------------------
# The change between two judges on the same items (a paired bootstrap)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A figure under the second judge minus the first, on the same items, with its paired interval."""

    value: ag.Figure
    interval: IntervalFigure
    verdict: ChangeVerdict | None  # None when there is no interval


def change_verdict(interval: Interval) -> ChangeVerdict:
    """Improved when the whole interval of the change lies above 0, worse when below, else no detectable change."""
    if interval.low > 0:
        return "improved"
    if interval.high < 0:
        return "worse"
    return "no detectable change"


def _change(first: ag.Figure, second: ag.Figure, interval: IntervalFigure | None) -> Change:
    """The change with its interval; when either figure is undefined, so are the change and its interval."""
    if not (ag.is_defined(first) and ag.is_defined(second)) or interval is None:
        missing = first if isinstance(first, ag.Undefined) else second
        assert isinstance(missing, ag.Undefined)
        reason = ag.Undefined(f"one of the two figures is not defined: {missing.reason}")
        return Change(reason, reason, None)
    if isinstance(interval, ag.Undefined):
        return Change(second - first, interval, None)
    return Change(second - first, interval, change_verdict(interval))


def paired_changes(pairs: tuple[AlignedPair, AlignedPair], figures: tuple[ag.PairAgreement, ag.PairAgreement],
                   rubric: Rubric, within: float, confidence: float, *,
                   n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                   max_bootstrap_items: int = BOOTSTRAP_MAX_ITEMS) -> dict[str, Change]:
    """The change in alignment, Cohen's kappa and Pearson's r from the first judge to the second, each pair
    holding the same reference scores on the same items (``pairs[k].a``), with a paired interval."""
    first, second = pairs
    n = first.n
    points = np.asarray(rubric.scale.points, dtype=np.float64)
    k = points.size
    hits = [p.aligned(within).astype(np.float64) for p in pairs]
    human = _codes(first.a, points)
    judged = [_codes(p.b, points) for p in pairs]
    big = n > max_bootstrap_items
    method = "infinitesimal jackknife (paired items)" if big else "paired bootstrap (items)"
    out = {}
    specs: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray], Callable[[], np.ndarray]]] = {
        "alignment": ("alignment_rate",
                      lambda w: weighted_share(w, hits[1]) - weighted_share(w, hits[0]),
                      lambda: share_influence(hits[1]) - share_influence(hits[0])),
        "kappa": ("cohen_kappa",
                  lambda w: weighted_kappa(w, human, judged[1], k) - weighted_kappa(w, human, judged[0], k),
                  lambda: kappa_influence(human, judged[1], k) - kappa_influence(human, judged[0], k)),
        "pearson_r": ("pearson_r",
                      lambda w: weighted_pearson(w, first.a, second.b) - weighted_pearson(w, first.a, first.b),
                      lambda: pearson_influence(first.a, second.b) - pearson_influence(first.a, first.b)),
    }
    for name, (attribute, statistic, influence) in specs.items():
        a, b = getattr(figures[0], attribute), getattr(figures[1], attribute)
        if not (ag.is_defined(a) and ag.is_defined(b)):
            out[name] = _change(a, b, None)
        elif big:
            out[name] = _change(a, b, normal_interval(b - a, influence(), confidence, method, low=-2.0, high=2.0))
        else:
            out[name] = _change(a, b, _resampled(statistic, n, confidence, method, low=-2.0, high=2.0,
                                                 n_boot=n_boot, seed=seed))
    return out


def pooled_change(pairs: tuple[Sequence[AlignedPair], Sequence[AlignedPair]], within: float,
                  pooled: tuple[ag.Figure, ag.Figure], confidence: float, *,
                  n_boot: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  max_bootstrap_items: int = BOOTSTRAP_MAX_ITEMS) -> Change:
    """The change in alignment over every judged dimension, items resampled with all their scores under both
    judges (the two sides' pairs hold the same items and reference scores, dimension by dimension)."""
    first, second = Clusters.of(pairs[0], within), Clusters.of(pairs[1], within)
    n = first.keys.size
    if n == 0 or not (ag.is_defined(pooled[0]) and ag.is_defined(pooled[1])):
        return _change(pooled[0], pooled[1], None)
    if n > max_bootstrap_items:
        influence = share_influence(second.hits, second.counted) - share_influence(first.hits, first.counted)
        interval = normal_interval(pooled[1] - pooled[0], influence, confidence,
                                   "infinitesimal jackknife (paired items)", low=-1.0, high=1.0)
    else:
        interval = _resampled(
            lambda w: weighted_share(w, second.hits, second.counted) - weighted_share(w, first.hits, first.counted),
            n, confidence, "paired cluster bootstrap (items)", low=-1.0, high=1.0, n_boot=n_boot, seed=seed)
    return _change(pooled[0], pooled[1], interval)
