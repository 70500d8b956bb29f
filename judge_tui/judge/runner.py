"""Run the judge over its queue: concurrently, politely, and without ever losing or repeating a judgment.

- At most N calls at once; the very first call goes alone so it writes the prompt cache, then the rest
  fan out and read it.
- 429 / 5xx / 529 / a dropped connection: the job is retried with exponential backoff and jitter, or after
  the retry-after the API asked for (a 429 or 529 pauses every call, not just the one). After max_attempts
  it fails, keeping the last error and any raw output.
- A refused key, a spend limit or another 4xx: the queue stops with the API's message; jobs stay queued.
- No network or no API key: the queue says it is offline, probes now and then, and resumes by itself.
- An answer that breaks the schema or the scale: a failed judgment that keeps the raw text.
- Another process holding the database (with `write_wait`, as in the app): the answers received are kept in
  memory and recorded once it lets go, so the screen never waits on the judge's writes.

Everything runs on one event loop thread, and the store is only touched from it (quick writes).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
import sqlite3
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from judge_tui.judge.backends import (
    AnswerError,
    Backend,
    BackendError,
    BatchBackend,
    FatalError,
    JudgeAnswer,
    JudgeRequest,
    OfflineError,
    RetryableError,
    Usage,
    has_batches,
    model_price,
)
from judge_tui.judge.batch_limits import BatchLimits
from judge_tui.judge.lease import LEASE_SECONDS, Lease
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.judge.queue import JudgeQueue
from judge_tui.judge.schema import Judgment, JudgmentError
from judge_tui.judge.token_confidence import verdict_confidence
from judge_tui.model.judge_backends import JUDGED_BY
from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from judge_tui.store.core import is_busy, is_full

_Outcome = tuple[JudgeRequest, "JudgeAnswer | BackendError", float]


def judge_rater_id(model: str, rubric_id: str, prompt_version: str) -> str:
    return f"judge:{model}:{rubric_id}@{prompt_version}"


@dataclass
class RunOptions:
    concurrency: int = 4
    max_attempts: int = 5
    backoff_base: float = 1.0  # seconds before the first retry (doubles each time, with jitter)
    backoff_cap: float = 60.0
    offline_probe: float = 15.0  # seconds between probes while offline
    max_jobs: int | None = None  # claim at most this many distinct jobs in this run
    warm_first: bool = True  # first call alone, so it writes the prompt cache
    keep_alive: bool = False  # when the queue is empty, wait for more instead of returning (the app)
    idle_poll: float = 1.0
    batch_poll: float = 30.0
    batch_limits: BatchLimits = field(default_factory=BatchLimits)  # what one Message Batch may hold
    lease_seconds: float = LEASE_SECONDS  # another judge re-queues our running jobs only after this long unheard
    # Seconds a write waits for another process before the run keeps its results and tries again later (the
    # app, whose screen shares the judge's thread); None: the store's usual wait, then the error.
    write_wait: float | None = None
    # Seconds the API is given to list a batch that a stopped process was sending, counted from when that process
    # was last alive: a batch the API took may appear in its list a while after, and its jobs are not sent again
    # before (a batch sent twice is paid twice).
    batch_grace: float = 600.0


@dataclass
class BatchProgress:
    """One Message Batch as the API last reported it."""

    requests: int
    status: str = "in_progress"
    succeeded: int = 0
    errored: int = 0
    canceled: int = 0
    expired: int = 0

    @property
    def finished(self) -> int:
        return self.succeeded + self.errored + self.canceled + self.expired


@dataclass
class RunState:
    """Where a run stands; handed to the progress callback after every change."""

    queued: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    done_now: int = 0  # in this run
    failed_now: int = 0
    offline: str = ""  # why we are waiting, while offline
    database_busy: bool = False  # results wait to be recorded: another process holds the database (write_wait)
    error: str = ""  # why the queue stopped, if it did
    calls: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    cost_unknown: bool = False
    first_usage: Usage | None = None  # the first call's usage: did it write the cache?
    batches: dict[str, BatchProgress] = field(default_factory=dict)  # this run's Message Batches, in sent order
    batches_elsewhere: int = 0  # open batches another live judge process polls (left to it)
    notice: str = ""  # something the user should know about the run that is not an error
    # Jobs of batches a stopped process was sending that the API does not list yet: held back until `unlisted_until`
    # (a time written for people, UTC), then sent again if the batch never appears.
    unlisted: int = 0
    unlisted_until: str = ""
    # At the end of a run, the running jobs no judge process is working on: waiting for the results of a
    # Message Batch that no live process polls (a `judge --batch` collects them)...
    left_in_batches: int = 0
    # ...and those in the hands of another live judge (a call in flight, a batch it polls): they land when it ends.
    left_elsewhere: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def total(self) -> int:
        return self.queued + self.running + self.done + self.failed


class Judge:
    """One rubric's judge on one backend: makes requests from jobs and ratings from answers."""

    def __init__(self, store: Store, rubric: Rubric, prompt: JudgePrompt, backend: Backend,
                 rater_id: str | None = None, *, both_orders: bool = False) -> None:
        self.store = store
        self.rubric = rubric
        # Pairs asked both ways round: odd repeats show the two responses swapped (position bias).
        self.both_orders = both_orders and rubric.asks_in_both_orders
        self.prompt = prompt
        self.backend = backend
        self.model = backend.model
        self.rubric_version_id = store.ensure_rubric_version(rubric)
        self.rater_id = rater_id or judge_rater_id(backend.model, rubric.id, prompt.version)
        store.ensure_rater(self.rater_id, "judge", model=backend.model, prompt_version=prompt.version)
        self.queue = JudgeQueue(store, self.rater_id, self.rubric_version_id, rubric.id)
        self.few_shot_marked: set[str] = set()  # examples this judge marked used in the store: marked once each
        self._schema = prompt.output.json_schema()
        self._temperature_key = f"judge.temperature_rejected:{self.model}"
        if hasattr(backend, "temperature_rejected") and store.get_meta(self._temperature_key) == "1":
            backend.temperature_rejected = True  # learnt in an earlier run: do not ask again

    # ---- requests

    def request(self, job: Mapping[str, Any]) -> JudgeRequest | None:
        item = self.store.item(job["item_id"])
        if item is None:
            return None
        return JudgeRequest(job_id=job["id"], item_id=item.id, repeat=job["repeat"], rubric_id=self.rubric.id,
                            prompt=self.prompt.render(item, swapped=self.swapped(job)), schema=self._schema,
                            max_tokens=self.prompt.template.max_tokens)

    def swapped(self, job: Mapping[str, Any]) -> bool:
        return self.both_orders and job["repeat"] % 2 == 1

    def cache_note(self) -> str:
        """A warning when the stable prefix is too short for this model to cache, or '' if it should cache."""
        chars = self.prompt.stable_prefix_chars()
        estimate = chars // 4
        price = model_price(self.model)
        if price is None or price.min_cache_tokens is None:
            return (f"{self.rubric.id}: the stable prompt prefix is about {estimate:,} tokens; the minimum cacheable"
                    f" length of {self.model} is not in judge-tui's table, so the first call's cache counters"
                    " will tell whether caching works.")
        if estimate < price.min_cache_tokens:
            return (f"{self.rubric.id}: the stable prompt prefix is about {estimate:,} tokens, below the"
                    f" {price.min_cache_tokens:,}-token minimum that {self.model} caches: prompt caching will"
                    " not apply and every call pays for the full prompt.")
        return ""

    # ---- answers

    def record(self, job: Mapping[str, Any], request: JudgeRequest | None, answer: JudgeAnswer,
               seconds: float, batch_id: str | None = None) -> bool:
        """Parse strictly and store: a rating and 'done', or 'failed' with the raw text. True if done."""
        if getattr(self.backend, "temperature_rejected", False) and self.store.get_meta(self._temperature_key) != "1":
            self.store.set_meta(self._temperature_key, "1")
        few_shot = list(request.prompt.few_shot_ids) if request else [
            ex.item.id for ex in self.prompt.examples_for(job["item_id"])]
        try:
            judgment = self.prompt.output.parse(answer.raw_text)
        except JudgmentError as exc:
            self.queue.failed(job, f"{exc.kind}: {exc}", answer.raw_text, answer.call_record(f"failed:{exc.kind}"))
            return False
        item = self.store.item(job["item_id"])
        said = self.rubric.swapped_scores(judgment.scores) if self.swapped(job) else judgment.scores
        scores = {**said, **self.rubric.code_scores(item.fields if item else {})}
        details = {
            "model": answer.model, "prompt_version": self.prompt.version, "few_shot_ids": few_shot,
            "sampling": answer.sampling, "backend": self.backend.name,
            "tokens": {"input": answer.usage.input_tokens, "output": answer.usage.output_tokens,
                       "cache_read": answer.usage.cache_read_tokens, "cache_write": answer.usage.cache_write_tokens},
            "cost_usd": answer.cost_usd, "raw_text": answer.raw_text,
            "extras": {k: v for k, v in judgment.extras.items() if k not in ("reasoning", "critique")},
            **self.confidence_details(judgment, answer),
        }
        if batch_id:
            details["batch_id"] = batch_id
        if self.swapped(job):  # asked with the pair swapped; the scores are read back onto the pair as stored
            details["order"] = "swapped"
        rating = Rating(item_id=job["item_id"], rater_id=self.rater_id, rubric_version_id=self.rubric_version_id,
                        scores=scores, overall=self.rubric.overall_score(scores), verdict=self.rubric.verdict(scores),
                        notes=judgment.notes, seconds=round(seconds, 3), repeat=job["repeat"],
                        source=JUDGED_BY + self.backend.name, details=details)
        self.queue.done(job, rating, answer.call_record("done"))
        new = [i for i in few_shot if i not in self.few_shot_marked]
        if new:
            self.store.mark_few_shot_used(new)
            self.few_shot_marked.update(new)
        return True

    def confidence_details(self, judgment: Judgment, answer: JudgeAnswer) -> dict[str, Any]:
        """What a judgment keeps of the judge's confidence: `confidence` (`stated`, the answer's own; `logprob`,
        from its tokens, where the backend gave them) and `confidence_notes`, why one is missing."""
        confidence: dict[str, float] = {}
        notes: list[str] = []
        if judgment.confidence is not None:
            confidence["stated"] = judgment.confidence
        else:
            notes.append(judgment.confidence_note)
        if answer.token_logprobs is not None:
            found, why = verdict_confidence(answer.raw_text, answer.token_logprobs, self.prompt.output.score_paths())
            if found is None:
                notes.append(why)
            else:
                confidence["logprob"] = found
        return {"confidence": confidence, **({"confidence_notes": notes} if notes else {})}


class _Base:
    POLLS_BATCHES = False  # does this runner send and poll Message Batches?
    RESULTS_PER_TRANSACTION = 1000  # one disk sync for many judgments
    CLOCK_SKEW = timedelta(minutes=10)  # how far this machine's clock and the API's may disagree

    def __init__(self, judge: Judge, options: RunOptions | None = None,
                 on_progress: Callable[[RunState], None] | None = None) -> None:
        self.judge = judge
        self.queue = judge.queue
        self.options = options or RunOptions()
        self.on_progress = on_progress
        self.state = RunState()
        self._stop_requested = False
        self._claimed: set[int] = set()
        self.lease = Lease(judge.store, seconds=self.options.lease_seconds)
        self._heartbeat: asyncio.Task[None] | None = None
        self._sending: set[str] = set()  # tokens of the batches this process is uploading now

    @property
    def _batch_backend(self) -> BatchBackend:
        """The backend, for the steps that send or read batches (only reached with one that has them)."""
        backend = self.judge.backend
        if not has_batches(backend):
            raise ValueError(f"the {backend.name} backend has no batch mode")
        return backend

    def stop(self) -> None:
        """Finish the calls in flight, start no more."""
        self._stop_requested = True

    @property
    def stopping(self) -> bool:
        return self._stop_requested or bool(self.state.error)

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.state)

    # ---- writes while another process may hold the database (RunOptions.write_wait)

    def _writing(self) -> contextlib.AbstractContextManager[Any]:
        wait = self.options.write_wait
        return contextlib.nullcontext() if wait is None else self.judge.store.waiting_at_most(wait)

    def _may_wait(self, exc: sqlite3.OperationalError) -> bool:
        """Whether this write's failure is kept for later: the database is held (or the disk full) and the run
        was asked to keep going meanwhile."""
        return self.options.write_wait is not None and (is_busy(exc) or is_full(exc))

    async def _wait_for_database(self) -> None:
        self.state.database_busy = True
        self._report()
        await asyncio.sleep(self.options.idle_poll)

    # ---- the lease: running jobs belong to this process while it lives

    def _start(self) -> None:
        """Take part: register this judge, take back the jobs of judges that are gone, keep a heartbeat."""
        with self._writing():
            self.lease.register()
            self.queue.requeue_orphaned(self.lease.live_owners())
        self._load_counts()
        self._report()
        self._heartbeat = asyncio.create_task(self._beat())

    async def _finish(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
        try:
            with self._writing():
                self.lease.release()
                self._count_left()
        except sqlite3.OperationalError as exc:
            if not self._may_wait(exc):
                raise  # held: the next judge finds this process gone and takes its jobs back
        self._load_counts()  # the queue as it is, with the work of any judge beside this one

    def _count_left(self) -> None:
        """The running jobs this run leaves: taken back if their judge is gone, else counted by who has them."""
        live = set(self.lease.live_owners())  # this process no longer among them
        self.queue.requeue_orphaned(live)
        self.state.left_in_batches = self.state.left_elsewhere = 0
        for row in self.queue.running_by_owner():
            if row["owner"] in live:
                self.state.left_elsewhere += row["jobs"]
            elif row["in_batch"]:
                self.state.left_in_batches += row["jobs"]
        self.state.left_in_batches = max(0, self.state.left_in_batches - self.state.unlisted)  # said apart

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.lease.beat_every)
            try:
                with self._writing():
                    self.lease.beat()
                    if self._sending:
                        self.queue.touch_sending(list(self._sending))
                    taken_back = self.queue.requeue_orphaned(self.lease.live_owners())
            except sqlite3.OperationalError:
                continue  # the database is busy for now: the next beat comes well within the lease
            self._load_counts()  # the queue as it is, with the work of any judge beside this one
            self._report()
            if taken_back:  # a judge beside this one died: its jobs are ours to do
                self._wake()

    def _wake(self) -> None:
        """New work appeared in the queue (nothing to do for runners that look at it anyway)."""

    def _load_counts(self) -> None:
        counts = self.queue.counts()
        self.state.queued, self.state.running = counts["queued"], counts["running"]
        self.state.done, self.state.failed = counts["done"], counts["failed"]

    def _room(self) -> int | None:
        if self.options.max_jobs is None:
            return None
        return max(0, self.options.max_jobs - len(self._claimed))

    def _claim(self, limit: int) -> list[dict[str, Any]]:
        room = self._room()
        if room is not None:
            limit = min(limit, room)
        jobs = self.queue.claim(limit, self.lease.owner) if limit > 0 else []
        if self.options.max_jobs is not None:
            self._claimed.update(job["id"] for job in jobs)
        self.state.queued -= len(jobs)
        self.state.running += len(jobs)
        return jobs

    def _count_usage(self, answer: JudgeAnswer) -> None:
        self.state.calls += 1
        usage = self.state.usage
        usage.input_tokens += answer.usage.input_tokens
        usage.output_tokens += answer.usage.output_tokens
        usage.cache_read_tokens += answer.usage.cache_read_tokens
        usage.cache_write_tokens += answer.usage.cache_write_tokens
        if answer.cost_usd is None:
            self.state.cost_unknown = True
        else:
            self.state.cost_usd += answer.cost_usd
        if self.state.first_usage is None:
            self.state.first_usage = Usage(**vars(answer.usage))

    def _delay(self, attempts: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after + random.uniform(0, 0.1 * self.options.backoff_base)
        exponential = min(self.options.backoff_cap, self.options.backoff_base * 2 ** max(0, attempts - 1))
        return float(exponential * random.uniform(0.5, 1.0))

    def _record(self, job: Mapping[str, Any], request: JudgeRequest | None, answer: JudgeAnswer, seconds: float,
                batch_id: str | None = None) -> None:
        self._count_usage(answer)
        self.state.running -= 1
        if self.judge.record(job, request, answer, seconds, batch_id):
            self.state.done += 1
            self.state.done_now += 1
        else:
            self.state.failed += 1
            self.state.failed_now += 1

    def _fail(self, job: Mapping[str, Any], error: str, raw: str = "", answer: JudgeAnswer | None = None) -> None:
        if answer is not None:
            self._count_usage(answer)
        self.queue.failed(job, error, raw, answer.call_record("failed") if answer else None)
        self.state.running -= 1
        self.state.failed += 1
        self.state.failed_now += 1

    def _retry(self, job: Mapping[str, Any], exc: RetryableError, delay: float | None = None) -> float:
        """Queue the job again after `delay` (by default a backoff), or fail it once it has used its attempts.

        Returns the delay.
        """
        attempts = int(job["attempts"]) + 1
        self.state.running -= 1
        if attempts >= self.options.max_attempts:
            self.queue.failed(job, f"gave up after {attempts} attempts; last error: {exc}", exc.raw)
            self.state.failed += 1
            self.state.failed_now += 1
            return 0.0
        if delay is None:
            delay = self._delay(attempts, exc.retry_after)
        self.queue.retry(job, str(exc), delay, exc.raw)
        self.state.queued += 1
        return delay

    def _release(self, jobs: Sequence[Mapping[str, Any]], note: str = "") -> None:
        if jobs:
            self.queue.release(jobs, note)
            self.state.running -= len(jobs)
            self.state.queued += len(jobs)

    # ---- Message Batches a stopped process left behind

    async def _wait_out(self, exc: Exception) -> bool:
        """Sleep through a passing problem; False when the queue must stop."""
        if isinstance(exc, FatalError):
            self.state.error = str(exc)
            return False
        if isinstance(exc, OfflineError):
            self.state.offline = str(exc)
            self._report()
            await asyncio.sleep(self.options.offline_probe)
        else:
            await asyncio.sleep(self.options.batch_poll)
        return not self._stop_requested

    def _batches_to_poll(self) -> list[dict[str, Any]]:
        """The open batches this process polls: its own, and those of judge processes that are gone (taken
        over). Those of another live process are left to it and counted in state.batches_elsewhere."""
        live = set(self.lease.live_owners())
        mine: list[dict[str, Any]] = []
        elsewhere = 0
        for batch in self.queue.open_batches():
            owner = batch["owner"]
            if owner == self.lease.owner:
                mine.append(batch)
            elif owner in live:
                elsewhere += 1
            elif self.queue.take_batch(batch, self.lease.owner):
                mine.append({**batch, "owner": self.lease.owner})
        self.state.batches_elsewhere = elsewhere
        return mine

    async def _find_interrupted_sends(self) -> bool:
        """Batches a stopped process was sending: adopted if the API has them; else, once the API has had
        `batch_grace` since that process was last alive to list them, their jobs are queued again (saying so).
        Until then their jobs stay with the batch, sent nowhere. False if the queue must stop (the list could not
        be read: nothing is sent meanwhile)."""
        self.state.unlisted, self.state.unlisted_until = 0, ""
        for batch in self._batches_to_poll():
            if batch["status"] != "sending" or batch["id"] in self._sending:
                continue
            since = datetime.fromisoformat(batch["created_at"]) - self.CLOCK_SKEW
            while True:
                try:
                    listed = await self._batch_backend.batches_since(since)
                    break
                except (OfflineError, RetryableError, FatalError) as exc:
                    if not await self._wait_out(exc):
                        return False
            known = self.judge.store.judge_batch_ids()
            found = [batch_id for batch_id, requests in listed
                     if requests == batch["request_count"] and batch_id not in known]
            if len(found) == 1:
                self.queue.batch_sent(batch["id"], found[0])
                if self.POLLS_BATCHES:
                    self.state.batches[found[0]] = BatchProgress(requests=batch["request_count"])
                continue
            requests = f"a batch of {batch['request_count']:,} requests was being sent when judge-tui stopped"
            last_alive = datetime.fromisoformat(batch["updated_at"])
            due = last_alive + timedelta(seconds=self.options.batch_grace)
            if not found and datetime.now(UTC) < due:
                self.state.unlisted += int(batch["request_count"])
                self.state.unlisted_until = max(self.state.unlisted_until, f"{due:%Y-%m-%d %H:%M} UTC")
                continue
            jobs = self.queue.batch_not_sent(batch["id"])
            self.queue.release([{"id": job_id} for job_id in jobs], "its batch may not have reached the API;"
                               " queued again")
            if found:
                self.state.notice = (f"{requests}; {len(found)} batches of that size were created since, so it"
                                     " could not be told which was ours: its items were sent again")
            else:
                self.state.notice = (f"{requests} (last seen at {last_alive:%Y-%m-%d %H:%M} UTC), and the API"
                                     f" still did not list it at {datetime.now(UTC):%H:%M} UTC: it never reached the"
                                     " API, so its items were sent again")
        self._load_counts()
        self._report()
        return True

    async def read_results(self, batch_id: str, *, wait: bool = True) -> bool:
        """Record an ended batch's results. False if the queue must stop. Without wait, a passing problem leaves
        the batch open for the next look instead of being waited out."""
        chunk: list[tuple[str, JudgeAnswer | Exception]] = []
        try:
            async for custom_id, result in self._batch_backend.batch_results(batch_id):
                chunk.append((custom_id, result))
                if len(chunk) >= self.RESULTS_PER_TRANSACTION:
                    self._apply_all(batch_id, chunk)
                    chunk = []
        except (OfflineError, RetryableError, FatalError) as exc:
            # Results not fully read: the batch stays open and is read again (recorded jobs are skipped).
            self._apply_all(batch_id, chunk)
            return await self._wait_out(exc) if wait else True
        self._apply_all(batch_id, chunk)
        left = self.queue.finish_batch(batch_id)
        self.state.running -= left
        self.state.queued += left
        self._report()
        return True

    def _apply_all(self, batch_id: str, results: list[tuple[str, JudgeAnswer | Exception]]) -> None:
        with self.judge.store.transaction():
            for custom_id, result in results:
                self._apply_result(batch_id, custom_id, result)
        self._report()

    def _apply_result(self, batch_id: str, custom_id: str, result: JudgeAnswer | Exception) -> None:
        try:
            job_id = int(custom_id.removeprefix("job-"))
        except ValueError:
            return
        job = self.queue.batch_job(batch_id, job_id)
        if job is None:  # already recorded (a restart re-reads the results) or not ours
            return
        if isinstance(result, JudgeAnswer):
            self._record(job, None, result, 0.0, batch_id)
        elif isinstance(result, RetryableError):
            # Due at once, with no jitter: the retried requests of a batch all go into the next batch together
            # (a jittered time each would split them over several batches, each with its own wait).
            self._retry(job, result, delay=0.0)
        elif isinstance(result, AnswerError):
            self._fail(job, str(result), result.raw, result.answer)
        else:
            self._fail(job, f"unexpected batch result: {result}")

    async def _collect_ended(self) -> None:
        """Read once the results of this judge's batches that have ended (they are paid for); a batch still being
        processed is left for a later run. For a runner that does not poll batches (a plain `judge` after a
        `judge --batch` was stopped)."""
        for batch in self._batches_to_poll():
            if batch["status"] == "sending":
                continue
            try:
                status, _counts = await self._batch_backend.batch_status(batch["id"])
            except (OfflineError, RetryableError, FatalError):
                continue  # asked again by the next run; the jobs wait with their batch meanwhile
            if status == "ended":
                await self.read_results(batch["id"], wait=False)
        for batch in self.queue.open_batches():  # not polled here: free for any `judge --batch` to take over
            if batch["owner"] == self.lease.owner:
                self.queue.give_back_batch(batch, self.lease.owner)

    def _seconds_until_retry(self) -> float | None:
        due = self.queue.next_retry_at()
        if due is None:
            return None
        return max(0.0, (due - datetime.now(UTC)).total_seconds())


class JudgeRunner(_Base):
    """Judges queued jobs through the Messages API (or a local backend), N at a time."""

    def __init__(self, judge: Judge, options: RunOptions | None = None,
                 on_progress: Callable[[RunState], None] | None = None) -> None:
        super().__init__(judge, options, on_progress)
        self.warm = not self.options.warm_first
        self.paused_until = 0.0
        self.next_probe = 0.0
        self._wake_up = asyncio.Event()

    def poke(self) -> None:
        """New jobs were queued: look at the queue now rather than at the next idle poll."""
        self._wake_up.set()

    def _wake(self) -> None:
        self.poke()

    def _go_offline(self, reason: str) -> None:
        if not self.state.offline:
            self.state.offline = reason
        self.next_probe = time.monotonic() + self.options.offline_probe

    def _fill(self, inflight: dict[asyncio.Task[_Outcome], dict[str, Any]]) -> None:
        if self.stopping:
            return
        now = time.monotonic()
        if now < self.paused_until or (self.state.offline and now < self.next_probe):
            return
        # One call at a time until the first answer has written the cache, and while probing offline.
        limit = self.options.concurrency if self.warm and not self.state.offline else 1
        slots = limit - len(inflight)
        if slots <= 0:
            return
        for job in self._claim(slots):
            request = self.judge.request(job)
            if request is None:
                self._fail(job, f"item {job['item_id']!r} is no longer in the database")
                continue
            inflight[asyncio.create_task(self._call(job, request))] = job

    def _idle_wait(self) -> float | None:
        """How long to sleep when nothing is in flight; None when the run is over."""
        if self.stopping:
            return None
        room = self._room()
        if room is not None and room <= 0:
            return None
        now = time.monotonic()
        # While paused, and offline until the next probe, _fill sends nothing: wake when it can again.
        held = max(self.paused_until - now, self.next_probe - now if self.state.offline else 0.0)
        if held > 0:
            return max(0.001, held)
        # A retry that fell due after _fill looked counts too (0 s): the run is not over while it waits.
        retry = self._seconds_until_retry()
        if retry is not None:
            return max(0.001, retry)
        return self.options.idle_poll if self.options.keep_alive else None

    async def run(self) -> RunState:
        store = self.judge.store
        while True:
            try:
                self._start()
                break
            except sqlite3.OperationalError as exc:
                if not self._may_wait(exc):
                    raise
                await self._wait_for_database()
        inflight: dict[asyncio.Task[_Outcome], dict[str, Any]] = {}
        finished: list[tuple[dict[str, Any], _Outcome]] = []  # answers not recorded yet (the database was held)
        try:
            # A `judge --batch` that was stopped leaves jobs running in its batches: the API is asked whether it
            # has a batch that was being sent (else its jobs are judged here) and for the results of those that
            # have ended; the jobs of a batch still being processed wait for it.
            if has_batches(self.judge.backend):
                while True:  # in the app, another program may hold the database meanwhile: wait, never crash
                    try:
                        with self._writing():
                            go_on = await self._find_interrupted_sends()
                            if go_on:
                                await self._collect_ended()
                        break
                    except sqlite3.OperationalError as exc:
                        if not self._may_wait(exc):
                            raise
                        await self._wait_for_database()
                if not go_on:
                    return self.state
            while True:
                if not inflight and not finished:
                    self._load_counts()  # another judge may have done part of the queue meanwhile
                    try:
                        with self._writing():
                            self._fill(inflight)
                    except sqlite3.OperationalError as exc:
                        if not self._may_wait(exc):
                            raise
                        await self._wait_for_database()
                        continue
                    self.state.database_busy = False
                    self._report()
                    if not inflight:
                        wait = self._idle_wait()
                        if wait is None:
                            break
                        self._wake_up.clear()
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self._wake_up.wait(), timeout=wait)
                        continue
                if inflight:
                    done, _ = await asyncio.wait(inflight, timeout=self.options.idle_poll,
                                                 return_when=asyncio.FIRST_COMPLETED)
                    finished += [(inflight.pop(task), task.result()) for task in done]
                # Everything that finished meanwhile, and the next claims, in one transaction: one disk
                # sync for many judgments. Each job still changes state together with its rating.
                before, kept = set(inflight), self._memory()
                try:
                    with self._writing(), store.transaction():
                        for job, outcome in finished:
                            self._apply(job, *outcome)
                        self._fill(inflight)
                except sqlite3.OperationalError as exc:
                    if not self._may_wait(exc):
                        raise
                    for task in set(inflight) - before:  # claims rolled back: calls never started
                        task.cancel()
                        del inflight[task]
                    self._restore(kept)
                    await self._wait_for_database()
                    continue
                finished.clear()
                self.state.database_busy = False
                self._report()
        finally:
            for task in inflight:
                task.cancel()
            if inflight:
                await asyncio.gather(*inflight, return_exceptions=True)
            try:
                with self._writing():
                    self._release(list(inflight.values()), "interrupted")
                    # Answers never recorded (the database still held): their jobs go back to the queue.
                    self._release([job for job, _ in finished], "interrupted")
            except sqlite3.OperationalError as exc:
                if not self._may_wait(exc):
                    raise  # held: the next judge finds this process gone and takes its jobs back
            await self._finish()
            self._report()
        return self.state

    def _memory(self) -> tuple[RunState, bool, float, set[str]]:
        """What recording answers changes in memory, kept to be put back when the transaction is rolled back."""
        return copy.deepcopy(self.state), self.warm, self.paused_until, set(self.judge.few_shot_marked)

    def _restore(self, kept: tuple[RunState, bool, float, set[str]]) -> None:
        state, self.warm, self.paused_until, marked = kept
        self.state = state
        self.judge.few_shot_marked = marked  # the judge's own record of it, rolled back with the rest

    async def _call(self, job: dict[str, Any], request: JudgeRequest) -> _Outcome:
        """The network part only; what to make of the outcome is decided by _apply, on the loop's turn."""
        started = time.monotonic()
        try:
            answer: JudgeAnswer | BackendError = await self.judge.backend.judge(request)
        except BackendError as exc:
            answer = exc
        return request, answer, time.monotonic() - started

    def _apply(self, job: dict[str, Any], request: JudgeRequest, outcome: JudgeAnswer | BackendError,
               seconds: float) -> None:
        if isinstance(outcome, JudgeAnswer):
            self.warm = True
            self.state.offline = ""
            self._record(job, request, outcome, seconds)
        elif isinstance(outcome, OfflineError):
            self._release([job], f"waiting: {outcome}")
            self._go_offline(str(outcome))
        elif isinstance(outcome, RetryableError):
            delay = self._retry(job, outcome)
            if outcome.throttle:
                self.paused_until = max(self.paused_until, time.monotonic() + delay)
        elif isinstance(outcome, FatalError):
            self._release([job], f"stopped: {outcome}")
            self.state.error = str(outcome)
        else:  # AnswerError: the call worked, the answer is unusable
            self.warm = True
            self._fail(job, str(outcome), outcome.raw, outcome.answer)


class BatchRunner(_Base):
    """Judges queued jobs through the Message Batches API: half price, results within 24 hours.

    The queue is cut into batches the API accepts (judge_tui.judge.batch_limits), sent side by side and
    polled together. A batch's id is stored with its jobs as soon as the API accepts it, so a restart picks
    up polling where it left off; results are matched to jobs by custom_id, in whatever order they arrive.

    Before a batch is sent it is recorded as 'sending' with its jobs: a process killed while the API takes it
    (a large batch uploads for a while) leaves that record behind, and the next run looks for the batch among
    the account's recent ones (created since, with as many requests, not known here) before sending anything
    again, and gives the API `batch_grace` from when that process was last alive to list it. Each batch is
    polled by one process, its owner (judge/lease.py); a second `judge --batch` leaves a live owner's batches
    alone and takes over those of an owner that is gone.
    """

    POLLS_BATCHES = True
    CLAIM_PAGE = 1000

    def __init__(self, judge: Judge, options: RunOptions | None = None,
                 on_progress: Callable[[RunState], None] | None = None) -> None:
        super().__init__(judge, options, on_progress)
        if not has_batches(judge.backend):
            raise ValueError(f"the {judge.backend.name} backend has no batch mode")
        # Claimed jobs with their request and its size, not yet in a batch (they did not fit in the last one).
        self._unsent: list[tuple[dict[str, Any], JudgeRequest, int]] = []

    async def run(self) -> RunState:
        self._start()
        for batch in self._batches_to_poll():  # sent before a restart: polled, never sent again
            if batch["status"] != "sending":
                self.state.batches[batch["id"]] = BatchProgress(requests=batch["request_count"])
        try:
            while not self.stopping:
                if not await self._find_interrupted_sends():
                    break
                refused = await self._send()
                batches = self._batches_to_poll()
                if batches:
                    if not await self._poll(batches):
                        break
                    continue
                if refused is not None:  # nothing to wait for but the API: wait, then send again
                    if not await self._wait_out(refused):
                        break
                    continue
                wait = self._seconds_until_retry()
                room = self._room()
                if wait is None or (room is not None and room <= 0):
                    break
                await asyncio.sleep(max(0.001, wait))
        finally:
            self._release([job for job, _, _ in self._unsent], "interrupted before it was sent")
            self._unsent = []
            await self._finish()
            self._report()
        return self.state

    # ---- sending

    def _take(self) -> None:
        """Claim jobs, a page at a time, until the unsent ones fill a batch; make their requests, measured as
        they will be sent. (A page at a time: no more jobs wait in memory than one batch needs.)"""
        limits, backend = self.options.batch_limits, self._batch_backend
        while (len(self._unsent) < limits.max_requests
               and limits.body_bytes([size for _, _, size in self._unsent]) <= limits.budget):
            jobs = self._claim(min(self.CLAIM_PAGE, limits.max_requests - len(self._unsent)))
            if not jobs:
                return
            for job in jobs:
                request = self.judge.request(job)
                if request is None:
                    self._fail(job, f"item {job['item_id']!r} is no longer in the database")
                else:
                    self._unsent.append((job, request, backend.batch_entry_bytes(request)))

    async def _send(self) -> BackendError | None:
        """Send the due jobs in as many batches as they need; the passing error that held one back, if any."""
        limits = self.options.batch_limits
        while not self.stopping:
            self._take()
            if not self._unsent:
                return None
            count = limits.fitting([size for _, _, size in self._unsent])
            if count == 0:  # one request alone is over the limit: it can never go in a batch
                job, _, size = self._unsent.pop(0)
                self._fail(job, limits.too_large(size))
                continue
            # Out of _unsent while it is sent: if the run is stopped meanwhile, its jobs stay with the 'sending'
            # record (for the next run to look for) instead of being released and sent a second time.
            batch, self._unsent = self._unsent[:count], self._unsent[count:]
            jobs = [job for job, _, _ in batch]
            token = f"sending-{uuid.uuid4().hex}"
            self.queue.intend_batch(token, jobs, self.lease.owner)
            self._sending.add(token)
            try:
                batch_id = await self._batch_backend.create_batch([request for _, request, _ in batch])
            except FatalError as exc:
                self.queue.batch_not_sent(token)
                self.state.error = str(exc)
                self._release([*jobs, *(job for job, _, _ in self._unsent)], f"not sent: {exc}")
                self._unsent = []
                return None
            except (OfflineError, RetryableError) as exc:
                self.queue.batch_not_sent(token)
                self._unsent = batch + self._unsent
                return exc  # the jobs stay claimed; sent once the API takes batches again
            finally:
                self._sending.discard(token)
            self.queue.batch_sent(token, batch_id)
            self.state.offline = ""
            self.state.batches[batch_id] = BatchProgress(requests=len(jobs))
            self._report()
        return None

    # ---- collecting

    async def _poll(self, batches: Sequence[Mapping[str, Any]]) -> bool:
        """Look at every open batch once and read the results of those that ended; sleep if some are still
        processing. False if the queue must stop."""
        still_open = False
        for batch in batches:
            if batch["status"] == "sending":
                still_open = True  # not listed by the API yet: looked for again by _find_interrupted_sends
                continue
            batch_id = batch["id"]
            try:
                status, counts = await self._batch_backend.batch_status(batch_id)
            except (OfflineError, RetryableError, FatalError) as exc:
                return await self._wait_out(exc)
            self.state.offline = ""
            progress = self.state.batches.setdefault(batch_id, BatchProgress(requests=batch["request_count"]))
            progress.status = status
            for name in ("succeeded", "errored", "canceled", "expired"):
                setattr(progress, name, int(counts.get(name, 0)))
            self._report()
            if status != "ended":
                still_open = True
            elif not await self.read_results(batch_id):
                return False
        if still_open:
            if self._stop_requested:
                return False
            await asyncio.sleep(self.options.batch_poll)
        return True
