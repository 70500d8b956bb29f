"""`judge-tui judge`: judge a whole dataset from the command line, with a progress bar, resumable.

Every judgment is committed as it arrives, so Ctrl-C or a kill loses at most the calls in flight; running
the same command again picks up the queue where it stopped and judges nothing twice.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from judge_tui.cli.commands import open_store
from judge_tui.formats.numbers import (
    NO_PRICE,
    decimal_text,
    duration_text,
    plural,
    share_text,
    short_text,
    word_for,
)
from judge_tui.formats.terminal import message_console
from judge_tui.judge.app_backend import concurrency_for, described, kind_of, missing_key, option_owner
from judge_tui.judge.app_backend import make_backend as build_backend
from judge_tui.judge.backends import Backend, Usage, backend_kinds, cost_usd, model_price
from judge_tui.judge.batch_limits import MAX_BYTES, MAX_REQUESTS, BatchLimits
from judge_tui.judge.failures import failures_command, grouped_lines
from judge_tui.judge.history import parse_items, require_recorded
from judge_tui.judge.prompts import JudgePrompt, PromptError
from judge_tui.judge.runner import (
    BatchProgress,
    BatchRunner,
    Judge,
    JudgeRunner,
    RunOptions,
    RunState,
    judge_rater_id,
)
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import DEFAULT_BACKEND, BackendRequest
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings, load_settings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric


def make_backend(args: argparse.Namespace, settings: Settings) -> Backend:
    """The backend --backend names, from its own options (an option of another backend is a mistake said so)."""
    name = getattr(args, "backend", None) or DEFAULT_BACKEND
    for dest, value in vars(args).items():
        owner = option_owner(dest)
        if value and owner is not None and owner.name != name:
            flag = next(option.flag for option in owner.options if option.dest == dest)
            raise UserError(f"{flag} goes with --backend {owner.name}")
    options = {option.dest: getattr(args, option.dest, None) for option in backend_kinds()[name].options}
    return build_backend(name, BackendRequest(settings, model=getattr(args, "model", None), options=options))


def _rubrics(store: Store, args: argparse.Namespace) -> list[Rubric]:
    """The rubric asked for; every rubric with items for `--rubric all`; the only one if there is one."""
    if args.rubric and args.rubric != "all":
        return [resolve_rubric(args.rubric, store)]
    in_use = store.rubrics_in_use()
    if not in_use:
        raise UserError("there are no items to judge in this database: import some first"
                        " (judge-tui import FILE --rubric ID)")
    if len(in_use) > 1 and args.rubric != "all":
        listed = ", ".join(f"{clean(rubric_id)} ({count:,} items)" for rubric_id, count in in_use)
        raise UserError(f"this database holds items of {len(in_use)} rubrics: {listed}. Say which to judge:"
                        f" --rubric {clean(in_use[0][0])}, or --rubric all for every one")
    return [resolve_rubric(rubric_id, store) for rubric_id, _count in in_use]


# --------------------------------------------------------------------------- what a run will do


@dataclass
class _Plan:
    rubric: Rubric
    prompt: JudgePrompt
    calls: int  # judgments this run would make (before any retry)


def _plan(store: Store, rubric: Rubric, model: str, args: argparse.Namespace) -> _Plan:
    """What a run of this rubric would judge, read without writing anything (for --dry-run and the estimate)."""
    try:
        prompt = JudgePrompt.for_rubric(rubric, store)
    except PromptError as exc:
        raise UserError(str(exc)) from None
    rater_id = judge_rater_id(model, rubric.id, prompt.version)
    known = store.rubric_version_by_hash(rubric.content_hash)
    counts = store.judge_job_counts(rater_id)
    missing = store.count_missing_judge_jobs(rater_id, known["id"] if known else None, rubric.id, split=args.split,
                                             repeats=args.repeat, limit=args.limit)
    pending = counts["queued"] + counts["running"] + missing + (counts["failed"] if args.retry_failed else 0)
    return _Plan(rubric, prompt, min(pending, args.limit * args.repeat) if args.limit else pending)


def _estimate(store: Store, plan: _Plan, model: str, args: argparse.Namespace) -> str:
    """'about N calls, about $X at list prices', from the prompts' length (about 4 characters a token) and the
    answers' length in earlier calls to this model (or, before any, the answer's token limit)."""
    calls = plan.calls
    head = f"{plan.rubric.id}: about {plural(calls, 'call', grouped=True)} to {model}"
    price = model_price(model)
    if price is None:
        return f"{head}; judge-tui has no list price for {model}, so no cost estimate"
    sample = list(itertools.islice(store.iter_items(plan.rubric.id, args.split), 50))
    prefix = plan.prompt.stable_prefix_chars() // 4
    item = sum(len(plan.prompt.render(i).user) for i in sample) // max(1, len(sample)) // 4
    # The first call writes the stable prefix to the cache and the others read it, where the model caches it.
    cached = not args.batch and price.min_cache_tokens is not None and prefix >= price.min_cache_tokens
    batch = bool(args.batch)
    prompt = Usage(input_tokens=calls * item + (0 if cached else calls * prefix),
                   cache_write_tokens=prefix if cached else 0, cache_read_tokens=(calls - 1) * prefix if cached else 0)
    input_cost = cost_usd(model, prompt, batch=batch) or 0.0
    seen = store.mean_judge_output_tokens(model)
    limit = plan.prompt.template.max_tokens
    output_cost = cost_usd(model, Usage(output_tokens=calls * round(seen or limit)), batch=batch) or 0.0
    tokens = f"about {prompt.total_input:,} input tokens"
    half = "; batch: half price" if batch else ""
    if seen is not None:
        return (f"{head}, about {_dollars(input_cost + output_cost)} at list prices ({tokens}, and "
                f"{decimal_text(seen, 0, grouped=True)} output"
                f" tokens per answer as in earlier calls{half})")
    return (f"{head}, about {_dollars(input_cost)} at list prices for the input ({tokens}{half}), plus at most"
            f" {_dollars(output_cost)} for the output (at the {limit:,}-token limit of each answer)")


def _dollars(value: float) -> str:
    return f"${decimal_text(value, 2, grouped=True)}" if value >= 0.01 else f"${decimal_text(value, 4, grouped=True)}"


def _ask_both_orders(rubrics: list[Rubric], args: argparse.Namespace) -> None:
    """--both-orders: each pair asked as shown (even repeats) and swapped (odd ones), so repeats come in twos."""
    unable = [r.id for r in rubrics if not r.asks_in_both_orders]
    if unable:
        raise UserError(f"--both-orders needs a pairwise rubric (two fields side by side, a scale of categories); "
                        f"{', '.join(unable)} is not one")
    args.repeat *= 2


def _check_numbers(args: argparse.Namespace) -> None:
    for name, value in (("--concurrency", args.concurrency), ("--repeat", args.repeat), ("--limit", args.limit)):
        if value is not None and value < 1:
            raise UserError(f"{name} must be 1 or more, not {value}")
    if args.concurrency is not None and args.concurrency > 64:
        raise UserError(f"--concurrency {args.concurrency} is too high; use at most 64")


def _batch_limits(args: argparse.Namespace) -> BatchLimits | None:
    """The limits --batch-max-requests / --batch-max-mb set (for an account or proxy with lower ones), or None."""
    requests, megabytes = getattr(args, "batch_max_requests", None), getattr(args, "batch_max_mb", None)
    if requests is None and megabytes is None:
        return None
    if not args.batch:
        raise UserError("--batch-max-requests and --batch-max-mb go with --batch")
    if requests is not None and not 1 <= requests <= MAX_REQUESTS:
        raise UserError(f"--batch-max-requests must be between 1 and {MAX_REQUESTS:,} (the API's limit), not {requests}")
    max_mb = MAX_BYTES / 1e6
    if megabytes is not None and not 2 <= megabytes <= max_mb:
        raise UserError(f"--batch-max-mb must be between 2 and {short_text(max_mb)} (the API's limit), not "
                        f"{short_text(megabytes)}")
    return BatchLimits(max_requests=requests or MAX_REQUESTS,
                       max_bytes=int(megabytes * 1e6) if megabytes is not None else MAX_BYTES)


# --------------------------------------------------------------------------- the progress bar


def _money(value: float, unknown: bool) -> str:
    return f"${decimal_text(value, 4, grouped=True)}" + ("+?" if unknown else "")


def time_left(left: int, per_minute: float) -> str:
    """The time the items left take at this rate, as minutes:seconds (never "0.0 min" with items left)."""
    if not left or per_minute <= 0:
        return "-"
    return duration_text(max(1.0, math.ceil(left / per_minute * 60)))


class _StatsColumn(ProgressColumn):
    """failed · rate · ETA · tokens · cost (the API's only), from the run state carried in the task's fields."""

    def __init__(self, paid: bool, tokens: bool = False) -> None:
        super().__init__()
        self.paid = paid
        self.tokens = tokens or paid  # a server may count tokens but have no price here

    def render(self, task: Task) -> Text:
        if "batch_line" in task.fields:
            return Text(task.fields["batch_line"])
        state: RunState | None = task.fields.get("state")
        if state is None:
            return Text("")
        minutes = max(1e-6, (time.monotonic() - state.started) / 60)
        rate = (state.done_now + state.failed_now) / minutes
        left = max(0, int((task.total or 0) - task.completed))
        parts = [f"failed {state.failed}", f"{decimal_text(rate, 1, grouped=True)}/min", f"ETA {time_left(left, rate)}"]
        if self.tokens:
            parts.append(f"{state.usage.total_input + state.usage.output_tokens:,} tokens")
        if self.paid:
            parts.append(_money(state.cost_usd, state.cost_unknown))
        if state.offline:
            parts.append(f"offline: {clean(state.offline)}")
        return Text(" · ".join(parts))


class _JudgeProgress(Progress):
    """The bars with their counts, then each row's figures on lines of their own below them: beside the bars
    they would not fit an 80-column terminal, and Rich would wrap them in a narrow strip under their column."""

    def __init__(self, stats: _StatsColumn, console: Console) -> None:
        super().__init__(TextColumn("{task.description}"), BarColumn(bar_width=30), MofNCompleteColumn(),
                         console=console, transient=False)
        self.stats = stats

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        for number, task in enumerate(self.tasks):
            line = self.stats.render(task)
            if line.plain:  # the whole run's figures first, then each batch's, named
                yield Text(f"  {task.description.strip()}: " if number else "  ") + line


def _batch_line(batch_id: str, batch: BatchProgress) -> str:
    """One batch's row: its state, its results so far, and its id (to look it up in the Console)."""
    parts = [clean(batch.status), f"{batch.succeeded:,} succeeded", f"{batch.errored:,} errored"]
    parts += [f"{count:,} {name}" for name, count in (("canceled", batch.canceled), ("expired", batch.expired))
              if count]
    return " · ".join([*parts, clean(batch_id)])


async def _run_one(judge: Judge, options: RunOptions, batch: bool, console: Console) -> RunState:
    usage = kind_of(judge.backend).usage
    progress = _JudgeProgress(_StatsColumn(usage == "priced", usage != "none"), console)
    task_id = progress.add_task(judge.rubric.id, total=None)
    offline_said = unlisted_said = ""
    finished_before: int | None = None  # done and failed when the run began
    batch_rows: dict[str, Any] = {}  # a row of the progress display per Message Batch

    def update(state: RunState) -> None:
        nonlocal offline_said, unlisted_said, finished_before
        if finished_before is None:
            finished_before = state.done + state.failed
        total = state.total  # with --limit, the bar ends where this run's share does
        if options.max_jobs is not None:
            total = min(total, finished_before + options.max_jobs)
        progress.update(task_id, total=max(1, total), completed=state.done + state.failed, state=state)
        for number, (batch_id, batch) in enumerate(state.batches.items(), 1):
            if batch_id not in batch_rows:
                batch_rows[batch_id] = progress.add_task("", total=batch.requests)
            progress.update(batch_rows[batch_id], description=f"  batch {number} of {len(state.batches)}",
                            total=batch.requests, completed=batch.finished, batch_line=_batch_line(batch_id, batch))
        if state.unlisted_until and state.unlisted_until != unlisted_said:
            unlisted_said = state.unlisted_until
            n = state.unlisted
            console.print(Text(f"judge: {plural(n, 'request', grouped=True)} {word_for(n, 'was', 'were')} in a"
                               " Message Batch being sent when judge-tui stopped, which the API does not list yet (it"
                               f" can take a few minutes); {word_for(n, 'it is', 'they are')} not sent again before"
                               f" {state.unlisted_until}, so never paid twice."))
        if state.offline and state.offline != offline_said:
            offline_said = state.offline
            console.print(Text(f"judge: offline ({clean(state.offline)}); waiting and trying again every"
                               f" {short_text(options.offline_probe)} s. Ctrl-C stops; everything judged so "
                               f"far is kept."))

    runner: BatchRunner | JudgeRunner = (BatchRunner if batch else JudgeRunner)(judge, options, update)
    try:
        with progress:
            return await runner.run()
    finally:
        await judge.backend.close()


def run_summary(judge: Judge, state: RunState) -> Text:
    line = (f"{judge.rubric.id}: {state.done} done, {state.failed} failed, {state.queued + state.running} waiting"
            f" (this run: {state.done_now} judged, {state.failed_now} failed) · {state.calls} calls")
    reported = kind_of(judge.backend).usage  # a local program or a replay has no tokens or price
    if reported == "priced":
        usage = state.usage
        cached = usage.cache_read_tokens / usage.total_input if usage.total_input else 0.0
        line += (f" · input {usage.total_input:,} tokens ({share_text(cached)} read from cache,"
                 f" {usage.cache_write_tokens:,} written) · output {usage.output_tokens:,}"
                 f" · cost {_money(state.cost_usd, state.cost_unknown)}")
    elif reported == "tokens":  # the server counts tokens; judge-tui may know no price for its model
        line += f" · {_counted_usage(judge.model, state)}"
    if state.batches_elsewhere:
        n = state.batches_elsewhere
        line += (f"\n{plural(n, 'Message Batch', 'Message Batches')} of this judge {word_for(n, 'is', 'are')} polled"
                 f" by another judge-tui process still running: {word_for(n, 'its', 'their')} results land when it"
                 f" reads them (or this command takes {word_for(n, 'it', 'them')} over once that process has ended).")
    if state.notice:
        line += f"\nnote: {clean(state.notice)}"
    return Text(f"{line}\nrater: {clean(judge.rater_id)}")


def _counted_usage(model: str, state: RunState) -> str:
    """Tokens as the server reported them, and the cost only where judge-tui knows the model's price."""
    usage = state.usage
    cached = f", {usage.cache_read_tokens:,} read from cache" if usage.cache_read_tokens else ""
    tokens = f"input {usage.total_input:,} tokens{cached} · output {usage.output_tokens:,}"
    if state.cost_usd and not state.cost_unknown:
        return f"{tokens} · cost {_money(state.cost_usd, False)}"
    return f"{tokens} · cost: {NO_PRICE}; judge-tui keeps no price list for {clean(model)}"


WORK_LEFT = 3  # exit status: judgments are left that this run could not make; its last lines say what to do


def _left_over(judge: Judge, state: RunState, args: argparse.Namespace) -> tuple[list[str], bool]:
    """What the run leaves to be judged, and what judges it; True if it needs the user to act."""
    rubric_id, lines, unfinished = judge.rubric.id, [], False
    if state.left_in_batches:
        unfinished = True
        n = state.left_in_batches
        them = word_for(n, "it", "them")
        lines.append(f"{rubric_id}: {plural(n, 'judgment')} {word_for(n, 'waits', 'wait')} for a Message Batch the"
                     " API has not finished (it answers within 24 h of sending). Run the same command again later: it"
                     f" collects {them}, and --batch waits for {them}.")
    if state.unlisted:
        unfinished = True
        n = state.unlisted
        lines.append(f"{rubric_id}: {plural(n, 'judgment')} {word_for(n, 'was', 'were')} in a Message Batch being"
                     " sent when judge-tui stopped, which the API does not list yet. Run the same command again after"
                     f" {state.unlisted_until}: it reads that batch if the API has it, else sends"
                     f" {word_for(n, 'it', 'them')} again.")
    if state.left_elsewhere:
        n = state.left_elsewhere
        lines.append(f"{rubric_id}: {plural(n, 'judgment')} {word_for(n, 'is', 'are')} being made by another"
                     f" judge-tui process still running; {word_for(n, 'it lands', 'they land')} when it has"
                     f" {word_for(n, 'it', 'them')}.")
    if state.queued:
        if args.limit:
            lines.append(f"{rubric_id}: {plural(state.queued, 'judgment')} still queued beyond --limit {args.limit};"
                         " run the same command again to judge more.")
        else:
            unfinished = True
            lines.append(f"{rubric_id}: {plural(state.queued, 'judgment')} still queued; run the same command again"
                         f" to judge {word_for(state.queued, 'it', 'them')}.")
    return lines, unfinished


def _print_failures(console: Console, store: Store, judge: Judge, args: argparse.Namespace) -> None:
    """The first reasons, grouped by cause, and the command that lists each with its raw answer."""
    jobs = store.failed_judge_jobs(rater_id=judge.rater_id)
    if not jobs:
        return
    listing = failures_command(getattr(args, "db", None), judge.rubric.id)
    lines = [f"{judge.rubric.id}: {plural(len(jobs), 'failed judgment')}, by cause:", *grouped_lines(jobs),
             f"See {word_for(len(jobs), 'it', 'each')} with its raw answer: {listing}; judge"
             f" {word_for(len(jobs), 'it', 'them')} again with --retry-failed."]
    for line in lines:
        console.print(Text(line), soft_wrap=True)  # whole lines, so they can be copied and searched


def run(args: argparse.Namespace, options: RunOptions | None = None) -> int:
    _check_numbers(args)
    limits = _batch_limits(args)
    settings = load_settings()
    console = message_console()
    err = message_console(stderr=True)
    backend = make_backend(args, settings)
    paid = kind_of(backend).usage == "priced"
    if args.concurrency is None:  # a laptop's server judges one or two at a time; the API takes more
        args.concurrency = concurrency_for(backend, settings)
    if args.batch and not kind_of(backend).batches:
        batching = ", ".join(kind.name for kind in backend_kinds().values() if kind.batches)
        raise UserError(f"--batch works with the {batching} backend only")
    store = open_store(args, create=False)
    exit_code = 0
    try:
        rubrics = _rubrics(store, args)
        if getattr(args, "both_orders", False):
            _ask_both_orders(rubrics, args)
        plans = [_plan(store, rubric, backend.model, args) for rubric in rubrics]
        dry_run = getattr(args, "dry_run", False)
        if not dry_run and any(plan.calls for plan in plans):
            # Headless, a missing key will not appear while the process waits: before the estimate, a run that
            # cannot start says only why.
            no_key = missing_key(backend)
            if no_key:
                raise UserError(no_key)
        for plan in plans:
            if not plan.calls:
                if dry_run:
                    console.print(Text(f"{plan.rubric.id}: nothing to judge."))
            elif paid:
                console.print(Text(_estimate(store, plan, backend.model, args)), soft_wrap=True)
            elif dry_run:
                console.print(Text(f"{plan.rubric.id}: {plural(plan.calls, 'judgment', grouped=True)} to make"
                                   f" with {described(backend)}"))
        if dry_run:
            console.print("Dry run: nothing was queued or judged.")
            return 0
        for plan in plans:
            rubric, prompt = plan.rubric, plan.prompt
            # A changed rubric or prompt needs its reason recorded first (judge_tui.judge.history).
            require_recorded(store, rubric, prompt_version=prompt.version, template=prompt.template.digest,
                             reason=getattr(args, "reason", None), items=parse_items(getattr(args, "items", None)),
                             definition=prompt.definition())
            judge = Judge(store, rubric, prompt, backend, both_orders=getattr(args, "both_orders", False))
            if getattr(args, "retry_failed", False):
                judge.queue.requeue_failed()
            added = judge.queue.enqueue(split=args.split, repeats=args.repeat, limit=args.limit)
            counts = judge.queue.counts()
            max_jobs = args.limit * args.repeat if args.limit else None
            to_judge = counts["queued"] + counts["running"]
            if to_judge == 0:
                console.print(Text(f"{rubric.id}: nothing to judge ({counts['done']} done, {counts['failed']} failed"
                                   f"{'; --retry-failed queues the failed ones again' if counts['failed'] else ''})."))
                _print_failures(console, store, judge, args)
                continue
            console.print(Text(f"{rubric.id}: {plural(added, 'new job')} queued;"
                               f" {min(to_judge, max_jobs or to_judge)} to judge with {judge.model}"
                               f" ({backend.name} backend)."))
            note = judge.cache_note() if paid else ""
            if note:
                err.print(Text(f"note: {note}"))
            run_options = options or RunOptions()
            run_options.concurrency = args.concurrency
            run_options.max_jobs = max_jobs
            if limits is not None:
                run_options.batch_limits = limits
            state = asyncio.run(_run_one(judge, run_options, bool(args.batch), console))
            console.print(run_summary(judge, state))
            _print_failures(console, store, judge, args)
            first = state.first_usage
            if (paid and not args.batch and first is not None
                    and first.cache_read_tokens == 0 and first.cache_write_tokens == 0):
                err.print(Text(f"note: the API reported no cache write or read for the first {rubric.id} call:"
                               " the prompt prefix was not cached."))
            if state.error:
                err.print(Text(f"judge-tui: the judge stopped: {clean(state.error)}"))
                err.print("Nothing is lost: fix the problem and run the same command again to carry on.")
                return 2
            left, unfinished = _left_over(judge, state, args)
            for line in left:
                console.print(Text(line), soft_wrap=True)  # whole lines: the command can be copied
            if unfinished:
                exit_code = WORK_LEFT
            elif state.failed_now:
                exit_code = max(exit_code, 1)
    finally:
        store.close()
    return exit_code
