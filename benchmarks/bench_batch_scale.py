"""Message Batches at the API's full limit: 120,000 items judged with `judge --batch`'s runner against the fake
Anthropic API (tests/judge/fake_anthropic.py, on 127.0.0.1), through the real SDK.

    .venv/bin/python benchmarks/bench_batch_scale.py [--items 120000]

Checks what the test suite checks at a limit of 1,000 (tests/judge/test_batch_scale.py), at the real 100,000
requests a batch: every item judged once, two batches (100,000 and the rest), none refused; and prints how long
it took and the peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge_tui.judge.batch_limits import MAX_REQUESTS  # noqa: E402
from judge_tui.judge.runner import BatchRunner  # noqa: E402
from judge_tui.model.rubrics import get_rubric  # noqa: E402
from judge_tui.store import Store  # noqa: E402
from tests.judge import fake_anthropic as fa  # noqa: E402
from tests.judge.conftest import API_KEY, fast  # noqa: E402
from tests.judge.test_batch_scale import add_items, tiny_judge  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=120_000)
    args = parser.parse_args()
    server = fa.FakeAnthropic(api_key=API_KEY).start()
    server.record_bodies = False
    os.environ["ANTHROPIC_API_KEY"] = API_KEY
    os.environ["ANTHROPIC_BASE_URL"] = server.url
    rubric = get_rubric("binary")
    try:
        with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "scale.db") as store:
            add_items(store, rubric, args.items)
            judge = tiny_judge(store, rubric)
            queued = judge.queue.enqueue()
            start = time.perf_counter()
            state = asyncio.run(BatchRunner(judge, fast()).run())
            seconds = time.perf_counter() - start
            rated = store.scalar("SELECT COUNT(*) FROM ratings WHERE rater_id = ?", [judge.rater_id])
    finally:
        server.stop()
    sizes = sorted(len(b["requests"]) for b in server.batches.values())
    expected = sorted([MAX_REQUESTS] * (args.items // MAX_REQUESTS) + ([args.items % MAX_REQUESTS] if args.items
                                                                          % MAX_REQUESTS else []))
    ok = (queued == rated == state.done == args.items and state.failed == 0 and sizes == expected
          and all(r.behaviour == "" for r in server.requests if r.path == "/v1/messages/batches"))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.items:,} items: {seconds:.1f} s to judge in batches of {sizes}, peak memory {peak_mb:.0f} MB,"
          f" load average {os.getloadavg()[0]:.2f}; {'all judged once, none refused' if ok else 'FAILED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
