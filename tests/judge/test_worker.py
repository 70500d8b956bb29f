"""The judge in the app: judges in the background while keys keep working, and reports its progress."""

from __future__ import annotations

import asyncio
import threading

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.events import Key
from textual.widgets import Static

from judge_tui.judge.worker import BackgroundJudge, JudgeStatus
from judge_tui.model import locations
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.messages import JudgeProgress
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import fast
from tests.waiting import until

ITEMS = 6


class Host(App[None]):
    """A stand-in for the rating screen: shows the judge's status line and counts key presses."""

    def __init__(self, store: Store, rubric: Rubric) -> None:
        super().__init__()
        self.store = store
        self.rubric = rubric
        self.lines: list[str] = []
        self.progress: list[JudgeProgress] = []
        self.presses = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="status", markup=False)

    def on_mount(self) -> None:
        self.judge = BackgroundJudge(
            self.store, self.rubric, on_status=lambda s: self.post_message(JudgeProgress.from_status(s)),
            settings=Settings(judge_model="claude-sonnet-5"), options=fast(concurrency=2))
        self.run_worker(self.judge.run(), exit_on_error=False, group="judge")

    def on_judge_progress(self, message: JudgeProgress) -> None:
        self.progress.append(message)
        self.lines.append(message.line())
        self.query_one("#status", Static).update(Text(message.line()))

    def on_key(self, event: Key) -> None:
        self.presses += 1


@pytest.mark.slow
async def test_background_judging_never_delays_a_key_press(fake: fa.FakeAnthropic, cis_store: Store,
                                                      rubrics: dict[str, Rubric]) -> None:
    fake.latency = 0.3  # long enough for two calls to overlap once answers flow
    fake.hold = threading.Event()  # every call stays in flight until the keys have been handled

    app = Host(cis_store, rubrics["cis"])
    async with app.run_test() as pilot:
        assert app.judge.enqueue_all() == ITEMS
        # The first call goes alone (it writes the prompt cache the others read); hold it unanswered.
        await until(lambda: fake.in_flight() == 1, "the first call in flight")
        for _ in range(12):
            await pilot.press("j")
        # every key reached its handler while the call was still in flight: judging never blocks a key
        assert app.presses == 12
        assert fake.in_flight() == 1
        assert cis_store.count_ratings(rater_id=app.judge.rater_id) == 0
        fake.hold.set()
        await until(lambda: bool(app.progress) and app.progress[-1].status.done == ITEMS, "every item judged")
        assert fake.max_concurrent_seen == 2  # at most N at once
        assert app.lines[-1] == "judge: 0 queued · 6 done"
        assert str(app.query_one("#status", Static).render()) == "judge: 0 queued · 6 done"
        assert any("running" in line for line in app.lines)
        # opening an item queues it; an already judged item is not judged again
        assert app.judge.enqueue(["B001"]) == 0
        app.judge.stop()
    assert cis_store.count_ratings(rater_id=app.judge.rater_id) == ITEMS


async def test_without_a_key_the_status_says_no_api_key(cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    app = Host(cis_store, rubrics["cis"])
    async with app.run_test() as pilot:
        app.judge.enqueue(["B001", "B002", "B003"])
        # Claimed jobs go back to the queue once the runner finds the key missing: wait for that to settle.
        await until(lambda: bool(app.progress) and bool(app.progress[-1].status.offline)
                    and app.lines[-1] == "judge: 3 queued · no API key", "the judge without a key, its jobs queued again")
        await pilot.press("j")
        # A key changes nothing here, but the waiting runner may still be handing a claimed job back on a loaded
        # machine: read the line once it has settled, not mid-way.
        await until(lambda: app.lines[-1] == "judge: 3 queued · no API key", "the judge without a key again after j")
        assert app.progress[-1].status.offline == "no ANTHROPIC_API_KEY in the environment"
        assert [line for line in app.lines if "offline" in line] == []  # the network is not what is missing
        app.judge.stop()
        await until(lambda: app.workers and all(w.is_finished for w in app.workers) or not app.workers,
                    "the judge's worker finished")
    assert cis_store.judge_job_counts(app.judge.rater_id) == {"queued": 3, "running": 0, "done": 0, "failed": 0}


def test_status_line_words() -> None:
    assert JudgeStatus(18, 0, 0, 0, offline="no network").line() == "judge: 18 queued · offline"
    assert JudgeStatus(2, 2, 5, 1).line() == "judge: 2 queued · 2 running · 5 done · 1 failed"
    assert JudgeStatus(4, 0, 0, 0, error="401").line() == "judge: 4 queued · stopped"
    # Items judged under the prompt in force through another backend are judged: offline only while some wait.
    assert JudgeStatus(0, 0, 0, 0, offline="no network", judged=101).line() == "judge: 101 judged"
    assert JudgeStatus(6, 0, 2, 0, offline="no network", judged=93).line() == "judge: 95 judged · 6 queued · offline"
    assert JudgeStatus(1, 0, 0, 1, error="401", judged=9).line() == "judge: 9 judged · 1 queued · 1 failed · stopped"
    # Imported judge ratings are judged too. Without an API key the line says so, whether or not items wait:
    # "offline" is the network's word.
    assert JudgeStatus(0, 0, 0, 0, imported=25, no_key=True).line() == "judge: 25 imported · no API key"
    assert JudgeStatus(3, 0, 0, 0, offline="no key", imported=22, no_key=True).line() == \
        "judge: 22 imported · 3 queued · no API key"
    assert JudgeStatus(0, 0, 4, 0, imported=2).line() == "judge: 2 imported · 4 judged"
    assert JudgeStatus(0, 0, 0, 0, no_key=True).line() == "judge: 0 queued · no API key"
    assert JudgeStatus(3, 0, 0, 0, no_key=True).line() == "judge: 3 queued · no API key"
    assert JudgeStatus(3, 0, 0, 0, offline="no key", no_key=True).line() == "judge: 3 queued · no API key"
    assert JudgeStatus(2, 1, 0, 0, offline="no key", no_key=True).line() == "judge: 2 queued · 1 running · no API key"
    assert JudgeStatus(3, 0, 0, 0, error="401", no_key=True).line() == "judge: 3 queued · stopped"


async def test_the_app_judge_leaves_imported_judge_ratings_alone(fake: fa.FakeAnthropic, cis_store: Store,
                                                                  rubrics: dict[str, Rubric], tmp_path) -> None:
    """Items rated by imported judge ratings (no recorded judge version) are judged already: never queued, never
    paid for again; the status line counts them as imported."""
    from judge_tui.transfer.importing import import_ratings

    imported = tmp_path / "judge.jsonl"
    lines = (locations.data_dir() / "cis.judge-demo.ratings.jsonl").read_text(encoding="utf-8").splitlines()
    imported.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")  # B001 and B002
    import_ratings(cis_store, imported, "other-tool-judge", "judge", rubric=rubrics["cis"], fmt="jsonl")
    lines_seen: list[str] = []
    judge = BackgroundJudge(cis_store, rubrics["cis"], on_status=lambda s: lines_seen.append(s.line()),
                            settings=Settings(judge_model="claude-sonnet-5"), options=fast(concurrency=2),
                            skip_judged=True)
    assert judge.enqueue_all() == ITEMS - 2
    assert judge.enqueue(["B001"]) == 0
    run = asyncio.create_task(judge.run())
    await until(lambda: cis_store.judge_job_counts(judge.rater_id)["done"] == ITEMS - 2, "the other items judged")
    judge.stop()
    await run
    assert len(fake.message_requests()) == ITEMS - 2
    assert cis_store.rated_item_ids(judge.rater_id, "cis") == {f"B00{n}" for n in range(3, ITEMS + 1)}
    assert lines_seen[-1] == "judge: 2 imported · 4 judged"


async def test_jobs_queued_before_items_counted_as_imported_are_never_sent(fake: fa.FakeAnthropic, cis_store: Store,
                                                                          rubrics: dict[str, Rubric], tmp_path) -> None:
    """A database of an earlier release queued the app judge's jobs for items whose judge ratings were imported:
    those jobs, never sent, are withdrawn when the app starts its judge; only the other items are paid for."""
    from judge_tui.transfer.importing import import_ratings

    def judge_made() -> BackgroundJudge:
        return BackgroundJudge(cis_store, rubrics["cis"], on_status=lambda s: None,
                               settings=Settings(judge_model="claude-sonnet-5"), options=fast(concurrency=2),
                               skip_judged=True)

    earlier = judge_made()
    earlier.judge.queue.enqueue_items([f"B00{n}" for n in range(1, ITEMS + 1)], repeats=1)  # as before the rule
    assert cis_store.judge_job_counts(earlier.rater_id)["queued"] == ITEMS
    imported = tmp_path / "judge.jsonl"
    lines = (locations.data_dir() / "cis.judge-demo.ratings.jsonl").read_text(encoding="utf-8").splitlines()
    imported.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")  # B001 and B002
    import_ratings(cis_store, imported, "other-tool-judge", "judge", rubric=rubrics["cis"], fmt="jsonl")
    judge = judge_made()
    judge.enqueue_all()
    assert cis_store.judge_job_counts(judge.rater_id)["queued"] == ITEMS - 2
    run = asyncio.create_task(judge.run())
    await until(lambda: cis_store.judge_job_counts(judge.rater_id)["done"] == ITEMS - 2, "the other items judged")
    judge.stop()
    await run
    assert len(fake.message_requests()) == ITEMS - 2
    assert cis_store.judge_job_counts(judge.rater_id) == {"queued": 0, "running": 0, "done": ITEMS - 2, "failed": 0}


@pytest.mark.slow
async def test_the_app_judge_beside_a_headless_judge_never_pays_twice(fake: fa.FakeAnthropic, tmp_path,
                                                                 rubrics: dict[str, Rubric]) -> None:
    from judge_tui.judge.runner import JudgeRunner
    from tests.judge.conftest import add_cis_items, assert_consistent, make_judge

    items = 8
    fake.latency = 0.2
    path = tmp_path / "shared.db"
    with Store(path) as store:
        add_cis_items(store, rubrics["cis"], items)

    async def side_by_side() -> str:
        with Store(path) as app_store, Store(path) as cli_store:
            app = BackgroundJudge(app_store, rubrics["cis"], on_status=lambda status: None,
                                  settings=Settings(judge_model="claude-sonnet-5"), options=fast(concurrency=2))
            app.enqueue_all()
            app_run = asyncio.create_task(app.run())
            await until(lambda: app_store.judge_job_counts(app.rater_id)["running"],
                        "a call of the app's judge in flight", every=0.01)
            # a headless judge of the same model starts while the app has a call in flight
            await JudgeRunner(make_judge(cli_store, rubrics["cis"]), fast(concurrency=2)).run()
            await until(lambda: app_store.judge_job_counts(app.rater_id)["done"] >= items,
                        "every item judged")
            app.stop()
            await app_run
            return app.rater_id

    rater = await side_by_side()
    texts = [request.body["messages"][0]["content"] for request in fake.message_requests()]
    assert len(texts) == len(set(texts)) == items  # each item asked about once, by one judge or the other
    with Store(path) as store:
        assert_consistent(store, rater, items)
