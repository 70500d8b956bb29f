"""`judge-tui certify`: on which items the judge may decide alone, certified on the experts' ratings."""

from __future__ import annotations

import argparse
import json

from judge_tui.analysis.certify import Certification, certify_judge
from judge_tui.analysis.figure_format import decimal_text, share_text
from judge_tui.cli.commands import open_store
from judge_tui.cli.report import pick_rubric
from judge_tui.formats.terminal import echo
from judge_tui.model.settings import load_settings
from judge_tui.stats.selective import fewest_certifiable


def run(args: argparse.Namespace) -> int:
    tolerance = load_settings().agreement.tolerance
    with open_store(args, create=False) as store:
        rubric = pick_rubric(store, args.rubric)
        found = certify_judge(store, rubric, alpha=args.alpha, delta=args.delta, tolerance=tolerance,
                              judge=args.judge, split=args.split)
    if args.format == "json":
        print(json.dumps(found.to_json(), indent=2, ensure_ascii=False))
    else:
        for line in certification_lines(found):
            echo(line)
    return 0


def _level(value: float) -> str:
    return decimal_text(value, 3).rstrip("0").rstrip(".")


def certification_lines(found: Certification) -> list[str]:
    cert = found.certificate
    alpha, delta = _level(cert.alpha), _level(cert.delta)
    lines = [f"Judge {found.judge} on rubric {found.rubric}, certified on the {found.split} split: {cert.n} items "
             f"the experts rated with the judge's confidence (the share of its runs, up to {found.most_runs}, that "
             f"agree with its first)"]
    if found.judged_once:
        lines.append(f"  {found.judged_once} more expert-rated items were judged once: no confidence, left out")
    lines.append(f"  α {alpha}, δ {delta}: with probability at least {share_text(1 - cert.delta)}, the judge "
                 f"disagrees with the experts on at most {share_text(cert.alpha)} of the items it keeps")
    kept = cert.certified
    if kept is None:
        lines.append("  no threshold is certified: the judge may decide no item")
    else:
        lines.append(f"  λ {_level(kept.threshold)}: the judge keeps an item when at least "
                     f"{share_text(kept.threshold)} of its runs agree")
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
    return lines
