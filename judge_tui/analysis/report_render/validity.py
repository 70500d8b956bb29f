"""The judge-validity page as text (80 columns, first screen of the report), Markdown and JSON.

The text fits an 80 x 24 terminal (its tables are at most 76 columns wide, so that they fit a screen's scrolling
pane too) for a rubric of up to three judged dimensions and one judge: a heading, the
uses the evidence supports, then one compact table each for the targets, the alternative annotator test and
the pool estimate. Long sentences (what would settle an undecided target) come last.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import Any

from judge_tui.analysis.report.anytime import ANYTIME
from judge_tui.analysis.report_render import certificate as certificate_format
from judge_tui.analysis.targets import TargetCheck
from judge_tui.analysis.validity import (
    Against,
    Dissent,
    JudgeValidity,
    PairCheck,
    PoolFigure,
    Replacement,
    RubricVersion,
    TooFew,
    ValidityPage,
)
from judge_tui.formats.numbers import (
    decimal_text,
    figure_with_interval,
    interval_text,
    share_text,
    short_text,
)
from judge_tui.model.textsafe import clean
from judge_tui.stats import assurance
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.alt_test import AltTest, Scoring
from judge_tui.stats.intervals import Interval
from judge_tui.stats.prediction_powered import PPI

WIDTH = 80
TITLE = "What the judge may be used for"
LIVE_NOTE = ("Decided by rules valid at any time: ratings are still coming in. The fixed-n decisions: once every "
             "item is compared, and in `judge-tui report`.")
VERSIONS_NOTE = ("Each block from the ratings made under its rubric version alone (the judge's and the experts'); "
                 "the figures after this page take each rater's newest rating of each item, whatever its version.")


def version_name(rubric_id: str, v: RubricVersion) -> str:
    """A rubric version as `history` numbers it, and the day it was made: "cis #2, 2026-11-27" (short, so that a
    block's heading keeps to one line of 80 columns)."""
    number = f"#{v.number}" if v.number else f"version id {v.id}"
    return f"{rubric_id} {number}, {v.created_at[:10]}" if v.created_at else f"{rubric_id} {number}"


def _version_of(page: ValidityPage, j: JudgeValidity) -> str:
    if j.version is not None:
        return version_name(page.rubric_id, j.version)
    return f"rubric {page.rubric_id} v{j.rubric_version}" if j.rubric_version else ""


def too_few_text(page: ValidityPage, t: TooFew) -> str:
    return (f"Judge {t.judge} ({version_name(page.rubric_id, t.version)}): {t.compared} of its {t.judged} items "
            f"rated by the experts under this version; {t.reason}.")


def _wrap(text: str, width: int, indent: str = "  ", hanging: str = "    ") -> list[str]:
    """Wrapped lines; a `command` is never broken across lines, so it can be copied whole."""
    parts = text.split("`")
    kept = "`".join(p.replace(" ", "\0") if i % 2 else p for i, p in enumerate(parts))
    lines = textwrap.wrap(kept, width=width, initial_indent=indent, subsequent_indent=hanging,
                          break_on_hyphens=False, break_long_words=False) or [indent]
    return [line.replace("\0", " ") for line in lines]


def _row(name: str, width: int, rest: str) -> list[str]:
    """A table row: the name in its column, or, when longer, whole on a line of its own above the figures
    (nothing is ever cut)."""
    if len(name) <= width:
        return [f"  {name:<{width}} {rest}".rstrip()]
    return [f"  {name}", f"  {'':<{width}} {rest}".rstrip()]


def _more(c: TargetCheck) -> str:
    """More rated items for an 80% chance of settling an undecided target ("+120"; ">1,000": none practical)."""
    if c.decision != "undecided" or c.plan is None:
        return ""
    if c.more_items is None:
        limit = c.in_scope(assurance.PRACTICAL_MORE)
        return f">{limit:,}" if limit is not None else "many"
    return f"+{c.more_items:,}"


def _target_lines(c: TargetCheck, width: int) -> list[str]:
    reason = c.undefined_reason
    if reason is not None:  # no figure to decide on: why, in place of the figures (wrapped under them if long)
        lines = _row(c.goal, 33, f"n/a: {reason}")
        if len(lines[-1]) <= width:
            return lines
        return [*_row(c.goal, 33, "n/a:"), *_wrap(reason, width, " " * 36, " " * 36)]
    reading = c.reading if c.decision is not None else "n/a"
    return _row(c.goal, 33, f"{reading:<18} {c.n:>3}  {c.decision or 'n/a':<9} {_more(c):>6}")


def _target_cell(c: TargetCheck) -> str:
    """The estimate in a Markdown table: the reading, or "n/a" with why."""
    if c.decision is not None:
        return c.reading
    reason = c.undefined_reason
    return "n/a" if reason is None else f"n/a: {reason}"


def _reason(p: PoolFigure) -> str:
    return p.estimate.reason if isinstance(p.estimate, Undefined) else ""


# How the alternative annotator test scored each rating against the other experts' (validity.alt_test_scoring).
SCORED_BY: dict[Scoring, str] = {"accuracy": "match", "neg_rmse": "RMSE"}
SCORED_AS: dict[Scoring, str] = {
    "accuracy": "each rating scored by how many of the other experts' it matches exactly, as its authors score "
                "labels",
    "neg_rmse": "each rating scored by its root mean squared distance from the other experts', as its authors "
                "score numbers",
}


def _experts_by_items(t: AltTest) -> str:
    """The experts compared and the items each rated with the judge and another: "3 × 60", "10 × 160–331"."""
    counts = [c.items for c in t.compared]
    items = str(counts[0]) if min(counts) == max(counts) else f"{min(counts)}–{max(counts)}"
    return f"{len(counts)} × {items}"


def _replacement_lines(r: Replacement) -> list[str]:
    t = r.test
    if t.passed is None:
        return _row(r.name, 28, f"not tested: {r.test.untested}")
    assert not isinstance(t.winning_rate, Undefined) and not isinstance(t.advantage_probability, Undefined)
    size = _experts_by_items(t)
    verdict = "passes" if t.passed else "fails"
    return _row(r.name, 28, f"{t.winning_rate:>5.2f} {t.advantage_probability:>5.2f}  {size:<10} {verdict}")


def _pool_method(pool: tuple[PoolFigure, ...]) -> str:
    """The method the pool table's heading names: its first estimate's (a row made otherwise names its own)."""
    return next((p.estimate.method for p in pool if not isinstance(p.estimate, Undefined)), PPI)


def _pool_name(p: PoolFigure, heading: str) -> str:
    e = p.estimate
    return p.name if isinstance(e, Undefined) or e.method == heading else f"{p.name} ({e.method})"


def _pool_lines(p: PoolFigure, heading: str) -> list[str]:
    e = p.estimate
    if isinstance(e, Undefined):
        return _row(p.name, 28, f"n/a: {e.reason}")
    ppi = figure_with_interval(e.estimate, e.interval, digits=2)
    alone = interval_text(e.experts_only_interval)
    return _row(_pool_name(p, heading), 28,
                f"{ppi:<18} {alone:<13} {e.narrower_by:>4.0%}  {decimal_text(e.judge_only, 2)}")


def judge_lines(page: ValidityPage, j: JudgeValidity, width: int = WIDTH) -> list[str]:
    version = clean(_version_of(page, j)).replace(" ", "\0")  # on one line, whole (_wrap puts the spaces back)
    lines = _wrap(f"{TITLE}: judge {clean(j.judge)}" + (f" ({version})" if version else ""), width, "", "  ")
    for use in j.uses:
        lines += _wrap(use, width, "  • ", "    ")
    if j.targets:
        lines.append(f"  {'Target':<33} {f'Estimate [{share_text(page.settings.confidence)}]':<18} {'n':>3}  "
                     f"{'Decision':<9} {'Settle':>6}")
        lines += [line for c in j.targets for line in _target_lines(c, width)]
        if j.decided == ANYTIME:
            lines += _wrap(LIVE_NOTE, width, "  ", "  ")
    if j.replacement and all(r.test.passed is None for r in j.replacement):
        lines += _wrap(f"Replace an expert? not tested: {j.replacement[0].test.untested}", width, "  ", "    ")
    elif j.replacement:
        head = (f"  {'Replace an expert? ε ' + format(page.settings.alt_test_epsilon, 'g'):<28} {'ω':>5} {'ρ':>5}  "
                f"{'experts×n':<10} by {SCORED_BY[j.replacement[0].test.scoring]}")
        experts = f" ({', '.join(map(clean, j.experts))})"
        lines += [head + experts] if len(head + experts) <= width else [head, *_wrap(f"experts{experts}", width)]
        lines += [line for r in j.replacement for line in _replacement_lines(r)]
    if j.pool and all(isinstance(p.estimate, Undefined) for p in j.pool):
        lines += _wrap(f"Pool estimate: n/a, {_reason(j.pool[0])}", width, "  ", "    ")
    elif j.pool:
        first = next((p.estimate for p in j.pool if not isinstance(p.estimate, Undefined)), None)
        heading = _pool_method(j.pool)
        rated = f", {first.labelled} rated + {first.unlabelled:,} judge only" if first is not None else ""
        label = f"Pool ({heading}{rated})"
        if len(label) > 47:  # keeps the table within the judge screen's 76 columns
            label = label.removesuffix(" judge only)") + ")"
        lines.append(f"  {label:<47} {'experts only':<13} {'gain':>4}  judge")
        lines += [line for p in j.pool for line in _pool_lines(p, heading)]
        if j.pool_note:
            lines += _wrap(f"Pool: {j.pool_note}", width, "  ", "    ")
    elif not page.pool_shown:
        lines.append("  Pool estimate: in `judge-tui report` (it uses items no expert has rated)")
    return lines


def _estimates(pairs: Sequence[PairCheck]) -> list[float]:
    return [e for p in pairs if isinstance(e := p.check.estimate, float)]


def _spread(pairs: Sequence[PairCheck]) -> str:
    """The pairs' figures from the lowest to the highest, and from the lowest interval's low end to the highest's
    high end: "55–75% [45, 83]", "0.30–0.46 [0.12, 0.61]"."""
    values = _estimates(pairs)
    if not values:
        return "n/a"
    percent = pairs[0].check.percent
    def one(v: float) -> str:
        return share_text(v) if percent else decimal_text(v, 2)
    low, high = min(values), max(values)
    text = one(low) if one(low) == one(high) else f"{one(low)}–{one(high)}"
    bounds = [p.check.interval for p in pairs if isinstance(p.check.interval, Interval)]
    if bounds:
        text += " " + interval_text(Interval(min(b.low for b in bounds), max(b.high for b in bounds), "",
                                             bounds[0].confidence), percent=percent)
    return text


def _pair_text(p: PairCheck, judge: bool) -> str:
    who = p.first if judge else f"{p.first}–{p.second}"
    return f"{who} {figure_with_interval(p.check.estimate, p.check.interval, percent=p.check.percent)}"


def _reconciled(j: JudgeValidity) -> str | None:
    """Targets the judge does not meet that no two experts meet with each other either."""
    decided = {c.key: c.decision for c in j.targets}
    short = [a.goal for a in j.against if decided.get(a.key) in ("not met", "undecided") and not a.met_by_experts]
    if not short:
        return None
    named = " and ".join(short) if len(short) <= 2 else f"{short[0]} and {len(short) - 1} more targets"
    return (f"No two experts are shown to meet {named} with each other either: the judge is held to more than "
            "the experts reach among themselves.")


def _dissent_text(d: Dissent) -> str:
    def one(v: float) -> str:
        return share_text(v) if d.percent else decimal_text(v, 2)
    others = ", ".join(f"{one(v)} with {clean(e)}" for e, v in d.with_others)
    low, high = d.among_others
    among = one(low) if one(low) == one(high) else f"{one(low)}–{one(high)}"
    return (f"{clean(d.expert)} disagrees with every other expert: {d.figure} {others}, against {among} between "
            "the others; check their ratings (or rubric reading) before counting them as an expert.")


COMPARED = "Compared with the experts' own agreement (fixed-n, each pair alone)"


def compared_lines(j: JudgeValidity, width: int = WIDTH) -> list[str]:
    """Each target the judge against each expert beside expert against expert; what that says; dissenters."""
    if not j.against and not j.dissent:
        return []
    lines = _wrap(COMPARED + ":", width, "  ", "    ")
    if j.against:
        lines.append(f"  {'Target':<28} {'judge vs expert':<22} expert vs expert")
        for a in j.against:
            judge, experts = _spread(a.judge), _spread(a.experts)
            row = _row(a.goal, 28, f"{judge:<22} {experts}")
            if len(row[-1]) > width:  # wide intervals: the experts' figures under the judge's, in their column
                row = [*_row(a.goal, 28, judge), f"  {'':<28} {'':<22} {experts}"]
            lines += row
    said = _reconciled(j)
    if said:
        lines += _wrap(said, width, "  • ", "    ")
    for d in j.dissent:
        lines += _wrap(f"⚠ {_dissent_text(d)}", width, "  ", "    ")
    return lines


def settle_lines(j: JudgeValidity, width: int = WIDTH) -> list[str]:
    if not j.settle:
        return []
    lines = ["  To settle what is undecided:"]
    for text in j.settle:
        lines += _wrap(text, width, "  - ", "    ")
    return lines


def render_text(page: ValidityPage, width: int = WIDTH) -> str:
    """The page as plain text: each judge's summary, then what would settle what is undecided."""
    blocks: list[list[str]] = []
    for position in range(len(page.judges) + 1):
        thin = [line for t in page.too_few if t.position == position
                for line in _wrap(clean(too_few_text(page, t)), width, "", "  ")]
        if thin:
            blocks.append(thin)
        if position < len(page.judges):
            j = page.judges[position]
            blocks.append(judge_lines(page, j, width) + compared_lines(j, width) + settle_lines(j, width))
    if page.by_version:
        blocks.append(_wrap(VERSIONS_NOTE, width, "", ""))
    if page.certificate is not None:
        blocks.append(_wrap(clean(certificate_format.heading(page.certificate)), width, "", "  ")
                      + [line for text in certificate_format.sentences(page.certificate)
                         for line in _wrap(clean(text), width)])
    return "\n\n".join("\n".join(b) for b in blocks) + "\n"


def _md(text: object) -> str:
    return clean(str(text)).replace("|", "\\|")


def render_markdown(page: ValidityPage) -> str:
    out: list[str] = []
    for position, j in enumerate(page.judges):
        thin = [f"- {_md(too_few_text(page, t))}" for t in page.too_few if t.position == position]
        out += [*thin, ""] if thin else []
        version = _version_of(page, j)
        out += [f"# {TITLE}: judge {_md(j.judge)}" + (f" ({_md(version)})" if version else ""), "",
                f"Experts: {', '.join(map(_md, j.experts))}.", ""]
        out += [f"- {_md(u)}" for u in j.uses] + [""]
        if j.targets:
            out += [f"| Target | Estimate [{share_text(page.settings.confidence)} interval] | n | Decision | To settle |",
                    "|---|---:|---:|---|---:|"]
            out += [f"| {_md(c.goal)} | {_md(_target_cell(c))} | {c.n} | {c.decision or 'n/a'} | "
                    f"{_more(c)} |"
                    for c in j.targets]
            out.append("")
            if j.decided == ANYTIME:
                out += [LIVE_NOTE, ""]
        untested = bool(j.replacement) and all(r.test.passed is None for r in j.replacement)
        scoring = j.replacement[0].test.scoring if j.replacement else None
        out += [f"Alternative annotator test (ε = {short_text(page.settings.alt_test_epsilon)}, q = {short_text(page.q)}"
                + (f"; {SCORED_AS[scoring]}" if scoring else "") + ")"
                + (f": not tested, {j.replacement[0].test.untested}." if untested else ":"), ""]
        if not untested:
            out += ["| Figure | ω | ρ | Experts × items | Verdict |", "|---|---:|---:|---|---|"]
        for r in () if untested else j.replacement:
            t = r.test
            if t.passed is None:
                out.append(f"| {_md(r.name)} | n/a | n/a | too few shared items | not tested |")
            else:
                rate, advantage = t.winning_rate, t.advantage_probability
                assert isinstance(rate, float) and isinstance(advantage, float)  # a test that ran has both
                out.append(f"| {_md(r.name)} | {decimal_text(rate, 2)} | {decimal_text(advantage, 2)} | "
                           f"{_experts_by_items(t)} | "
                           f"{'passes' if t.passed else 'fails'} |")
        if not untested:
            out.append("")
        if j.pool and all(isinstance(p.estimate, Undefined) for p in j.pool):
            out += [f"Pool estimate (PPI++): n/a, {_md(_reason(j.pool[0]))}.", ""]
        elif j.pool:
            heading = _pool_method(j.pool)
            out += [f"| Pool figure ({heading}) | Estimate | Experts only | Narrower | Judge alone |",
                    "|---|---:|---:|---:|---:|"]
            for p in j.pool:
                e = p.estimate
                if isinstance(e, Undefined):
                    out.append(f"| {_md(p.name)} | n/a | | | |")
                else:
                    out.append(f"| {_md(_pool_name(p, heading))} | {figure_with_interval(e.estimate, e.interval, digits=2)} | "
                               f"{interval_text(e.experts_only_interval)} | {share_text(e.narrower_by)} | {decimal_text(e.judge_only, 2)} |")
            out.append("")
            if j.pool_note:
                out += [f"Pool: {_md(j.pool_note)}.", ""]
        if j.against:
            out += [f"{COMPARED}:", "", "| Target | Judge vs expert | Expert vs expert |", "|---|---|---|"]
            out += [f"| {_md(a.goal)} | {'; '.join(_md(_pair_text(p, True)) for p in a.judge) or 'n/a'} | "
                    f"{'; '.join(_md(_pair_text(p, False)) for p in a.experts)} |" for a in j.against]
            out.append("")
        said = _reconciled(j)
        out += [f"- {_md(said)}"] if said else []
        out += [f"- ⚠ {_md(_dissent_text(d))}" for d in j.dissent]
        out += [""] if said or j.dissent else []
        if j.settle:
            out += ["To settle what is undecided:", ""] + [f"- {_md(s)}" for s in j.settle] + [""]
    last = [f"- {_md(too_few_text(page, t))}" for t in page.too_few if t.position == len(page.judges)]
    if last:
        out += [*([] if page.judges else [f"# {TITLE}", ""]), *last, ""]
    if page.by_version:
        out += [VERSIONS_NOTE, ""]
    if page.certificate is not None:
        out += [f"## {_md(certificate_format.heading(page.certificate))}", ""]
        out += [f"- {_md(text)}" for text in certificate_format.sentences(page.certificate)] + [""]
    return "\n".join(out)


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _replacement_dict(r: Replacement) -> dict[str, Any]:
    t = r.test
    undefined = {}
    for name in ("winning_rate", "advantage_probability"):
        value = getattr(t, name)
        if isinstance(value, Undefined):
            undefined[name] = value.reason
    return {
        "key": r.key, "name": r.name, "scoring": t.scoring,
        "winning_rate": None if isinstance(t.winning_rate, Undefined) else t.winning_rate,
        "advantage_probability": (None if isinstance(t.advantage_probability, Undefined)
                                  else t.advantage_probability),
        "passed": t.passed, "items_used": t.items_used, "items_dropped": t.items_dropped,
        "min_items_per_expert": t.min_items_per_expert,
        "experts": [{"expert": c.expert, "items": c.items, "judge_won": c.judge_won, "expert_won": c.expert_won,
                     "p_value": _number(c.p_value), "rejected": c.rejected} for c in t.compared],
        "too_few_items": [{"expert": e, "items": n} for e, n in t.too_few_items],
        "undefined": undefined,
    }


def _pool_dict(p: PoolFigure) -> dict[str, Any]:
    e = p.estimate
    if isinstance(e, Undefined):
        return {"key": p.key, "name": p.name, "estimate": None, "undefined": {"estimate": e.reason}}
    return {"key": p.key, "name": p.name, "estimate": e.estimate, "method": e.method,
            "interval": {"low": e.interval.low, "high": e.interval.high, "method": e.interval.method,
                         "confidence": e.interval.confidence},
            "standard_error": e.standard_error, "tuning": e.tuning, "labelled": e.labelled,
            "unlabelled": e.unlabelled, "experts_only": e.experts_only,
            "experts_only_standard_error": e.experts_only_standard_error,
            "experts_only_interval": {"low": e.experts_only_interval.low, "high": e.experts_only_interval.high,
                                      "method": e.experts_only_interval.method},
            "judge_only": e.judge_only, "narrower_by": e.narrower_by, "undefined": {}}


def _target_dict(c: TargetCheck) -> dict[str, Any]:
    interval = None if c.decision is None or isinstance(c.interval, Undefined) else {
        "low": c.interval.low, "high": c.interval.high}
    reason = c.undefined_reason
    return {"key": c.key, "goal": c.goal, "estimate": None if isinstance(c.estimate, Undefined) else c.estimate,
            "interval": interval, "n": c.n, "decision": c.decision,
            "more_items": c.more_items if c.decision == "undecided" else None,
            **({"undefined": {"estimate": reason}} if reason is not None else {})}


def _pair_dict(p: PairCheck) -> dict[str, Any]:
    c = p.check
    return {"first": p.first, "second": p.second,
            "estimate": c.estimate if isinstance(c.estimate, float) else None,
            "interval": {"low": c.interval.low, "high": c.interval.high} if isinstance(c.interval, Interval) else None,
            "n": c.n, "decision": c.decision}


def _against_dict(a: Against) -> dict[str, Any]:
    return {"key": a.key, "goal": a.goal, "judge_vs_expert": [_pair_dict(p) for p in a.judge],
            "expert_vs_expert": [_pair_dict(p) for p in a.experts], "met_by_experts": a.met_by_experts}


def _dissent_dict(d: Dissent) -> dict[str, Any]:
    return {"expert": d.expert, "figure": d.figure,
            "with_others": [{"expert": e, "estimate": v} for e, v in d.with_others],
            "among_others": {"low": d.among_others[0], "high": d.among_others[1]}}


def _version_dict(v: RubricVersion | None) -> dict[str, Any]:
    return {"rubric_version_id": v.id if v else None, "rubric_version_label": v.label if v else None,
            "rubric_version_created": v.created_at if v else None}


def to_dict(page: ValidityPage) -> dict[str, Any]:
    """The page as JSON (the report's `judge_validity` key): `judges` holds a block per judge rater and rubric
    version (`judges[0]`: the judge of the comparison under its newest version), `too_few_ratings` the versions
    said in one line, `certificate` the judge's certificate in force (only when one is)."""
    certificate = {"certificate": certificate_format.to_dict(page.certificate)} if page.certificate else {}
    return {
        "rubric": page.rubric_id, "epsilon": page.settings.alt_test_epsilon, "q": page.q, "confidence": page.settings.confidence,
        "pool_shown": page.pool_shown,
        "judges": [{"judge": j.judge, "rubric_version": j.rubric_version, "experts": list(j.experts),
                    "uses": list(j.uses), "targets": [_target_dict(c) for c in j.targets],
                    "decision_valid": j.decided,
                    "alt_test": [_replacement_dict(r) for r in j.replacement],
                    "pool": [_pool_dict(p) for p in j.pool], "pool_note": j.pool_note,
                    "to_settle": list(j.settle), **_version_dict(j.version), "newest_version": j.newest,
                    "compared_with_experts": [_against_dict(a) for a in j.against],
                    "experts_short_of_targets": _reconciled(j), "dissent": [_dissent_dict(d) for d in j.dissent]}
                   for j in page.judges],
        "too_few_ratings": [{"judge": t.judge, "rubric_version": t.version.number or None,
                             **_version_dict(t.version), "judged": t.judged, "compared": t.compared,
                             "reason": t.reason} for t in page.too_few],
        **certificate,
    }
