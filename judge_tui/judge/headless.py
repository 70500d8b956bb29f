"""`judge-tui judge`: judge a whole dataset from the command line, with a progress bar, resumable.

Every judgment is committed as it arrives, so Ctrl-C or a kill loses at most the calls in flight; running
the same command again picks up the queue where it stopped and judges nothing twice.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from judge_tui.cli_output import message_console
from judge_tui.commands import open_store, resolve_rubric
from judge_tui.errors import UserError
from judge_tui.judge.backends import (
    AnthropicBackend,
    CommandBackend,
    ConfigError,
    ReplayBackend,
)
from judge_tui.judge.prompts import JudgePrompt, PromptError
from judge_tui.judge.runner import BatchRunner, Judge, JudgeRunner, RunOptions, RunState
from judge_tui.rubrics import Rubric
from judge_tui.settings import load_settings
from judge_tui.store import Store
from judge_tui.textsafe import clean
from judge_tui.versions import parse_items, require_recorded


def make_backend(args: argparse.Namespace, default_model: str) -> Any:
    kind = getattr(args, "backend", "anthropic") or "anthropic"
    try:
        if kind == "command":
            if not args.cmd:
                raise UserError("--backend command needs --cmd \"PROGRAM ARGS\": a program that reads the request"
                                " as JSON on stdin and writes the answer JSON on stdout")
            return CommandBackend(args.cmd, model=args.model)
        if kind == "replay":
            if not args.replay:
                raise UserError("--backend replay needs --replay FILE: a JSONL file of recorded answers")
            return ReplayBackend(args.replay, model=args.model)
        return AnthropicBackend(args.model or default_model)
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def _rubrics(store: Store, args: argparse.Namespace) -> list[Rubric]:
    if args.rubric:
        return [resolve_rubric(args.rubric)]
    in_use = [rubric_id for rubric_id, _count in store.rubrics_in_use()]
    if not in_use:
        raise UserError("there are no items to judge in this database: import some first"
                        " (judge-tui import FILE --rubric ID)")
    return [resolve_rubric(rubric_id) for rubric_id in in_use]


def _check_numbers(args: argparse.Namespace) -> None:
    for name, value in (("--concurrency", args.concurrency), ("--repeat", args.repeat), ("--limit", args.limit)):
        if value is not None and value < 1:
            raise UserError(f"{name} must be 1 or more, not {value}")
    if args.concurrency > 64:
        raise UserError(f"--concurrency {args.concurrency} is too high; use at most 64")


# --------------------------------------------------------------------------- the progress bar


def _money(value: float, unknown: bool) -> str:
    return f"${value:,.4f}" + ("+?" if unknown else "")


class _StatsColumn(ProgressColumn):
    """failed · rate · ETA · tokens · cost, from the run state carried in the task's fields."""

    def render(self, task: Task) -> Text:
        state: RunState | None = task.fields.get("state")
        if state is None:
            return Text("")
        minutes = max(1e-6, (time.monotonic() - state.started) / 60)
        rate = (state.done_now + state.failed_now) / minutes
        left = state.queued + state.running
        eta = f"{left / rate:,.1f} min" if rate > 0 and left else "-"
        tokens = state.usage.total_input + state.usage.output_tokens
        parts = [f"failed {state.failed}", f"{rate:,.1f}/min", f"ETA {eta}", f"{tokens:,} tokens",
                 _money(state.cost_usd, state.cost_unknown)]
        if state.offline:
            parts.append(f"offline: {clean(state.offline)}")
        if state.batch:
            parts.append(f"batch {clean(state.batch)}")
        return Text(" · ".join(parts))


async def _run_one(judge: Judge, options: RunOptions, batch: bool, console: Console) -> RunState:
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), _StatsColumn(),
                        console=console, transient=False)
    task_id = progress.add_task(judge.rubric.id, total=None)
    offline_said = ""

    def update(state: RunState) -> None:
        nonlocal offline_said
        progress.update(task_id, total=max(1, state.total), completed=state.done + state.failed, state=state)
        if state.offline and state.offline != offline_said:
            offline_said = state.offline
            console.print(Text(f"judge: offline ({clean(state.offline)}); waiting and trying again every"
                               f" {options.offline_probe:g} s. Ctrl-C stops; everything judged so far is kept."))

    runner = (BatchRunner if batch else JudgeRunner)(judge, options, update)
    try:
        with progress:
            return await runner.run()
    finally:
        await judge.backend.close()


def _summary(judge: Judge, state: RunState) -> Text:
    usage = state.usage
    cached = usage.cache_read_tokens / usage.total_input if usage.total_input else 0.0
    return Text(
        f"{judge.rubric.id}: {state.done} done, {state.failed} failed, {state.queued + state.running} waiting"
        f" (this run: {state.done_now} judged, {state.failed_now} failed) · {state.calls} calls ·"
        f" input {usage.total_input:,} tokens ({cached:.0%} read from cache, {usage.cache_write_tokens:,} written)"
        f" · output {usage.output_tokens:,} · cost {_money(state.cost_usd, state.cost_unknown)}"
        f"\nrater: {clean(judge.rater_id)}"
    )


def run(args: argparse.Namespace, options: RunOptions | None = None) -> int:
    _check_numbers(args)
    settings = load_settings()
    console = message_console()
    err = message_console(stderr=True)
    backend = make_backend(args, settings.judge_model)
    if args.batch and not isinstance(backend, AnthropicBackend):
        raise UserError("--batch works with the anthropic backend only")
    store = open_store(args)
    exit_code = 0
    try:
        for rubric in _rubrics(store, args):
            try:
                prompt = JudgePrompt.for_rubric(rubric, store)
            except PromptError as exc:
                raise UserError(str(exc)) from None
            # A changed rubric or prompt needs its reason recorded first (judge_tui.versions).
            require_recorded(store, rubric, prompt_version=prompt.version, template=prompt.template.digest,
                             reason=getattr(args, "reason", None), items=parse_items(getattr(args, "items", None)))
            judge = Judge(store, rubric, prompt, backend)
            if getattr(args, "retry_failed", False):
                judge.queue.requeue_failed()
            added = judge.queue.enqueue(split=args.split, repeats=args.repeat, limit=args.limit)
            counts = judge.queue.counts()
            if counts["queued"] + counts["running"] == 0:
                console.print(Text(f"{rubric.id}: nothing to judge ({counts['done']} done, {counts['failed']} failed"
                                   f"{'; --retry-failed queues the failed ones again' if counts['failed'] else ''})."))
                continue
            console.print(Text(f"{rubric.id}: {added} new job(s) queued; {counts['queued'] + counts['running']}"
                               f" to judge with {judge.model} ({getattr(backend, 'name', '')} backend)."))
            note = judge.cache_note() if isinstance(backend, AnthropicBackend) else ""
            if note:
                err.print(Text(f"note: {note}"))
            run_options = options or RunOptions()
            run_options.concurrency = args.concurrency
            run_options.max_jobs = args.limit * args.repeat if args.limit else None
            state = asyncio.run(_run_one(judge, run_options, bool(args.batch), console))
            console.print(_summary(judge, state))
            first = state.first_usage
            if (isinstance(backend, AnthropicBackend) and not args.batch and first is not None
                    and first.cache_read_tokens == 0 and first.cache_write_tokens == 0):
                err.print(Text(f"note: the API reported no cache write or read for the first {rubric.id} call:"
                               " the prompt prefix was not cached."))
            if state.error:
                err.print(Text(f"judge-tui: the judge stopped: {clean(state.error)}"))
                err.print("Nothing is lost: fix the problem and run the same command again to carry on.")
                return 2
            if state.failed_now:
                exit_code = 1
    finally:
        store.close()
    return exit_code
