"""Rebuild this folder's MT-Bench subset from a checkout of github.com/nitaytech/AltTest (data/mtbench/).

    python tests/data/mtbench/vendor.py PATH/TO/AltTest/data/mtbench

Keeps every pair that three experts judged and the shortest other pairs up to SUBSET pairs (short keeps the
files small; the figures are checked against references on whatever pairs are here). Writes items.jsonl
(prompt, response_a, response_b), one ratings file per expert and one replay file per LLM judge.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from pathlib import Path

SUBSET = 48
LABELS = {"model_a": "A", "model_b": "B", "tie": "tie"}
HERE = Path(__file__).parent


def conversation(raw: str) -> list[dict[str, str]]:
    turns: list[dict[str, str]] = ast.literal_eval(raw)  # the source writes each conversation as a Python list literal
    return turns


def anonymous_id(pair_id: str) -> str:
    """mt<question>.<6 hex digits>.t<turn>: the models' names stay out of what an expert sees."""
    question, model_a, model_b, turn = pair_id.split("__")
    digest = hashlib.sha256(f"{model_a}|{model_b}".encode()).hexdigest()[:6]
    return f"mt{question}.{digest}.t{turn}"


def item(pair_id: str, row: dict[str, str]) -> dict[str, str]:
    """Turn 1 is the first question and each model's first answer; turn 2 shows the first exchange as context."""
    turn = int(pair_id.rsplit("__", 1)[1])
    a, b = conversation(row["conversation_a"]), conversation(row["conversation_b"])
    users = [m["content"] for m in a if m["role"] == "user"]

    def answer(messages: list[dict[str, str]]) -> str:
        said = [m["content"] for m in messages if m["role"] == "assistant"]
        if turn == 1:
            return said[0]
        return f"(first answer)\n{said[0]}\n\n(answer to the follow-up)\n{said[1]}"

    prompt = users[0] if turn == 1 else f"{users[0]}\n\n(follow-up question)\n{users[1]}"
    return {"id": anonymous_id(pair_id), "prompt": prompt, "response_a": answer(a), "response_b": answer(b)}


def main(source: Path) -> None:
    humans = json.loads((source / "human_annotations.json").read_text())
    llms = json.loads((source / "llm_annotations.json").read_text())
    prompts = json.loads((source / "prompts.json").read_text())
    items = {pair_id: item(pair_id, row) for pair_id, row in prompts.items()}
    raters = {pair_id: sum(pair_id in answers for answers in humans.values()) for pair_id in prompts}
    size = {pair_id: len(json.dumps(row)) for pair_id, row in items.items()}
    chosen = sorted(prompts, key=lambda p: (raters[p] < 3, size[p]))[:SUBSET]
    chosen.sort()
    with (HERE / "items.jsonl").open("w", encoding="utf-8") as out:
        for pair_id in chosen:
            out.write(json.dumps(items[pair_id], ensure_ascii=False) + "\n")
    for name, answers in humans.items():
        with (HERE / f"expert.{name}.jsonl").open("w", encoding="utf-8") as out:
            for pair_id in chosen:
                if pair_id in answers:
                    row = {"item_id": items[pair_id]["id"], "preference": LABELS[answers[pair_id]]}
                    out.write(json.dumps(row) + "\n")
    for name, answers in llms.items():
        with (HERE / f"judge.{name}.replay.jsonl").open("w", encoding="utf-8") as out:
            for pair_id in chosen:
                answer = {"preference": LABELS[answers[pair_id]], "reasoning": ""}
                out.write(json.dumps({"item_id": items[pair_id]["id"], "answer": answer, "model": name}) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
