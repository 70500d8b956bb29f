"""Judge benchmarks against the fake Anthropic API (its own process on 127.0.0.1), through the real SDK.

1. Throughput: 1,000 judgments at concurrency 16 with 200 ms per call; the ideal is 1,000 / 16 x 0.2 s = 12.5 s.
2. Memory: RSS before and after queueing 100,000 jobs, and while a slice of them is judged.
3. Caching: the 25 demo CIS items; every call after the first should read the rubric prefix from the cache.
4. The openai backend: the same 1,000 judgments at concurrency 16 against the fake OpenAI-compatible server
   (tests/judge/fake_openai.py, its own process), and in the same run the floor: the bare `openai` SDK sending the
   same requests 16 at a time and doing nothing with the answers, in alternating rounds (--rounds) so both see
   the same load. The ratio is the backend's time over the floor's.

Run from the project root:  python benchmarks/bench_judge.py   (--only openai for the last one alone)
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge_tui.judge.backends import JudgeRequest  # noqa: E402
from judge_tui.judge.backends.anthropic import AnthropicBackend  # noqa: E402
from judge_tui.judge.backends.openai import OpenAIBackend  # noqa: E402
from judge_tui.judge.prompts import JudgePrompt  # noqa: E402
from judge_tui.judge.runner import Judge, JudgeRunner, RunOptions, RunState  # noqa: E402
from judge_tui.model import locations  # noqa: E402
from judge_tui.model.records import Item  # noqa: E402
from judge_tui.model.rubrics import Rubric, load_rubrics  # noqa: E402
from judge_tui.store import Store  # noqa: E402

KEY = "bench-key"
MODEL = "claude-sonnet-5"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class FakeServer:
    """tests/judge/fake_anthropic.py (or fake_openai.py) in a process of its own, so it does not share our GIL."""

    def __init__(self, latency: float, script: str = "fake_anthropic.py") -> None:
        key = ["--api-key", KEY] if script == "fake_anthropic.py" else []
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "judge" / script), "--latency", str(latency), *key, "--no-record"],
            stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def cis_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (locations.data_dir() / "cis.jsonl").read_text().splitlines() if line]


def make_items(count: int, start: int = 0, shorten: int | None = None) -> list[Item]:
    """CIS items made from the demo submissions, each with its own id and a marker so prompts differ.

    shorten cuts every field to that many characters (for the 100k-job queue, to keep the file small).
    """
    rows = cis_rows()
    items = []
    for n in range(start, start + count):
        row = dict(rows[n % len(rows)])
        row.pop("id")
        row.pop("split", None)
        if shorten:
            row = {k: v[:shorten] for k, v in row.items()}
        row["rationale"] = f"{row['rationale']} (copy {n})"
        items.append(Item(id=f"C{n:06d}", rubric="cis", fields=row, task_type=row["task_type"]))
    return items


def judge_for(store: Store, rubric: Rubric) -> Judge:
    return Judge(store, rubric, JudgePrompt.for_rubric(rubric, store), AnthropicBackend(MODEL))


def throughput(folder: Path, rubric: Rubric, jobs: int, concurrency: int, latency: float) -> dict[str, Any]:
    server = FakeServer(latency)
    os.environ["ANTHROPIC_BASE_URL"] = server.url
    try:
        with Store(folder / "throughput.db") as store:
            store.ensure_rubric_version(rubric)
            store.add_items(make_items(jobs))
            judge = judge_for(store, rubric)
            judge.queue.enqueue()
            t0 = time.monotonic()
            importlib.import_module("anthropic")  # once per process; timed on its own
            sdk_import = time.monotonic() - t0
            started = time.monotonic()
            state = asyncio.run(JudgeRunner(judge, RunOptions(concurrency=concurrency)).run())
            elapsed = time.monotonic() - started
    finally:
        server.stop()
    ideal = jobs / concurrency * latency
    return {"jobs": jobs, "concurrency": concurrency, "latency_s": latency, "done": state.done,
            "failed": state.failed, "elapsed_s": round(elapsed, 2), "ideal_s": ideal,
            "ratio": round(elapsed / ideal, 3), "sdk_import_s": round(sdk_import, 2)}


def memory(folder: Path, rubric: Rubric, queued: int, slice_jobs: int) -> dict[str, Any]:
    server = FakeServer(0.0)
    os.environ["ANTHROPIC_BASE_URL"] = server.url
    samples: list[float] = []
    at_start = rss_mb()
    try:
        with Store(folder / "memory.db") as store:
            store.ensure_rubric_version(rubric)
            for start in range(0, queued, 10_000):  # imported in chunks, as a large import would be
                store.add_items(make_items(min(10_000, queued - start), start, shorten=300))
            judge = judge_for(store, rubric)
            before = rss_mb()
            t0 = time.monotonic()
            added = judge.queue.enqueue()
            enqueue_s = time.monotonic() - t0
            after = rss_mb()

            def sample(_state: RunState) -> None:
                if len(samples) < 100_000:
                    samples.append(rss_mb())

            state = asyncio.run(JudgeRunner(judge, RunOptions(concurrency=16, max_jobs=slice_jobs),
                                            sample).run())
            counts = judge.queue.counts()
    finally:
        server.stop()
    return {"queued": added, "enqueue_s": round(enqueue_s, 2), "rss_before_items_mb": round(at_start, 1),
            "rss_before_enqueue_mb": round(before, 1),
            "rss_after_enqueue_mb": round(after, 1), "slice_judged": state.done,
            "rss_while_running_max_mb": round(max(samples), 1), "rss_while_running_first_mb": round(samples[0], 1),
            "still_queued": counts["queued"]}


def caching(folder: Path, rubric: Rubric) -> dict[str, Any]:
    server = FakeServer(0.05)
    os.environ["ANTHROPIC_BASE_URL"] = server.url
    try:
        with Store(folder / "cache.db") as store:
            rows = cis_rows()
            store.ensure_rubric_version(rubric)
            store.add_items([Item(id=r.pop("id"), rubric="cis", fields={k: v for k, v in r.items() if k != "split"},
                                  task_type=r["task_type"]) for r in rows])
            judge = judge_for(store, rubric)
            judge.queue.enqueue()
            state = asyncio.run(JudgeRunner(judge, RunOptions(concurrency=4)).run())
            calls = [c for j in store.judge_jobs(judge.rater_id) for c in store.judge_calls(j["id"])]
            calls.sort(key=lambda c: c["id"])
    finally:
        server.stop()
    later = calls[1:]
    total_input = sum(c["input_tokens"] + c["cache_read_tokens"] + c["cache_write_tokens"] for c in calls)
    return {
        "items": len(calls), "prefix_tokens_estimate": judge.prompt.stable_prefix_chars() // 4,
        "first_call_cache_write": calls[0]["cache_write_tokens"], "first_call_cache_read": calls[0]["cache_read_tokens"],
        "later_calls_reading_cache": sum(1 for c in later if c["cache_read_tokens"] > 0),
        "later_calls": len(later),
        "cached_share_of_input": round(sum(c["cache_read_tokens"] for c in calls) / total_input, 3),
        "cost_usd": round(state.cost_usd, 5),
        "cost_without_cache_usd": round(sum(
            (c["input_tokens"] + c["cache_read_tokens"] + c["cache_write_tokens"]) * 2.0 / 1e6
            + c["output_tokens"] * 10.0 / 1e6 for c in calls), 5),
    }


async def _bare_openai(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> float:
    """The floor: the bare SDK sending these requests, `concurrency` at a time; the answers are only received."""
    import openai

    client = openai.AsyncOpenAI(api_key="no-key", base_url=base_url, max_retries=0, timeout=120)
    gate = asyncio.Semaphore(concurrency)

    async def one(body: dict[str, Any]) -> None:
        async with gate:
            await client.chat.completions.create(**body)

    started = time.monotonic()
    await asyncio.gather(*(one(body) for body in bodies))
    elapsed = time.monotonic() - started
    await client.close()
    return elapsed


def openai_throughput(folder: Path, rubric: Rubric, jobs: int, concurrency: int, latency: float,
                      rounds: int = 4) -> dict[str, Any]:
    """The backend and the bare-SDK floor in alternating rounds (floor first in odd rounds, the backend first in
    even ones), each round a share of the jobs: on a loaded machine the two then see the same load."""
    server = FakeServer(latency, "fake_openai.py")
    try:
        with Store(folder / "openai.db") as store:
            store.ensure_rubric_version(rubric)
            store.add_items(make_items(jobs))
            backend = OpenAIBackend("qwen2.5:7b", base_url=server.url + "/v1")
            judge = Judge(store, rubric, JudgePrompt.for_rubric(rubric, store), backend)
            judge.queue.enqueue()
            schema = judge.prompt.output.json_schema()
            bodies = [backend.params(JudgeRequest(0, item.id, 0, rubric.id, judge.prompt.render(item), schema))
                      for item in store.iter_items(rubric.id)]
            importlib.import_module("openai")  # once per process, before either is timed
            share = -(-jobs // rounds)
            floors, runs, done, failed = [], [], 0, 0
            for number in range(rounds):
                part = bodies[number * share:(number + 1) * share]

                def judged(size: int = len(part)) -> float:
                    nonlocal done, failed

                    async def one_round() -> RunState:  # a client per event loop, closed with it
                        fresh = OpenAIBackend("qwen2.5:7b", base_url=server.url + "/v1")
                        runner = JudgeRunner(Judge(store, rubric, judge.prompt, fresh),
                                             RunOptions(concurrency=concurrency, max_jobs=size))
                        try:
                            return await runner.run()
                        finally:
                            await fresh.close()

                    started = time.monotonic()
                    state = asyncio.run(one_round())
                    done, failed = state.done, state.failed
                    return time.monotonic() - started

                if number % 2 == 0:
                    floors.append(asyncio.run(_bare_openai(server.url + "/v1", part, concurrency)))
                    runs.append(judged())
                else:
                    runs.append(judged())
                    floors.append(asyncio.run(_bare_openai(server.url + "/v1", part, concurrency)))
    finally:
        server.stop()
    elapsed, floor = sum(runs), sum(floors)
    return {"jobs": jobs, "concurrency": concurrency, "latency_s": latency, "rounds": rounds, "done": done,
            "failed": failed, "elapsed_s": round(elapsed, 2), "bare_sdk_floor_s": round(floor, 2),
            "ratio_to_floor": round(elapsed / floor, 3),
            "ratio_by_round": [round(r / f, 3) for r, f in zip(runs, floors, strict=True)],
            "ideal_s": jobs / concurrency * latency}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--queued", type=int, default=100_000)
    parser.add_argument("--slice", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4, help="openai: alternating rounds of backend and floor")
    parser.add_argument("--only", choices=["throughput", "memory", "caching", "openai"],
                        help="run this benchmark alone")
    args = parser.parse_args()
    os.environ["ANTHROPIC_API_KEY"] = KEY
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["JUDGE_TUI_HOME"] = tmp
        folder = Path(tmp)
        rubric = load_rubrics()["cis"][0]
        runs: dict[str, Callable[[], dict[str, Any]]] = {
            "throughput": lambda: throughput(folder, rubric, args.jobs, args.concurrency, args.latency),
            "memory": lambda: memory(folder, rubric, args.queued, args.slice),
            "caching": lambda: caching(folder, rubric),
            "openai": lambda: openai_throughput(folder, rubric, args.jobs, args.concurrency, args.latency,
                                                args.rounds),
        }
        results = {name: run() for name, run in runs.items() if args.only in (None, name)}
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
