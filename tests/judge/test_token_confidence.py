"""The judge's confidence in its verdict from token log-probabilities: asked of an OpenAI-compatible server (the
fake on 127.0.0.1 answers in the API's shape, through the real openai SDK), turned into the probability of the
scores' tokens and stored with the judgment; the Anthropic API gives none. The conversion itself by hand."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.judge.backends.anthropic import AnthropicBackend
from judge_tui.judge.backends.openai import OpenAIBackend
from judge_tui.judge.backends.replay import ReplayBackend
from judge_tui.judge.runner import JudgeRunner
from judge_tui.judge.token_confidence import value_spans, verdict_confidence
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store
from tests.judge import fake_anthropic as fa
from tests.judge import fake_openai as fo
from tests.judge.conftest import add_binary_items, fast, make_judge

MODEL = "llama3.1:8b"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[fo.FakeOpenAI]:
    with fo.serving(monkeypatch) as fake:
        yield fake


def judged(store: Store, rubric: Rubric, backend: OpenAIBackend | AnthropicBackend) -> dict[str, dict[str, object]]:
    """Judge every item once; each item's rating details."""
    judge = make_judge(store, rubric, backend)
    judge.queue.enqueue()
    state = asyncio.run(JudgeRunner(judge, fast()).run())
    assert state.failed == 0
    assert state.done > 0
    return {r.item_id: r.details | {"scores": r.scores} for r in store.iter_ratings(rater_ids=[judge.rater_id])}


def test_the_label_tokens_probability_is_the_verdicts_confidence(server: fo.FakeOpenAI, tmp_path: Path,
                                                                 rubrics: dict[str, Rubric]) -> None:
    server.token_logprob = {"PASS": math.log(0.8), "FAIL": math.log(0.6)}
    with Store(tmp_path / "j.db") as store:
        add_binary_items(store, rubrics["binary"])
        ratings = judged(store, rubrics["binary"], OpenAIBackend(MODEL, base_url=server.url))
    assert all(r.body["logprobs"] is True for r in server.completion_requests())
    labels = set()
    for details in ratings.values():
        label = details["scores"]["label"]  # type: ignore[index]  # the scores dict added above
        labels.add(label)
        # Only the label's token counts: every other token (keys, quotes, the critique) has log-probability -0.01.
        assert details["confidence"] == {"stated": 0.5, "logprob": pytest.approx(0.8 if label == 1.0 else 0.6)}
        assert "confidence_notes" not in details
    assert labels == {0.0, 1.0}  # both verdicts were seen


def test_numbers_spelt_in_several_tokens_multiply_over_every_score(server: fo.FakeOpenAI, cis_store: Store,
                                                                     rubrics: dict[str, Rubric]) -> None:
    # The fake splits 0.75 into "0", ".", "75": each score's digits count, for each of the four scores.
    server.token_logprob = {"0": math.log(0.9), "1": math.log(0.8), ".": 0.0, "25": math.log(0.7),
                            "5": math.log(0.6), "75": math.log(0.5)}
    by_score = {0.0: 0.9 * 0.9, 0.25: 0.9 * 0.7, 0.5: 0.9 * 0.6, 0.75: 0.9 * 0.5, 1.0: 0.8 * 0.9}
    ratings = judged(cis_store, rubrics["cis"], OpenAIBackend(MODEL, base_url=server.url))
    for details in ratings.values():
        scores = details["scores"]
        assert isinstance(scores, dict)
        expected = math.prod(by_score[scores[d]] for d in ("r", "a", "t", "l"))
        assert details["confidence"] == {"stated": 0.5, "logprob": pytest.approx(expected)}


def test_a_model_that_refuses_logprobs_is_asked_without_them(server: fo.FakeOpenAI, tmp_path: Path,
                                                              rubrics: dict[str, Rubric]) -> None:
    server.reject_logprobs = True
    with Store(tmp_path / "j.db") as store:
        add_binary_items(store, rubrics["binary"])
        ratings = judged(store, rubrics["binary"], OpenAIBackend(MODEL, base_url=server.url))
    requests = server.completion_requests()
    assert requests[0].behaviour == "logprobs_rejected"
    assert all("logprobs" not in r.body for r in requests[1:])
    assert len(requests) == len(ratings) + 1
    assert all(d["confidence"] == {"stated": 0.5} and "confidence_notes" not in d for d in ratings.values())


@pytest.mark.slow
def test_the_anthropic_api_gives_a_stated_confidence_and_no_token_confidence(fake: fa.FakeAnthropic, tmp_path: Path,
                                                                              rubrics: dict[str, Rubric]) -> None:
    with Store(tmp_path / "j.db") as store:
        add_binary_items(store, rubrics["binary"])
        ratings = judged(store, rubrics["binary"], AnthropicBackend("claude-sonnet-5"))
    assert all(d["confidence"] == {"stated": 0.5} and "confidence_notes" not in d for d in ratings.values())


def test_recorded_answers_without_a_confidence_keep_their_scores_and_say_why(tmp_path: Path,
                                                                            rubrics: dict[str, Rubric]) -> None:
    answers = {"P01": {"label": "PASS", "critique": "an answer from before the confidence was asked for"},
               "P02": {"label": "FAIL", "critique": "c", "confidence": 1.5},
               "P03": {"label": "FAIL", "critique": "c", "confidence": 0.25}}
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps({"item_id": i, "answer": a}) + "\n" for i, a in answers.items()))
    with Store(tmp_path / "j.db") as store:
        add_binary_items(store, rubrics["binary"])
        judge = make_judge(store, rubrics["binary"], ReplayBackend(replay))
        judge.queue.enqueue_items(answers)
        state = asyncio.run(JudgeRunner(judge, fast()).run())
        ratings = {r.item_id: r for r in store.iter_ratings(rater_ids=[judge.rater_id])}
    assert (state.done, state.failed) == (3, 0)
    assert [ratings[i].scores["label"] for i in answers] == [1.0, 0.0, 0.0]
    assert ratings["P01"].details["confidence"] == {}
    assert ratings["P01"].details["confidence_notes"] == ["the answer gives no confidence"]
    assert ratings["P02"].details["confidence"] == {}
    assert ratings["P02"].details["confidence_notes"] == ["the confidence 1.5 is not between 0 and 1: left out"]
    assert ratings["P03"].details["confidence"] == {"stated": 0.25}
    assert "confidence_notes" not in ratings["P03"].details


# ---- the conversion by hand


def tokens(*pieces: tuple[str | bytes, float]) -> list[tuple[bytes, float]]:
    return [(p.encode() if isinstance(p, str) else p, lp) for p, lp in pieces]


def test_only_the_scores_tokens_count():
    text = '{"label": "PASS", "critique": "PASS is right", "confidence": 0.9}'
    pieces = tokens(('{"', -0.5), ("label", -0.5), ('": "', -0.5), ("PA", math.log(0.5)), ("SS", math.log(0.9)),
                    ('", "critique": "', -0.5), ("PASS", -3.0), (' is right", "confidence": 0.9}', -0.5))
    found, note = verdict_confidence(text, pieces, [("label",)])
    assert found == pytest.approx(0.45)
    assert note == ""


def test_a_character_split_between_tokens_is_read_by_its_bytes():
    text = '{"scores": {"tone": "très bien", "a": 1}, "reasoning": "é"}'
    encoded = text.encode()
    at = encoded.index("è".encode())
    # "è" is two bytes: one token ends after its first byte, the next starts with its second.
    pieces = [(encoded[:at + 1], -0.2), (encoded[at + 1:at + 8], math.log(0.5)), (encoded[at + 8:], -0.1)]
    assert encoded[at + 1:at + 8].endswith(b"bien")
    # The tone's span "très bien" meets the first two tokens (the third starts at its closing quote); "a" (1) lies
    # in the last.
    assert verdict_confidence(text, pieces, [("scores", "tone")])[0] == pytest.approx(math.exp(-0.2) * 0.5)
    assert verdict_confidence(text, pieces, [("scores", "a")])[0] == pytest.approx(math.exp(-0.1))


def test_the_value_spans_of_nested_repeated_and_escaped_keys():
    text = '{ "scores" : {"r": 0.75 , "a":"say \\"no\\""}, "r": 1, "reasoning": "{\\"r\\": 0}" }'
    spans = value_spans(text, [("scores", "r"), ("scores", "a"), ("r",)])
    assert spans is not None
    assert [text[a:b] for a, b in spans] == ["0.75", 'say \\"no\\"', "1"]
    assert value_spans('{"r": 1, "r": 0.5}', [("r",)]) == [(14, 17)]  # the last of a repeated key, as json.loads
    assert value_spans('{"a": 1}', [("r",)]) is None
    assert value_spans("[1, 2]", [("r",)]) is None
    assert value_spans('{"r": 1', [("r",)]) == [(6, 7)]  # unfinished after the value: the value is there


@pytest.mark.parametrize(("text", "pieces", "note"), [
    ('{"label": "PASS"}', [], "the server returned no token log-probabilities"),
    ('{"label": "PASS"}', tokens(('{"label": "FAIL"}', -0.1)),
     "the token log-probabilities do not spell the answer's text: left out"),
    ('{"verdict": "PASS"}', tokens(('{"verdict": "PASS"}', -0.1)),
     "a score could not be found in the answer's text: no token confidence"),
    ('{"label": "PASS"}', tokens(('{"label": "', 0.0), ("PASS", 0.3), ('"}', 0.0)),
     "a token's log-probability 0.3 is not a log of a probability: left out"),
])
def test_what_gives_no_token_confidence_says_why(text: str, pieces: list[tuple[bytes, float]], note: str):
    assert verdict_confidence(text, pieces, [("label",)]) == (None, note)
