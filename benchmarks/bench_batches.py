"""The cost of judging 100,000 items through Message Batches against the same run one call at a time.

Both runs use the CIS rubric's real prompt (its ~1,900-token prefix in every request) with short items, against
the fake Anthropic API in its own process, which reports usage as the API does (the prefix is written to the cache
by the first request and read by the others). The batch run is cut into batches the API accepts; the report says
how many, their sizes, and what each run cost at list prices.

Run from the project root:  python benchmarks/bench_batches.py [--items 100000] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_judge import KEY, FakeServer, judge_for, make_items  # noqa: E402

from judge_tui.judge.backends.anthropic import AnthropicBackend  # noqa: E402
from judge_tui.judge.batch_limits import BatchLimits  # noqa: E402
from judge_tui.judge.runner import BatchRunner, JudgeRunner, RunOptions, RunState  # noqa: E402
from judge_tui.model.rubrics import Rubric, load_rubrics  # noqa: E402
from judge_tui.store import Store  # noqa: E402


def one_run(folder: Path, rubric: Rubric, items: int, batch: bool, concurrency: int) -> dict[str, Any]:
    server = FakeServer(0.0)
    os.environ["ANTHROPIC_BASE_URL"] = server.url
    try:
        with Store(folder / f"{'batch' if batch else 'calls'}.db") as store:
            store.ensure_rubric_version(rubric)
            for start in range(0, items, 10_000):
                store.add_items(make_items(min(10_000, items - start), start, shorten=200))
            judge = judge_for(store, rubric)
            judge.queue.enqueue()
            assert isinstance(judge.backend, AnthropicBackend)  # the batch API is Anthropic's
            requests = [judge.request(job) for job in store.judge_jobs(judge.rater_id)[:100]]
            sizes = [judge.backend.batch_entry_bytes(r) for r in requests if r is not None]
            options = RunOptions(concurrency=concurrency, batch_poll=0.5)
            started = time.monotonic()

            async def judged() -> RunState:
                try:
                    return await (BatchRunner if batch else JudgeRunner)(judge, options).run()
                finally:
                    await judge.backend.close()

            state = asyncio.run(judged())
            elapsed = time.monotonic() - started
            totals = judge.queue.totals()
    finally:
        server.stop()
    result = {
        "items": items, "done": state.done, "failed": state.failed, "error": state.error,
        "elapsed_s": round(elapsed, 1), "calls": int(totals["calls"]),
        "input_tokens": int(totals["input_tokens"]), "cache_read_tokens": int(totals["cache_read_tokens"]),
        "cache_write_tokens": int(totals["cache_write_tokens"]), "output_tokens": int(totals["output_tokens"]),
        "cost_usd": round(totals["cost_usd"], 2), "request_bytes_mean": round(sum(sizes) / len(sizes)),
    }
    if batch:
        result["batches"] = [b.requests for b in state.batches.values()]
        result["batch_budget_bytes"] = BatchLimits().budget
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--concurrency", type=int, default=16, help="calls at once in the run without batches")
    args = parser.parse_args()
    os.environ["ANTHROPIC_API_KEY"] = KEY
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["JUDGE_TUI_HOME"] = tmp
        folder = Path(tmp)
        rubric = load_rubrics()["cis"][0]
        batches = one_run(folder, rubric, args.items, True, args.concurrency)
        calls = one_run(folder, rubric, args.items, False, args.concurrency)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # this process, not the fake server
    print(json.dumps({"model": "claude-sonnet-5", "batches": batches, "one_call_at_a_time": calls,
                      "batch_cost_share": round(batches["cost_usd"] / calls["cost_usd"], 3),
                      "rss_peak_mb": round(peak_mb)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
