"""The judge's certificate in words: the certificate in force (analysis/judge_certificate.py) on the report's
validity page (sentences for the text and Markdown pages, and its JSON, `judge_validity.certificate`), and the
judge screen's lines at the lead's α and δ beside the one in force."""

from __future__ import annotations

from typing import Any

from judge_tui.analysis.certify import Certification
from judge_tui.analysis.judge_certificate import CertificateInForce, certifies_another_judge
from judge_tui.formats.numbers import (
    decimal_text,
    figure_with_interval,
    interval_text,
    share_text,
    short_text,
)
from judge_tui.stats.agreement import Undefined
from judge_tui.stats.intervals import IntervalFigure
from judge_tui.stats.selective import fewest_certifiable
from judge_tui.store import CertificateTerms

TITLE = "The judge's certificate in force"
SOURCES = {"repeats": "its repeated runs", "jury": "its members' agreement"}
HOURS_METHOD = ("items the judge decides × the mean recorded time of the experts' current ratings of the rubric "
                "(one expert rating per item); interval: the normal interval of that mean × the items")


def _level(value: float) -> str:
    return decimal_text(value, 3).rstrip("0").rstrip(".")


def heading(c: CertificateInForce) -> str:
    t = c.terms
    who = f"the jury {'+'.join(t.members)}" if t.members else f"judge {t.judge}"
    source = SOURCES.get(t.confidence, t.confidence)
    when = t.created_at[:16].replace("T", " ")
    return (f"{TITLE}: {who}, its confidence from {source}, certified on the {t.split} split"
            + (f" on {when} UTC" if when else "") + " (`judge-tui assign --escalate`)")


def sentences(c: CertificateInForce) -> list[str]:
    """What the certificate says, one sentence a line, unwrapped."""
    t = c.terms
    out = [f"α {short_text(t.alpha)}, δ {short_text(t.delta)}: with probability at least {share_text(1 - t.delta)}, "
           f"the judge disagrees with the experts on at most {share_text(t.alpha)} of the items it keeps."]
    if c.for_another_judge:
        out.insert(0, f"Warning: this certificate was made for {t.judge}, not for {c.compared}, the judge this "
                      f"report compares: it guarantees nothing about {c.compared}. A new judge needs a new "
                      f"certificate (`judge-tui assign --escalate`).")
    if t.lambda_ is None:
        out.append(f"No threshold passed: the judge may decide no item. All {t.unrated} items no expert had rated "
                   f"are the experts' to rate (coverage 0%).")
    else:
        out.append(f"λ {_level(t.lambda_)}: coverage {share_text(c.coverage)} ({t.kept} of {t.n} certification "
                   f"items kept, {t.disagreements} disagreeing; bound {decimal_text(t.bound or 0.0, 3)} ≤ α).")
        out.append(f"The judge decides {c.decided} of the {t.unrated} items no expert had rated outside the "
                   f"{t.split} and test splits; {c.escalated} are escalated to the experts' queues.")
    test = c.test
    if test is not None:
        if not test.compared:
            out.append("On the test split: no item the experts rated has the judge's verdict with a confidence yet, "
                       "so nothing checks the certificate there.")
        elif test.kept:
            agreement = figure_with_interval(test.agreement, test.interval, percent=True)
            out.append(f"On the test split: the judge would keep {test.kept} of the {test.compared} items the "
                       f"experts rated and it judged with a confidence; it agrees with the experts on {agreement} "
                       f"of them ({test.agreeing} of {test.kept}).")
        else:
            out.append(f"On the test split: the judge would keep none of the {test.compared} items the experts "
                       f"rated and it judged with a confidence: no agreement to check the certificate with yet.")
    saved = c.saved
    if saved.hours is None:
        out.append(f"Expert hours saved: n/a ({_reason(saved.interval)}).")
    else:
        bounds = interval_text(saved.interval)
        out.append(f"Expert hours saved: {decimal_text(saved.hours, 2)}" + (f" {bounds}" if bounds else "")
                   + f" ({saved.items} items × {decimal_text(saved.mean_seconds or 0.0, 0)} s, the mean of "
                   f"{saved.timed_ratings} timed expert ratings; one expert rating per item"
                   + (f"; no interval: {_reason(saved.interval)}" if not bounds else "") + ").")
    return out


def _reason(interval: IntervalFigure) -> str:
    return interval.reason if isinstance(interval, Undefined) else ""


def _interval(interval: IntervalFigure) -> list[float] | None:
    return None if isinstance(interval, Undefined) else [interval.low, interval.high]


def to_dict(c: CertificateInForce) -> dict[str, Any]:
    t, test, saved = c.terms, c.test, c.saved
    return {
        "judge": t.judge, "members": list(t.members), "jury_rule": t.jury_rule or None,
        "confidence_source": t.confidence, "split": t.split, "tolerance": t.tolerance,
        "alpha": t.alpha, "delta": t.delta, "certified": c.certified, "lambda": t.lambda_,
        "coverage": c.coverage, "n": t.n, "kept": t.kept, "disagreements": t.disagreements, "bound": t.bound,
        "recorded_at": t.created_at, "plan": t.plan_id,
        "compared_judge": c.compared, "for_another_judge": c.for_another_judge,
        "unrated": t.unrated, "judge_decides": c.decided, "escalated": c.escalated,
        "test": None if test is None else {
            "compared": test.compared, "kept": test.kept, "coverage": test.coverage, "agreeing": test.agreeing,
            "agreement": test.agreement, "interval": _interval(test.interval), "interval_method": "wilson"},
        "hours_saved": {
            "items": saved.items, "timed_ratings": saved.timed_ratings, "mean_seconds": saved.mean_seconds,
            "hours": saved.hours, "interval": _interval(saved.interval), "method": HOURS_METHOD},
    }  # fmt: skip


def screen_lines(found: Certification | None, problem: str | None, in_force: CertificateTerms | None,
                 decided: int, alpha: float, delta: float, rubric_id: str, split: str,
                 judge: str | None = None) -> list[str]:
    """The judge screen's certificate at the lead's α and δ (``found``, or why there is none), the one in force
    (said to be another judge's when it is not ``judge``'s, the judge in force), and the command that puts these
    levels in force when they differ."""
    out = [f"Trust or escalate · α {short_text(alpha)}, δ {short_text(delta)}"]
    if found is None:
        out.append(f"  {problem or 'no certificate yet'}")
    else:
        cert, kept = found.certificate, found.certificate.certified
        if kept is None and not cert.tests:
            out.append(f"  no threshold is certified at these levels: the judge may decide no item; its {cert.n} "
                       f"{split} items the experts rated are too few for any bound to reach α (it takes "
                       f"{fewest_certifiable(alpha, delta)} kept items without a disagreement)")
        elif kept is None:
            out.append(f"  no threshold is certified at these levels: the judge may decide no item "
                       f"({cert.n} {split} items the experts rated)")
        else:
            out.append(f"  λ {_level(kept.threshold)}: the judge keeps {share_text(cert.coverage)} of the {cert.n} "
                       f"{split} items the experts rated ({kept.kept}; {kept.disagreements} disagreeing, bound "
                       f"{decimal_text(kept.bound, 3)} ≤ α)")
        out.append(f"  {found.unrated} items no expert has rated (outside {split} and test): the judge decides "
                   f"{found.judge_decides}, escalate {found.escalate} to the experts")
    if in_force is None:
        out.append("  In force: no certificate; every item is the experts' to rate")
    else:
        said = "no threshold (the judge decides no item)" if in_force.lambda_ is None else \
            f"λ {_level(in_force.lambda_)}"
        out.append(f"  In force: {said} at α {short_text(in_force.alpha)}, δ {short_text(in_force.delta)}, since "
                   f"{in_force.created_at[:16].replace('T', ' ')} UTC: the judge decides {decided} items, the "
                   f"experts' queues hold the rest")
        if certifies_another_judge(in_force, judge):
            out.append(f"  It certifies {in_force.judge}, not the judge in force: a new judge needs a new "
                       f"certificate")
    stale = in_force is not None and certifies_another_judge(in_force, judge)
    if in_force is None or stale or (in_force.alpha, in_force.delta) != (alpha, delta):
        out.append(f"  To put these levels in force: `judge-tui assign --rubric {rubric_id} --experts … --escalate "
                   f"--alpha {short_text(alpha)} --delta {short_text(delta)}`")
    return out
