"""`judge --both-orders`: each pair asked as shown and with the responses swapped, the swapped verdict read back
onto the pair, and the report's position bias figures; through the real CLI with command judges that read the
prompt they are sent (one prefers the longer response wherever it stands, one always picks the first shown)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

pytestmark = pytest.mark.slow

JUDGE = '''
import json, re, sys
request = json.load(sys.stdin)
text = request["prompt"]
a = re.search(r"### Response A\\n(.*?)\\n\\n### Response B", text, re.S).group(1)
b = re.search(r"### Response B\\n(.*?)(\\n\\n|$)", text, re.S).group(1)
if sys.argv[1] == "first":
    verdict = "A"
else:
    verdict = "A" if len(a) > len(b) else "B" if len(b) > len(a) else "tie"
print(json.dumps({"preference": verdict, "reasoning": "by " + sys.argv[1]}))
'''

PAIRS = [("short", "a much longer answer"), ("a longer answer here", "tiny"), ("same", "size"),
         ("x", "yy"), ("zzz", "w"), ("four", "five!")]
EXPERT = ["B", "A", "tie", "B", "A", "A"]


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "judge_tui", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    db = tmp_path / "pairs.db"
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"p{n}", "prompt": "Answer.", "response_a": a, "response_b": b}) + "\n"
                             for n, (a, b) in enumerate(PAIRS)))
    expert = tmp_path / "expert.jsonl"
    expert.write_text("".join(json.dumps({"item_id": f"p{n}", "preference": label}) + "\n"
                              for n, label in enumerate(EXPERT)))
    assert run("import", items, "--rubric", "pairwise", "--db", db).returncode == 0
    assert run("import-ratings", expert, "--rater", "ann", "--kind", "human", "--db", db).returncode == 0
    (tmp_path / "judge.py").write_text(JUDGE)
    return db


def judge(db: Path, style: str) -> str:
    script = db.parent / "judge.py"
    done = run("judge", "--backend", "command", "--cmd", f"{sys.executable} {script} {style}", "--model", style,
               "--both-orders", "--db", db)
    assert done.returncode == 0, done.stderr
    assert "12 done, 0 failed" in done.stdout  # six pairs, two orders each
    return next(line.split()[-1] for line in done.stdout.splitlines() if line.startswith("rater: "))


def position_bias(db: Path, rater: str) -> dict:
    done = run("report", "--db", db, "--raters", f"ann,{rater}", "--format", "json")
    assert done.returncode == 0, done.stderr
    [found] = json.loads(done.stdout)["position_bias"]
    return found


def test_a_judge_that_reads_the_responses_never_flips(db: Path) -> None:
    found = position_bias(db, judge(db, "longer"))
    assert (found["pairs"], found["flips"], found["flip_rate"]) == (6, 0, 0.0)
    low, high = proportion_confint(0, 6, method="wilson")
    assert (found["flip_rate_interval"]["low"], found["flip_rate_interval"]["high"]) == pytest.approx((low, high))
    said = ["A" if len(a) > len(b) else "B" if len(b) > len(a) else "tie" for a, b in PAIRS]
    for way in ("as_shown", "flips_as_ties"):  # nothing flipped: both ways are the same verdicts
        figures = found["against_experts"][way]
        assert figures["accuracy"] == pytest.approx(accuracy_score(EXPERT, said))
        assert figures["cohen_kappa"] == pytest.approx(cohen_kappa_score(EXPERT, said))


def test_a_judge_that_picks_the_first_shown_flips_on_every_pair(db: Path) -> None:
    rater = judge(db, "first")
    found = position_bias(db, rater)
    assert (found["pairs"], found["flips"], found["first_shown_won_both"], found["second_shown_won_both"]) == (6, 6, 6, 0)
    assert found["flipped_counted_as"] == "tie"
    ties = found["against_experts"]["flips_as_ties"]
    assert ties["accuracy"] == pytest.approx(accuracy_score(EXPERT, ["tie"] * 6))
    shown = found["against_experts"]["as_shown"]
    assert shown["accuracy"] == pytest.approx(accuracy_score(EXPERT, ["A"] * 6))
    text = run("report", "--db", db, "--raters", f"ann,{rater}").stdout
    assert "Position bias of" in text
    assert "changed on 6" in text


def test_both_orders_needs_a_pairwise_rubric(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "b1", "query": "q", "criterion": "c", "response": "r"}) + "\n")
    db = tmp_path / "binary.db"
    assert run("import", items, "--rubric", "binary", "--db", db).returncode == 0
    done = run("judge", "--backend", "command", "--cmd", "true", "--both-orders", "--db", db)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "--both-orders needs a pairwise rubric" in done.stderr


@pytest.mark.parametrize("both", [True, False])
def test_the_app_judge_asks_both_orders_when_the_settings_say_so(db: Path, both: bool) -> None:
    """`judge_both_orders` in settings.json: the judge inside the app queues each pair it is given as shown and
    swapped, and reads the swapped verdict back, as `judge --both-orders` does; the report then measures it."""
    import asyncio

    from judge_tui.judge.backends.command import CommandBackend
    from judge_tui.judge.worker import BackgroundJudge
    from judge_tui.model.settings import Settings
    from judge_tui.store import Store
    from judge_tui.store.rubric_choice import resolve_rubric
    from tests.waiting import until

    script = db.parent / "judge.py"
    calls = 2 * len(PAIRS) if both else len(PAIRS)
    with Store(db) as store:
        background = BackgroundJudge(store, resolve_rubric("pairwise", store), on_status=lambda status: None,
                                     settings=Settings(judge_both_orders=both),
                                     backend=CommandBackend(f"{sys.executable} {script} first", model="first"))
        assert background.enqueue(f"p{n}" for n in range(len(PAIRS))) == calls

        async def judge_everything() -> None:
            running = asyncio.create_task(background.run())
            await until(lambda: background.runner.state.done >= calls or running.done(), "every pair judged")
            background.stop()
            await running

        asyncio.run(judge_everything())
        assert store.judge_job_counts(background.rater_id)["done"] == calls
        rater = background.rater_id
    report = run("report", "--db", db, "--raters", f"ann,{rater}", "--format", "json")
    assert report.returncode == 0, report.stderr
    found = json.loads(report.stdout).get("position_bias", [])
    if both:  # the judge always picks the first shown: every pair flips
        assert [(f["pairs"], f["flips"]) for f in found] == [(6, 6)]
    else:
        assert found == []


def test_the_app_judge_asks_once_on_a_rubric_that_is_not_pairwise(tmp_path: Path) -> None:
    from judge_tui.judge.backends.command import CommandBackend
    from judge_tui.judge.worker import BackgroundJudge
    from judge_tui.model.settings import Settings
    from judge_tui.store import Store
    from judge_tui.store.rubric_choice import resolve_rubric

    db = tmp_path / "b.db"
    items = tmp_path / "b.jsonl"
    items.write_text(json.dumps({"id": "b1", "query": "q", "criterion": "c", "response": "r"}) + "\n")
    assert run("import", items, "--rubric", "binary", "--db", db).returncode == 0
    with Store(db) as store:
        background = BackgroundJudge(store, resolve_rubric("binary", store), on_status=lambda status: None,
                                     settings=Settings(judge_both_orders=True), backend=CommandBackend("true"))
        assert background.judge.both_orders is False
        assert background.enqueue(["b1"]) == 1
