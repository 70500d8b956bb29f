"""Message Batches that must never be paid twice: a process killed while the API takes a batch, two batch
processes on one database, and the batch limits a user sets."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from judge_tui.cli import build_parser
from judge_tui.cli import judge as headless
from judge_tui.judge.backends.anthropic import AnthropicBackend
from judge_tui.judge.runner import BatchRunner, RunOptions
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge.conftest import API_KEY, add_cis_items, assert_consistent, fast, make_judge
from tests.narrowing import present
from tests.waiting import until, wait_until

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 6


def batch_posts(fake: fa.FakeAnthropic) -> list[fa.Recorded]:
    return [r for r in fake.requests if r.method == "POST" and r.path == "/v1/messages/batches"]


def status_polls(fake: fa.FakeAnthropic, batch_id: str) -> int:
    return sum(1 for r in fake.requests if r.method == "GET" and r.path.split("?")[0].endswith(batch_id))


def _why(process: subprocess.Popen[str], what: str) -> str:
    """What was awaited, and what the judge said if it has ended (a running one's stderr cannot be read)."""
    if process.poll() is None:
        return what
    return f"{what}; the judge ended, saying: {present(process.stderr).read()}"


def _spawn(db: Path, fake: fa.FakeAnthropic, home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.url,
           "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--rubric", "cis", "--model",
         "claude-sonnet-5", "--batch"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_a_batch_the_api_took_while_the_process_was_killed_is_found_not_sent_again(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path) -> None:
    db = tmp_path / "killed.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
    fake.batch_hold = threading.Event()  # the API has the batch; its answer never reaches the first process
    fake.batch_polls = 0
    first = _spawn(db, fake, hermetic_home)
    try:
        wait_until(lambda: fake.batches, lambda: _why(first, "a batch sent"))
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=20)
    finally:
        if first.poll() is None:
            first.kill()
        fake.batch_hold.set()
    with Store(db) as store:
        [sending] = store.open_judge_batches(store.raters("judge")[0]["id"])
        assert (sending["status"], sending["request_count"]) == ("sending", ITEMS)
    second = _spawn(db, fake, hermetic_home)
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert f"cis: {ITEMS} done, 0 failed" in out
    assert "note:" not in out
    assert len(batch_posts(fake)) == 1  # found among the account's batches: nothing sent twice
    [batch_id] = fake.batches
    with Store(db) as store:
        rater = store.raters("judge")[0]["id"]
        assert_consistent(store, rater, ITEMS)
        assert {r.details["batch_id"] for r in store.iter_ratings(rater_ids=[rater])} == {batch_id}
        assert store.open_judge_batches(rater) == []


def _plain_judge(db: Path, fake: fa.FakeAnthropic, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.url,
           "JUDGE_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "judge_tui", "judge", "--db", str(db), "--rubric", "cis",
                           "--model", "claude-sonnet-5"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("api", ["ended", "processing", "upload-cut-off"])
def test_a_plain_judge_after_a_batch_run_killed_while_sending_finishes_the_work_or_says_what_to_do(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path, api: str) -> None:
    db = tmp_path / "stale.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
    held = threading.Event()
    if api == "upload-cut-off":
        fake.batch_upload_cut = held  # killed before the upload finished: the API never has the batch
    else:
        fake.batch_hold = held  # the API has the batch; its answer never reaches the process
    fake.batch_polls = 1_000_000 if api == "processing" else 0
    first = _spawn(db, fake, hermetic_home)
    try:
        wait_until(lambda: batch_posts(fake), lambda: _why(first, "a batch sent"))
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=20)
    finally:
        if first.poll() is None:
            first.kill()
        held.set()
    plain = _plain_judge(db, fake, hermetic_home)
    if api == "upload-cut-off":
        # The API does not list the batch: it may yet (a batch can appear in the list a while after it was
        # taken), so nothing is sent before the grace period has passed, and the user is told when that is.
        assert plain.returncode == 3, plain.stdout + plain.stderr
        said = " ".join(plain.stdout.split())
        assert (f"cis: {ITEMS} judgments were in a Message Batch being sent when judge-tui stopped, which the"
                " API does not list yet. Run the same command again after") in said
        assert fake.message_requests() == []
        assert len(batch_posts(fake)) == 1
        _age_sending_batches(db, seconds=RunOptions().batch_grace + 60)  # the grace period has passed
        plain = _plain_judge(db, fake, hermetic_home)
        assert "it never reached the API, so its items were sent again" in " ".join(plain.stdout.split())
    if api == "processing":
        # Paid for already and not finished: nothing is asked again; the jobs wait, and the user is told so.
        assert plain.returncode == 3, plain.stderr
        assert (f"cis: {ITEMS} judgments wait for a Message Batch the API has not finished (it answers within"
                " 24 h of sending). Run the same command again later") in plain.stdout
        with Store(db) as store:
            assert store.judge_job_counts(store.raters("judge")[0]["id"])["running"] == ITEMS
        fake.batch_polls = 0  # the API has finished it
        plain = _plain_judge(db, fake, hermetic_home)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert f"cis: {ITEMS} done, 0 failed, 0 waiting" in plain.stdout
    if api == "upload-cut-off":  # the API never had them: judged now, one call each
        assert len(fake.message_requests()) == ITEMS
        assert fake.batches == {}
    else:  # read from the batch the API had: nothing paid twice
        assert fake.message_requests() == []
        assert len(fake.batches) == 1
        assert len(batch_posts(fake)) == 1
    with Store(db) as store:
        rater = store.raters("judge")[0]["id"]
        assert_consistent(store, rater, ITEMS)
        assert store.judge_job_counts(rater)["done"] == ITEMS
        assert store.open_judge_batches(rater) == []


def _age_sending_batches(db: Path, seconds: float) -> None:
    """Move the record of a batch being sent back in time, as the clock moves on (no test waits ten minutes)."""
    with Store(db) as store, store.transaction() as conn:
        for batch_id, updated in conn.execute("SELECT id, updated_at FROM judge_batches WHERE status = 'sending'"
                                              ).fetchall():
            earlier = datetime.fromisoformat(updated) - timedelta(seconds=seconds)
            conn.execute("UPDATE judge_batches SET updated_at = ? WHERE id = ?",
                         [earlier.isoformat(timespec="milliseconds"), batch_id])


def _stopped_while_sending(store: Store, rubric: Rubric) -> tuple[str, int]:
    """A run stopped while its batch was being sent (Ctrl-C in the upload): (rater, jobs in it)."""
    judge = make_judge(store, rubric)
    judge.queue.enqueue()
    assert isinstance(judge.backend, AnthropicBackend)  # the batch API is Anthropic's
    sent = judge.backend.create_batch

    async def stopped_in_flight(requests: list) -> str:
        await sent(requests)  # the API takes it...
        raise asyncio.CancelledError  # ...and the run is stopped before the answer comes back

    judge.backend.create_batch = stopped_in_flight  # type: ignore[method-assign]  # stopped while the batch is sent
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(BatchRunner(judge, fast()).run())
    return judge.rater_id, ITEMS


def test_an_interrupted_send_is_adopted_when_the_api_has_exactly_one_such_batch(
        fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    rater, jobs = _stopped_while_sending(cis_store, rubrics["cis"])
    assert cis_store.judge_job_counts(rater)["running"] == jobs
    fake.create_batch({"requests": [{}] * (jobs + 1)})  # someone else's batch, of another size: not ours
    state = asyncio.run(BatchRunner(make_judge(cis_store, rubrics["cis"]), fast()).run())
    assert (state.done, state.notice) == (jobs, "")
    assert len(batch_posts(fake)) == 1
    assert_consistent(cis_store, rater, jobs)


def test_an_interrupted_send_that_could_be_one_of_several_batches_is_sent_again_saying_why(
        fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    rater, jobs = _stopped_while_sending(cis_store, rubrics["cis"])
    fake.create_batch({"requests": [{}] * jobs})  # another batch of the same size, created since
    state = asyncio.run(BatchRunner(make_judge(cis_store, rubrics["cis"]), fast()).run())
    assert state.done == jobs
    assert "could not be told which was ours" in state.notice
    assert len(batch_posts(fake)) == 2  # sent again: paying twice beats losing or mixing up judgments
    assert_consistent(cis_store, rater, jobs)


def test_an_interrupted_send_waits_while_offline_and_never_sends_blind(
        fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    rater, jobs = _stopped_while_sending(cis_store, rubrics["cis"])
    judge = make_judge(cis_store, rubrics["cis"])
    fake.stop()  # the network is gone: the account's batches cannot be listed
    runner = BatchRunner(judge, fast())

    async def run_a_while() -> None:
        task = asyncio.create_task(runner.run())
        await until(lambda: runner.state.offline, "the runner offline", every=0.01)
        runner.stop()
        await task

    asyncio.run(run_a_while())
    [sending] = cis_store.open_judge_batches(rater)
    assert sending["status"] == "sending"
    assert cis_store.judge_job_counts(rater)["running"] == jobs


def _live_elsewhere(store: Store) -> str:
    """A judge process that is alive (this one's pid, a fresh heartbeat) but is not the runner under test."""
    from judge_tui.judge.lease import Lease

    other = Lease(store)
    other.register()
    return other.owner


def test_a_second_batch_process_leaves_a_live_ones_batches_alone_and_takes_over_a_gone_ones(
        fake: fa.FakeAnthropic, cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    fake.batch_polls = 1_000_000
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    owner = _live_elsewhere(cis_store)
    jobs = judge.queue.claim(ITEMS, owner)
    assert isinstance(judge.backend, AnthropicBackend)  # the batch API is Anthropic's
    batch_id = asyncio.run(judge.backend.create_batch([present(judge.request(job)) for job in jobs]))
    judge.queue.intend_batch("sending-x", jobs, owner)
    judge.queue.batch_sent("sending-x", batch_id)

    state = asyncio.run(BatchRunner(judge, fast()).run())
    assert state.batches_elsewhere == 1
    assert batch_id not in state.batches
    assert status_polls(fake, batch_id) == 0  # never polled, never read: the live owner does that
    assert cis_store.judge_job_counts(judge.rater_id)["running"] == ITEMS
    assert "1 Message Batch of this judge is polled by another judge-tui process" in \
        headless.run_summary(judge, state).plain

    cis_store.remove_judge_workers([owner])  # that process is gone
    fake.batch_polls = 0
    state = asyncio.run(BatchRunner(make_judge(cis_store, rubrics["cis"]), fast()).run())
    assert (state.done, state.batches_elsewhere) == (ITEMS, 0)
    assert len(batch_posts(fake)) == 1
    assert_consistent(cis_store, judge.rater_id, ITEMS)


def test_the_batch_limit_options_cut_the_queue_and_are_checked(fake: fa.FakeAnthropic, tmp_path: Path,
                                                               rubrics: dict[str, Rubric],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    fake.max_batch_requests = 4  # an account or proxy with a lower limit
    db = tmp_path / "limits.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)

    def args(*extra: str):
        return build_parser().parse_args(["judge", "--db", str(db), "--rubric", "cis", "--model", "claude-sonnet-5",
                                          *extra])

    assert headless.run(args("--batch", "--batch-max-requests", "4"), fast()) == 0
    assert [len(p.body["requests"]) for p in batch_posts(fake)] == [4, 2]
    assert "cis: 6 done, 0 failed" in capsys.readouterr().out
    for extra, message in (
            (("--batch-max-requests", "4"), "go with --batch"),
            (("--batch", "--batch-max-requests", "0"), "between 1 and 100,000"),
            (("--batch", "--batch-max-requests", "100001"), "between 1 and 100,000"),
            (("--batch", "--batch-max-mb", "300"), "between 2 and 256"),
    ):
        with pytest.raises(UserError, match=message):
            headless.run(args(*extra), fast())


def test_a_batch_size_limit_in_megabytes_is_kept(fake: fa.FakeAnthropic, tmp_path: Path,
                                                 rubrics: dict[str, Rubric]) -> None:
    from judge_tui.model.records import Item
    from tests.judge.conftest import cis_rows

    fake.max_batch_bytes = 1_000_000  # refuses anything over 1 MB, as an account with a lower limit would
    db = tmp_path / "mb.db"
    with Store(db) as store:
        store.ensure_rubric_version(rubrics["cis"])
        rows = cis_rows(ITEMS)
        for row in rows:  # long answers: about 250 KB a request, 1.5 MB in all
            row["source_code"] = (row["source_code"] + "\n") * (250_000 // len(row["source_code"]))
        store.add_items([Item(id=row.pop("id"), rubric="cis", fields=row) for row in rows])
    parsed = build_parser().parse_args(["judge", "--db", str(db), "--rubric", "cis", "--model", "claude-sonnet-5",
                                        "--batch", "--batch-max-mb", "2"])
    assert headless.run(parsed, fast()) == 0
    posts = batch_posts(fake)
    assert len(posts) >= 2
    assert all(p.size <= 0.9e6 for p in posts)  # 2 MB less the margin and headroom
    assert sum(len(p.body["requests"]) for p in posts) == ITEMS


def _list_calls(fake: fa.FakeAnthropic) -> int:
    return sum(1 for r in fake.requests if r.method == "GET" and r.path.split("?")[0] == "/v1/messages/batches")


def _killed_while_the_api_takes_its_batch(db: Path, fake: fa.FakeAnthropic, home: Path) -> None:
    """A `judge --batch` killed after the API took its batch, which the API does not list yet."""
    fake.batch_listed = threading.Event()
    fake.batch_hold = threading.Event()  # the API has the batch; its answer never reaches the process
    fake.batch_polls = 0
    first = _spawn(db, fake, home)
    try:
        wait_until(lambda: fake.batches, lambda: _why(first, "a batch sent"))
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=20)
    finally:
        if first.poll() is None:
            first.kill()
        fake.batch_hold.set()


@pytest.mark.slow
def test_a_batch_the_api_lists_late_is_waited_for_not_sent_again(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "late.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
    _killed_while_the_api_takes_its_batch(db, fake, hermetic_home)
    looked = _list_calls(fake)

    def list_it_once_looked_for() -> None:  # the API registers the batch only after the rerun first looked
        wait_until(lambda: _list_calls(fake) > looked + 1, "the rerun looking for the batch twice")
        present(fake.batch_listed).set()

    lister = threading.Thread(target=list_it_once_looked_for)
    lister.start()
    try:
        code = headless.run(build_parser().parse_args(["judge", "--db", str(db), "--rubric", "cis", "--model",
                                                       "claude-sonnet-5", "--batch"]), fast())
    finally:
        present(fake.batch_listed).set()
        lister.join()
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0, out
    assert ((f"judge: {ITEMS} requests were in a Message Batch being sent when judge-tui stopped, which the API does"
            " not list yet") in out)
    assert "so never paid twice" in out
    assert f"cis: {ITEMS} done, 0 failed" in out
    assert "items were sent again" not in out
    assert len(batch_posts(fake)) == 1
    assert fake.message_requests() == []  # paid once
    [batch_id] = fake.batches
    with Store(db) as store:
        rater = store.raters("judge")[0]["id"]
        assert_consistent(store, rater, ITEMS)
        assert {r.details["batch_id"] for r in store.iter_ratings(rater_ids=[rater])} == {batch_id}


@pytest.mark.slow
def test_a_plain_judge_sends_nothing_of_a_batch_the_api_does_not_list_yet(
        fake: fa.FakeAnthropic, tmp_path: Path, rubrics: dict[str, Rubric], hermetic_home: Path) -> None:
    db = tmp_path / "late-plain.db"
    with Store(db) as store:
        add_cis_items(store, rubrics["cis"], ITEMS)
    _killed_while_the_api_takes_its_batch(db, fake, hermetic_home)
    plain = _plain_judge(db, fake, hermetic_home)
    assert plain.returncode == 3, plain.stdout + plain.stderr
    assert "which the API does not list yet. Run the same command again after" in " ".join(plain.stdout.split())
    assert fake.message_requests() == []  # nothing of the batch sent one by one
    present(fake.batch_listed).set()  # the API lists it now
    plain = _plain_judge(db, fake, hermetic_home)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert f"cis: {ITEMS} done, 0 failed, 0 waiting" in plain.stdout
    assert "items were sent again" not in plain.stdout
    assert fake.message_requests() == []
    assert len(batch_posts(fake)) == 1
    with Store(db) as store:
        assert_consistent(store, store.raters("judge")[0]["id"], ITEMS)


def test_a_batch_being_sent_is_dated_by_its_sender_being_alive_not_by_who_takes_it_over(
        cis_store: Store, rubrics: dict[str, Rubric]) -> None:
    judge = make_judge(cis_store, rubrics["cis"])
    judge.queue.enqueue()
    jobs = judge.queue.claim(ITEMS, "gone")
    judge.queue.intend_batch("sending-old", jobs, "gone")
    _age_sending_batches(cis_store.path, seconds=3600)
    [before] = cis_store.open_judge_batches(judge.rater_id)
    assert judge.queue.take_batch(before, "new-owner")  # a later run takes the record over...
    [taken] = cis_store.open_judge_batches(judge.rater_id)
    assert (taken["owner"], taken["updated_at"]) == ("new-owner", before["updated_at"])  # ...its date stays
    judge.queue.touch_sending(["sending-old"])  # its sender's heartbeat moves it on
    [touched] = cis_store.open_judge_batches(judge.rater_id)
    assert touched["updated_at"] > before["updated_at"]
