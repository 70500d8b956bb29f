"""The judge's answers as recorded in a file: one JSON line per item, no calls to a model."""

from __future__ import annotations

import json
from pathlib import Path

from judge_tui.judge.backends import AnswerError, ConfigError, JudgeAnswer, JudgeRequest
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import BackendKind, BackendOption, BackendRequest
from judge_tui.model.textsafe import clean


class ReplayBackend:
    """Answers recorded in a JSONL file: {"item_id": ..., "repeat": 0, "answer": {...} or "raw text"}."""

    name = "replay"

    def __init__(self, path: Path, *, model: str | None = None) -> None:
        self.path = Path(path)
        self.answers: dict[tuple[str, int], str] = {}
        recorded_model = None
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot read the replay file ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{self.path}: not a UTF-8 text file") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{self.path}:{number}: not valid JSON ({exc.msg})") from None
            except RecursionError:
                raise ConfigError(f"{self.path}:{number}: nested too deeply to read; a line holds one recorded"
                                  " answer, an object of scores and a few texts") from None
            if not isinstance(row, dict) or "item_id" not in row or "answer" not in row:
                raise ConfigError(f"{self.path}:{number}: each line needs \"item_id\" and \"answer\"")
            repeat = row.get("repeat", 0)
            if not isinstance(repeat, int) or repeat < 0:
                raise ConfigError(f"{self.path}:{number}: \"repeat\" must be a whole number >= 0")
            answer = row["answer"]
            self.answers[(str(row["item_id"]), repeat)] = (
                answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False))
            recorded_model = recorded_model or row.get("model")
        # Filed apart from live judgments of the same model: a later live run must not take them for its own.
        recorded = model or recorded_model or "unknown-model"
        self.model = recorded if recorded.startswith("replay:") else f"replay:{recorded}"

    async def close(self) -> None:
        return None

    async def judge(self, request: JudgeRequest) -> JudgeAnswer:
        raw = self.answers.get((request.item_id, request.repeat))
        if raw is None:
            raise AnswerError(f"{self.path.name} has no recorded answer for item {request.item_id!r}"
                              f" (repeat {request.repeat})")
        return JudgeAnswer(raw_text=raw, model=self.model, sampling={"backend": "replay"})


def from_request(request: BackendRequest) -> ReplayBackend:
    if not request.options.get("replay"):
        raise UserError("--backend replay needs --replay FILE: a JSONL file of recorded answers")
    return ReplayBackend(request.options["replay"], model=request.model)


def describe(backend: ReplayBackend) -> str:
    return f"answers recorded in {clean(str(backend.path))} (no calls to a model)"


BACKEND = BackendKind("replay", "recorded answers", from_request, describe=describe,
                      options=(BackendOption("--replay", "recorded answers", metavar="FILE", path=True),))
