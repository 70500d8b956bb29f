"""The validity page watched while ratings come in: how often it says "every target met" wrongly when the lead
reads it after every rating, against a single read at the end.

Each run is a PASS/FAIL study on a real SQLite database, as the lead's summary screen reads it: the judge has
labelled a test split of POOL items; one expert labels them one at a time in a random order, and after every
rating (every --every ratings) the page is computed by the calls the summary screen makes (scores.load,
build_report over every expert against the judge, validity.ratings_coming_in, validity.validity_by_version with
judge_only=False). The report is built with checks_only=True, plans=False, which computes the same targets
without the rank-correlation bootstraps and plans (neither decides anything); at every 20th look of the first
--check runs the screen's full report is built too and its page must say the same, target by target.

The truth: half the items PASS (--pass-share), the judge's TPR exactly 0.90 and its TNR 0.99, so TPR > 0.90 is
not met while alignment (≈ 94%), κ (≈ 0.89) and TNR meet theirs: "every target met" is always wrong.

Reported per rule: the share of runs in which some look while items were left said "every target met" (the page
as the app draws it: decided at any time; and, for comparison, the fixed-n decisions the page drew before, read
from the same report at every look), and the share whose read at the end (every item compared: fixed-n) says it.

Run from the project root:
  nice .venv/bin/python benchmarks/bench_validity_watched.py [--runs 400] [--pool 300] [--pass-share 0.5]
      [--every 2] [--seed 11] [--check 10]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from judge_tui.analysis.report import Group, Report, build_report
from judge_tui.analysis.scores import load
from judge_tui.analysis.validity import ValidityPage, ratings_coming_in, uses, validity_by_version
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric, load_rubrics
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store

SETTINGS = AgreementSettings()
TPR, TNR = 0.90, 0.99
JUDGE, EXPERT = "judge:sim", "ann"
MET = "every target met"


def _rating(rubric: Rubric, version: int, item: str, rater: str, passed: bool) -> Rating:
    dim = rubric.judged_dimensions[0].id
    scores = {dim: rubric.scale.points[-1] if passed else rubric.scale.points[0]}
    return Rating(item_id=item, rater_id=rater, rubric_version_id=version, scores=scores,
                  overall=rubric.overall_score(scores), verdict=rubric.verdict(scores))


def _page(store: Store, rubric: Rubric, *, full: bool) -> tuple[ValidityPage, Report, bool]:
    """The page as the lead's summary screen computes it (tui/screens/summary.py, SummaryScreen._validity)."""
    ratings = load(store, rubric)
    every_expert = build_report(store, rubric, judge=Group("judge", (JUDGE,)), settings=SETTINGS,
                                judge_only=False, ratings=ratings, checks_only=not full, plans=None if full else False)
    live = ratings_coming_in(store, every_expert)
    return (validity_by_version(store, every_expert, ratings, SETTINGS, judge_only=False, live=live),
            every_expert, live)


def one_run(rubric: Rubric, pool: int, every: int, rng: np.random.Generator, folder: Path, check: bool,
            pass_share: float) -> tuple[bool, bool, bool, int]:
    """(live page said met while items were left, fixed-n said met at some such look, the end's read said met,
    looks)."""
    truth = rng.random(pool) < pass_share
    judge = np.where(truth, rng.random(pool) < TPR, rng.random(pool) >= TNR)
    ids = [f"T{n:04d}" for n in range(pool)]
    live_met = fixed_met = end_met = False
    looks = 0
    with Store(folder / "study.db") as store:
        version = store.ensure_rubric_version(rubric)
        store.add_items([Item(id=i, rubric=rubric.id, split="test",
                              fields={"query": i, "criterion": "c", "response": "r"}) for i in ids])
        store.ensure_rater(JUDGE, "judge")
        store.ensure_rater(EXPERT, "human")
        store.save_ratings([_rating(rubric, version, i, JUDGE, bool(v)) for i, v in zip(ids, judge, strict=True)])
        for done, n in enumerate(rng.permutation(pool), start=1):
            store.save_ratings([_rating(rubric, version, ids[n], EXPERT, bool(truth[n]))])
            if done % every and done != pool:
                continue
            looks += 1
            page, every_expert, live = _page(store, rubric, full=False)
            if check and looks % 20 == 0:
                screen, _, _ = _page(store, rubric, full=True)
                found = [(c.key, c.decision) for c in page.judges[0].targets]
                assert found == [(c.key, c.decision) for c in screen.judges[0].targets], (found, done)
                assert page.judges[0].uses == screen.judges[0].uses, done
            said = any(MET in u for u in page.judges[0].uses)
            if live:
                live_met |= said
                # What the page said before: the report's fixed-n decisions, at every look.
                fixed = uses(every_expert, every_expert.checks, page.judges[0].replacement, ())
                fixed_met |= any(MET in u for u in fixed)
            else:
                end_met = said
    (folder / "study.db").unlink()
    for suffix in ("-wal", "-shm"):
        (folder / f"study.db{suffix}").unlink(missing_ok=True)
    return live_met, fixed_met, end_met, looks


def share(k: int, n: int) -> str:
    p = k / n
    half = 1.96 * (p * (1 - p) / n) ** 0.5
    return f"{p:.1%} (± {half:.1%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--pool", type=int, default=300, help="test items, all labelled by the judge")
    parser.add_argument("--pass-share", type=float, default=0.5, help="share of the items that truly PASS")
    parser.add_argument("--every", type=int, default=2, help="look after every this many ratings")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--check", type=int, default=10, help="runs checked against the screen's full report")
    args = parser.parse_args()
    rubric = load_rubrics()["binary"][0]
    rng = np.random.default_rng(args.seed)
    live = fixed = end = either = 0
    looks = 0
    started = time.perf_counter()
    memory = "/dev/shm" if Path("/dev/shm").is_dir() else None  # a commit per rating: no disk flush to wait for
    with tempfile.TemporaryDirectory(dir=memory) as folder:
        for run in range(args.runs):
            a, b, c, k = one_run(rubric, args.pool, args.every, rng, Path(folder), run < args.check,
                                 args.pass_share)
            live, fixed, end, either = live + a, fixed + b, end + c, either + (a or c)
            looks += k
    seconds = time.perf_counter() - started
    print(f"## The validity page watched while rating ({args.runs} runs, {args.pool} test items, a look after "
          f"every {args.every} rating(s); TPR {TPR}, TNR {TNR}, {args.pass_share:.0%} PASS)\n")
    print("| read | says \"every target met\" (wrong) |")
    print("|---|---:|")
    print(f"| live page, any look while items are left (decided at any time) | {share(live, args.runs)} |")
    print(f"| fixed-n decisions at every such look (the page before) | {share(fixed, args.runs)} |")
    print(f"| the read at the end, every item compared (fixed-n) | {share(end, args.runs)} |")
    print(f"| live page, any look including the end | {share(either, args.runs)} |")
    print(f"\n{looks:,} looks in {seconds:.0f} s; the first {min(args.check, args.runs)} runs checked against the "
          "screen's full report every 20 looks")


if __name__ == "__main__":
    main()
