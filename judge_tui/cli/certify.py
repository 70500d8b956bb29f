"""`judge-tui certify`: on which items the judge may decide alone, certified on the experts' ratings."""

from __future__ import annotations

import argparse
import json

from judge_tui.analysis.certify import LOGPROB, REPEATS, STATED, Certification, certify_judge
from judge_tui.cli.commands import open_store
from judge_tui.cli.raters import parse_members
from judge_tui.cli.report import pick_rubric
from judge_tui.formats.numbers import decimal_text, share_text, short_text
from judge_tui.formats.terminal import echo
from judge_tui.model.errors import UserError
from judge_tui.model.settings import load_settings
from judge_tui.stats.selective import fewest_certifiable


def run(args: argparse.Namespace) -> int:
    settings = load_settings().agreement
    if args.judge and args.jury:
        raise UserError("--judge and --jury: certify one judge (its repeats) or one jury, not both")
    with open_store(args, create=False) as store:
        rubric = pick_rubric(store, args.rubric)
        members = parse_members(args.jury, store, rubric.id) if args.jury else ()
        found = certify_judge(store, rubric, settings, alpha=args.alpha, delta=args.delta,
                              judge=args.judge, members=members, split=args.split, source=args.confidence)
    if args.format == "json":
        print(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
    else:
        print_lines(certification_lines(found))
    return 0


def print_lines(lines: list[str]) -> None:
    """The certificate's lines: on a terminal, each wrapped at a word to its width, its rest indented under it
    (as `echo` wraps a line); to a pipe or file, as they are."""
    for line in lines:
        echo(line)


# What a stored confidence is, as the first line and the threshold's line say it.
STORED_CONFIDENCE = {STATED: "the confidence it stated in its answer",
                     LOGPROB: "the probability of its scores' tokens"}


def _level(value: float) -> str:
    return decimal_text(value, 3).rstrip("0").rstrip(".")


def certification_lines(found: Certification) -> list[str]:
    cert = found.certificate
    alpha, delta = short_text(cert.alpha), short_text(cert.delta)  # as the lead gave them
    if found.members:
        title = f"The jury {'+'.join(found.members)}"
        source = f"the share of its {found.most_judgments} members that agree with its {found.jury_rule}"
        runs = "members"
    elif found.confidence == REPEATS:
        title = f"Judge {found.judge}"
        source = f"the share of its runs, up to {found.most_judgments}, that agree with its first"
        runs = "runs"
    else:
        title = f"Judge {found.judge}"
        source = STORED_CONFIDENCE[found.confidence]
        runs = ""
    lines = [f"{title} on rubric {found.rubric}, the {found.split} split: {cert.n} items the experts rated, each "
             f"with {'the jury' if found.members else 'the judge'}'s confidence ({source})"]
    if found.without_confidence and found.confidence in STORED_CONFIDENCE:
        lines.append(f"  {found.without_confidence} more expert-rated items have no {found.confidence} confidence: "
                     "left out")
    elif found.without_confidence:
        lines.append(f"  {found.without_confidence} more expert-rated items have one judgment"
                     + (" or a tie" if found.members else "") + ": no confidence, left out")
    lines.append(f"  α {alpha}, δ {delta}: with probability at least {share_text(1 - cert.delta)}, the judge "
                 f"disagrees with the experts on at most {share_text(cert.alpha)} of the items it keeps")
    kept = cert.certified
    if kept is None:
        lines.append("  no threshold is certified: the judge may decide no item")
    else:
        lines.append(f"  λ {_level(kept.threshold)}: the judge keeps an item when "
                     + (f"at least {share_text(kept.threshold)} of its {runs} agree" if runs else
                        f"{source} is at least {_level(kept.threshold)}"))
        lines.append(f"  coverage {share_text(cert.coverage)} ({kept.kept} of {cert.n} items), "
                     f"{kept.disagreements} disagreeing; bound {decimal_text(kept.bound, 3)} "
                     f"(Clopper–Pearson, one-sided at δ {delta}) ≤ α {alpha}")
    if cert.tests:
        lines.append("  thresholds tried, strictest first, up to the first failure:")
        lines += [f"    λ {_level(t.threshold):<6} {t.kept:>5} kept {t.disagreements:>5} disagree   bound "
                  f"{decimal_text(t.bound, 3)}   {'passed' if t.passed else 'failed'}" for t in cert.tests]
    else:
        lines.append(f"  no threshold tried: {cert.n} items are too few for any bound to reach α {alpha} (it takes "
                     f"{fewest_certifiable(cert.alpha, cert.delta)} kept items without a disagreement)")
    lines.append(f"  items no expert has rated outside the {found.split} and test splits: {found.unrated}; the "
                 f"judge decides {found.judge_decides}, escalate {found.escalate} to the experts")
    if found.unsure_of and found.confidence == REPEATS and kept is not None:
        lines.append(f"  {found.unsure_of} of the escalated have no confidence (judged once, or not at all): "
                     f"`judge-tui judge --rubric {found.rubric} --repeat 3` lets the judge keep those it is sure of")
    return lines
