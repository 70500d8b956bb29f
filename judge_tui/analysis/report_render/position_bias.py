"""A pairwise judge's position bias (position_bias.PositionBiasFigures) rendered: the JSON report's section
(to_dict) and blocks for text and Markdown (blocks), both from the same object."""

from __future__ import annotations

from typing import Any

from judge_tui.analysis.position_bias import FLIPPED_AS, PositionBiasFigures
from judge_tui.analysis.report_render.blocks import Block, Heading, Paragraph, TableBlock
from judge_tui.formats.numbers import figure_with_interval, interval_json
from judge_tui.model.rubrics import Rubric
from judge_tui.stats import nominal
from judge_tui.stats.agreement import is_defined


def _flipped_counted_as(rubric: Rubric) -> str:
    """What a pair whose verdict flips with the order counts as, against the experts."""
    return rubric.scale.labels[-1] if FLIPPED_AS == "tie" else "as shown"


def _pair_dict(figures: nominal.PairNominal | None) -> dict[str, Any] | None:
    if figures is None:
        return None
    undefined: dict[str, str] = {}
    return {
        "n": figures.n,
        "accuracy": figures.accuracy if is_defined(figures.accuracy) else None,
        "accuracy_interval": interval_json(figures.accuracy_interval, "accuracy", undefined),
        "cohen_kappa": figures.kappa if is_defined(figures.kappa) else None,
        "cohen_kappa_interval": interval_json(figures.kappa_interval, "cohen_kappa", undefined),
        "undefined": undefined,
    }


def to_dict(figures: PositionBiasFigures, rubric: Rubric) -> dict[str, Any]:
    undefined: dict[str, str] = {}
    bias = figures.bias
    return {
        "judge": figures.judge,
        "pairs": bias.pairs,
        "flips": bias.flips,
        "flip_rate": bias.flip_rate if is_defined(bias.flip_rate) else None,
        "flip_rate_interval": interval_json(bias.interval, "flip_rate", undefined),
        "first_shown_won_both": bias.first_shown_wins,
        "second_shown_won_both": bias.second_shown_wins,
        "flipped_counted_as": _flipped_counted_as(rubric),
        "against_experts": {"as_shown": _pair_dict(figures.as_shown),
                            "flips_as_ties": _pair_dict(figures.flips_as_ties)},
        "undefined": undefined,
    }


def blocks(figures: PositionBiasFigures, rubric: Rubric) -> list[Block]:
    """The section for text and Markdown."""
    bias = figures.bias
    out: list[Block] = [Heading(f"Position bias of {figures.judge}")]
    out.append(Paragraph((
        f"Asked about {bias.pairs} pairs as shown and with the two responses swapped, the verdict changed on "
        f"{bias.flips}: {figure_with_interval(bias.flip_rate, bias.interval, percent=True)}.",
        f"Of the changed verdicts, the response shown first won both times on {bias.first_shown_wins}, "
        f"the one shown second on {bias.second_shown_wins}.",
    )))
    rows = [(name, str(pair.n), figure_with_interval(pair.accuracy, pair.accuracy_interval, percent=True),
             figure_with_interval(pair.kappa, pair.kappa_interval))
            for name, pair in (("as shown", figures.as_shown),
                               (f"flips as {_flipped_counted_as(rubric)}", figures.flips_as_ties))
            if pair is not None]
    if rows:
        out.append(TableBlock(("judge's verdict", "n", "accuracy", "κ"), tuple(rows),
                              title="Against the experts' majority", right=frozenset({1, 2, 3})))
    return out
