"""Plain records passed between the store and the rest of judge-tui."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

RaterKind = Literal["human", "judge", "code"]
RATER_KINDS: tuple[str, ...] = ("human", "judge", "code")
SPLITS: tuple[str, ...] = ("train", "dev", "test")
DEFAULT_LEVEL = 0.1  # the judge's certificate's α and δ unless the lead gives others (certify, assign, judge screen)

REVIEWER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,39}")
CONSENSUS_RATER = "consensus"  # the lead's adjudicated ratings (judge-tui adjudicate)
# Ids judge-tui itself gives a rater, with what they stand for: no expert, file or merge may take them.
RESERVED_RATER_IDS = {CONSENSUS_RATER: "it is the id of the lead's adjudicated consensus (judge-tui adjudicate)"}
MAX_RATER_ID_LENGTH = 200
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def reviewer_problem(reviewer: str) -> str | None:
    """Why a reviewer (expert) id cannot be used, or None if it can."""
    return rater_id_problem(reviewer, "human")


def rater_id_problem(rater_id: object, kind: str) -> str | None:
    """Why `rater_id` cannot be the id of a rater of this kind, or None if it can.

    The one rule for every road a rater comes in by: the app's welcome, `rate --reviewer`, `assign --experts`,
    `import-ratings` (--rater, the file's rater or expert_id), merges and bundles. An expert's id is typed
    at the prompt and shown in narrow columns: 1 to 40 letters, digits or _ . @ -. A judge's id holds its
    model's name (`judge:MODEL:RUBRIC@PROMPT`), which may hold other characters, such as / in
    meta-llama/Llama-3.1-8B, but never a line break, a terminal escape or a whole page of text.
    """
    if not isinstance(rater_id, str) or not rater_id.strip():
        return "a rater id is text and cannot be empty"
    if rater_id in RESERVED_RATER_IDS:
        return f"{rater_id!r} is reserved: {RESERVED_RATER_IDS[rater_id]}"
    if rater_id.casefold() in RESERVED_RATER_IDS:  # "Consensus" reads as the consensus to every person
        folded = rater_id.casefold()
        return f"{rater_id!r} is {folded!r} in other capitals, which is reserved: {RESERVED_RATER_IDS[folded]}"
    if kind == "human":
        if not REVIEWER_ID.fullmatch(rater_id):
            return ("a reviewer id is 1 to 40 letters, digits or _ . @ - (no spaces, no /), starting with a letter "
                    "or digit, e.g. EXP001")
        return None
    if _UNPRINTABLE.search(rater_id):
        return "a rater id cannot hold line breaks, tabs or terminal escapes"
    if len(rater_id) > MAX_RATER_ID_LENGTH:
        return f"a rater id is at most {MAX_RATER_ID_LENGTH} characters, not {len(rater_id)}"
    if rater_id != rater_id.strip():
        return "a rater id cannot start or end with spaces"
    return None
# Bounds on what a rating can claim: past them a value is a slip (minutes in a seconds column, a stray exponent).
MAX_SECONDS = 7 * 24 * 3600.0  # a week of active time on one item
MAX_REPEAT = 1000


def canonical_json(fields: dict[str, Any]) -> str:
    """The one serialisation of an item's fields that its content hash is computed from."""
    return json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def hash_of_canonical(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def content_hash(fields: dict[str, Any]) -> str:
    """Identifies an item's content, whatever its id or split, so merges can spot two versions of one id."""
    return hash_of_canonical(canonical_json(fields))


@dataclass(frozen=True)
class Item:
    id: str
    rubric: str
    fields: dict[str, Any]
    task_type: str | None = None
    split: str | None = None
    position: int = 0
    content_hash: str = ""


@dataclass(frozen=True)
class Rating:
    """One rater's scores for one item under one rubric version (repeat > 0 for a judge's extra runs)."""

    item_id: str
    rater_id: str
    rubric_version_id: int
    scores: dict[str, float]
    overall: float | None = None
    verdict: str | None = None
    notes: str = ""
    seconds: float | None = None  # active time spent; None when not known (a file without times)
    repeat: int = 0
    source: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    flagged: bool = False  # raised for discussion by the rater, with an optional reason
    flag_reason: str = ""
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True)
class Draft:
    """The rating screen's unsaved-yet work on an item: kept on disk after every change."""

    item_id: str
    rater_id: str
    scores: dict[str, float] = field(default_factory=dict)
    notes: str = ""
    seconds: float = 0.0
    skipped: bool = False
    flagged: bool = False
    flag_reason: str = ""
    updated_at: str = ""


@dataclass(frozen=True)
class Flag:
    """An item a rater raised for discussion, and where their work on it stands."""

    item_id: str
    rater_id: str
    reason: str
    state: str  # "rated", "skipped" or "unrated"
    updated_at: str
    rubric: str
    task_type: str | None
    split: str | None
