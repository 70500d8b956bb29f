"""What an agreement figure means for trusting the judge: its band, the advice that goes with it, and whether it
meets the user's target.

The bounds are the user's (`AgreementSettings`, `agreement` in settings.json); this module holds the words. A band
starts at its lower bound and runs up to the next band's bound. Alignment bands include their lower bound (0.80 is
well calibrated). Kappa follows the published bands, "above" the almost-perfect bound and the substantial and
moderate bounds as lower bounds; a kappa in the gaps those bands leave (0.60-0.61, 0.40-0.41 by default) falls into
the lower band.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from judge_tui.formats.numbers import decimal_text
from judge_tui.model.settings import AgreementSettings
from judge_tui.stats.agreement import Figure, Undefined, is_defined

Status = Literal["ok", "caution", "act", "stop", "unknown"]

# Tolerates float noise when a figure sits exactly on a band edge (e.g. 7/10 against 0.70).
_EDGE = 1e-12


@dataclass(frozen=True)
class Interpretation:
    """What a figure means for trusting the judge: a short label, what to do next, and a status for colour."""

    label: str
    action: str
    status: Status
    meets_target: bool | None  # None when the figure is Undefined


def _unknown(figure: Undefined) -> Interpretation:
    return Interpretation("not enough data", f"Cannot judge yet: {figure.reason}.", "unknown", None)


def interpret_alignment(rate: Figure, settings: AgreementSettings) -> Interpretation:
    """Band of an alignment rate (share of scores within the tolerance)."""
    if isinstance(rate, Undefined):
        return _unknown(rate)
    if rate >= settings.alignment_well_calibrated - _EDGE:
        return Interpretation(
            "well calibrated",
            "The judge agrees closely with the reviewers; it can be extended to more item types.",
            "ok",
            True,
        )
    if rate >= settings.alignment_minor_drift - _EDGE:
        return Interpretation(
            "minor drift",
            "Record the items where judge and reviewers part ways and sharpen the anchors of one or two "
            "dimensions; go on carefully.",
            "caution",
            False,
        )
    if rate >= settings.alignment_significant_drift - _EDGE:
        return Interpretation(
            "significant drift",
            "Rework the judge prompt for the weakest dimensions and check again on a handful of items "
            "before going further.",
            "act",
            False,
        )
    return Interpretation(
        "unreliable",
        "Stop using the judge here: the rubric needs a thorough rewrite before the judge covers anything new.",
        "stop",
        False,
    )


def interpret_kappa(kappa: Figure, settings: AgreementSettings) -> Interpretation:
    """Band of a Cohen's kappa; substantial or better meets the target."""
    if isinstance(kappa, Undefined):
        return _unknown(kappa)
    if kappa > settings.kappa_almost_perfect + _EDGE:
        return Interpretation(
            "almost perfect", "Agreement is far beyond chance; the judge can be relied on.", "ok", True
        )
    if kappa >= settings.kappa_substantial - _EDGE:
        return Interpretation(
            "substantial",
            "Agreement is in the target band; keep an eye on it as the rubric changes.",
            "ok",
            True,
        )
    if kappa >= settings.kappa_moderate - _EDGE:
        return Interpretation(
            "moderate",
            "Below the target band: make the rubric anchors more precise and compare again.",
            "caution",
            False,
        )
    return Interpretation(
        "fair or poor",
        "Agreement is little better than chance: revise the rubric before trusting the judge.",
        "stop",
        False,
    )


def meets_pearson_target(r: Figure, settings: AgreementSettings) -> Interpretation:
    """Whether the correlation of overall scores reaches the target (r at or above 0.70 by default)."""
    if isinstance(r, Undefined):
        return _unknown(r)
    target = settings.pearson_target
    if r >= target - _EDGE:
        return Interpretation(
            f"r meets {decimal_text(target, 2)}",
            "Judge and reviewers rank items alike; the overall score can stand in for expert ratings.",
            "ok",
            True,
        )
    return Interpretation(
        f"r below {decimal_text(target, 2)}",
        "The judge's overall scores do not track the reviewers' closely enough; find the dimensions that "
        "drag the correlation down and revise their anchors.",
        "act",
        False,
    )


def meets_binary_target(
    tpr: Figure, tnr: Figure, settings: AgreementSettings
) -> Interpretation:
    """Whether a PASS/FAIL judge catches both classes well enough (TPR and TNR above 0.90 by default)."""
    for figure in (tpr, tnr):
        if isinstance(figure, Undefined):
            return _unknown(figure)
    assert is_defined(tpr) and is_defined(tnr)
    target = settings.tpr_tnr_target
    if tpr > target + _EDGE and tnr > target + _EDGE:
        return Interpretation(
            f"TPR and TNR above {decimal_text(target, 2)}",
            "The judge finds passes and failures alike; confirm on the test split before citing it.",
            "ok",
            True,
        )
    weak = [name for name, value in (("TPR", tpr), ("TNR", tnr)) if not value > target + _EDGE]
    missed_by_weak: dict[tuple[str, ...], str] = {
        ("TPR",): "human PASS items the judge failed",
        ("TNR",): "human FAIL items the judge passed",
    }
    missed = missed_by_weak.get(tuple(weak), "items the judge labelled differently from the reviewers")
    return Interpretation(
        f"{' and '.join(weak)} at or below {decimal_text(target, 2)}",
        f"Read the {missed} on the dev split, add boundary examples from the train split, and measure again.",
        "act",
        False,
    )


# An interpretation of one figure under the user's bounds (interpret_alignment, interpret_kappa, ...).
Interpret = Callable[[Figure, AgreementSettings], Interpretation]
