"""The CIS study's rating_form.json, filled in by an expert.

{"expert_name", "expert_id", "study_date", "ratings": [{"submission_id", "task_type", "r_score", "a_score",
"t_score", "l_score", "expert_cis", "notes", "time_spent_minutes", "flagged", "flag_reason"}], "summary_notes",
"total_time_minutes", "completion_date", "bonus_eligible"}. A key "<dimension>_score" scores that dimension;
"flagged" and "flag_reason" (judge-tui's own forms carry them) say the expert raised the item for discussion.
An item the expert skipped or flagged without rating it is not a "ratings" entry (a strict reader of the
form wants every score there) but one of the top-level "unrated" list: {"submission_id", "task_type",
"skipped", "flagged", "flag_reason"}; older forms held such entries, without scores, in "ratings", and are
still read. "total_time_minutes" is the sum of the entries' "time_spent_minutes", so the two agree exactly.

The writers (``rating_entry``, ``mark_entry``, ``form``, ``write``) give judge-tui's own forms this shape.
"""

from __future__ import annotations

import io
import json
from typing import Any

from judge_tui.formats import Parsed, Problem, RatingRecord
from judge_tui.formats.numbers import short_text
from judge_tui.formats.text import load_json, source_lines
from judge_tui.model.records import MAX_SECONDS, Draft, Rating

FORM_KEYS = ("expert_name", "expert_id", "study_date", "summary_notes", "total_time_minutes", "completion_date",
             "bonus_eligible")
SCORE_SUFFIX = "_score"
FORM_DATES = ("study_date", "completion_date")  # kept per expert and rubric on import, written back on export
TEXT_KEYS = ("expert_name", "summary_notes")  # kept on import: text or nothing, never another shape


def scores_of(row: dict[str, Any]) -> dict[str, Any]:
    """{"r": 0.75, ...} from {"r_score": 0.75, ...}."""
    return {key[: -len(SCORE_SUFFIX)]: value for key, value in row.items()
            if key.endswith(SCORE_SUFFIX) and len(key) > len(SCORE_SUFFIX)}


def read_rows(text: str, *, notes_key: str, describe: str) -> Parsed:
    """The {"ratings": [...]} structure shared by the rating form and the judge's output."""
    parsed = Parsed()
    top = load_json(text)
    if not isinstance(top, dict) or not isinstance(top.get("ratings"), list):
        parsed.problems.append(Problem(1, f"expected {describe}: an object with a \"ratings\" array"))
        return parsed
    parsed.meta.update({key: top[key] for key in FORM_KEYS if key in top})
    for key in (*FORM_DATES, *TEXT_KEYS):
        value = top.get(key)
        if value is not None and not isinstance(value, str):
            what = "a date written as text (e.g. \"2025-03-14\")" if key in FORM_DATES else "text"
            parsed.problems.append(Problem(_line_of_key(text, key), f"\"{key}\" must be {what}, not {value!r}"))
    unrated = top.get("unrated", [])
    if not isinstance(unrated, list):
        parsed.problems.append(Problem(_line_of_key(text, "unrated"), "\"unrated\" must be a list of entries"))
        unrated = []
    lines = [*source_lines(text, ("ratings",), len(top["ratings"])), *source_lines(text, ("unrated",), len(unrated))]
    listed = len(top["ratings"])
    for index, (line, row) in enumerate(zip(lines, [*top["ratings"], *unrated], strict=True)):
        where = "ratings" if index < listed else "unrated"
        if not isinstance(row, dict):
            parsed.problems.append(Problem(line, f"a \"{where}\" entry is not an object"))
            continue
        if where == "unrated" and (scores_of(row) or not (row.get("skipped") or row.get("flagged"))):
            parsed.problems.append(Problem(line, "an \"unrated\" entry is an item skipped or flagged without a "
                                                 "rating: \"skipped\" or \"flagged\" true, and no scores"))
            continue
        if "submission_id" not in row:
            parsed.problems.append(Problem(line, "missing required field \"submission_id\""))
            continue
        minutes = row.get("time_spent_minutes")
        seconds = None
        if minutes is not None:
            if isinstance(minutes, bool) or not isinstance(minutes, int | float) \
                    or not 0 <= minutes <= MAX_SECONDS / 60:
                parsed.problems.append(Problem(line, f"time_spent_minutes must be a number of minutes from 0 to "
                                                     f"{short_text(MAX_SECONDS / 60)}, not {minutes!r}"))
                continue
            seconds = float(minutes) * 60.0
        notes = row.get(notes_key)
        details = {"task_type": row["task_type"]} if isinstance(row.get("task_type"), str) else {}
        parsed.records.append(RatingRecord(
            line=line, item_id=row["submission_id"], scores=scores_of(row),
            notes=notes if isinstance(notes, str) else "", seconds=seconds, details=details,
            stated_overall=row.get("expert_cis"), flagged=row.get("flagged", False),
            flag_reason=row.get("flag_reason", ""), skipped=row.get("skipped", False),
        ))
        if notes is not None and not isinstance(notes, str):
            parsed.problems.append(Problem(line, f"\"{notes_key}\" must be text"))
    return parsed


def _line_of_key(text: str, key: str) -> int:
    """The line of a top-level key's first mention (1 if it cannot be found)."""
    at = text.find(f'"{key}"')
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def read(text: str) -> Parsed:
    return read_rows(text, notes_key="notes", describe="a rating form (rating_form.json)")


# --------------------------------------------------------------------------- writing


def minutes(seconds: float | None) -> float | int | None:
    """Seconds as the form's minutes: whole minutes as an integer, otherwise to the hundredth."""
    if seconds is None:
        return None
    value = seconds / 60.0
    return int(value) if value == int(value) else round(value, 2)


def rating_entry(rating: Rating, task_type: str | None, scores: dict[str, float | str], overall_key: str,
                 overall: float | str | None) -> dict[str, Any]:
    """One rating as a "ratings" entry; scores and overall as exported, overall_key names the overall (e.g.
    expert_cis)."""
    entry: dict[str, Any] = {"submission_id": rating.item_id, "task_type": task_type}
    entry.update({f"{d}{SCORE_SUFFIX}": v for d, v in scores.items()})
    entry[overall_key] = overall
    entry["notes"] = rating.notes
    entry["time_spent_minutes"] = minutes(rating.seconds)
    entry["flagged"] = rating.flagged
    entry["flag_reason"] = rating.flag_reason
    return entry


def mark_entry(mark: Draft, task_type: str | None) -> dict[str, Any]:
    """No scores: an entry the form's readers tell apart from a rating."""
    return {"submission_id": mark.item_id, "task_type": task_type, "skipped": mark.skipped,
            "flagged": mark.flagged, "flag_reason": mark.flag_reason}


def total_minutes(seconds: list[float | None]) -> float | int | None:
    """The form's total_time_minutes: the sum of the items' minutes as written, so that a reader adding them up
    finds the same total (null when no item's time is known)."""
    known = [minutes(s) for s in seconds if s is not None]
    if not known:
        return None
    total = round(sum(m for m in known if m is not None), 2)
    return int(total) if total == int(total) else total


def form(*, expert_name: str, expert_id: str, study_date: str, entries: list[dict[str, Any]],
         unrated: list[dict[str, Any]], summary_notes: str, known_seconds: list[float | None],
         completion_date: str) -> dict[str, Any]:
    """The whole form; items skipped or flagged without a rating go in "unrated", only when there are any."""
    whole: dict[str, Any] = {
        "expert_name": expert_name,
        "expert_id": expert_id,
        "study_date": study_date,
        "ratings": entries,
        "summary_notes": summary_notes,
        "total_time_minutes": total_minutes(known_seconds),
        "completion_date": completion_date,
    }
    if unrated:
        whole["unrated"] = unrated
    return whole


def write(out: io.TextIOBase, rating_form: dict[str, Any]) -> None:
    out.write(json.dumps(rating_form, ensure_ascii=False, indent=2) + "\n")
