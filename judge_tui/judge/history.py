"""Rubric and judge prompt versions, each with the reason it was made and the items that motivated it.

The rule, for rubrics and judge prompts alike:

* every distinct definition is a version (rubrics by their content hash, prompts by the judge's prompt
  version, a hash of template and rubric); ratings and judgments point at the version they were made under;
* a rubric version is what the experts are asked: the judge's own settings (its chosen few-shot examples,
  `[[examples]]`, its `few_shot_examples` count and its `judge_output_extras`) are left out of its hash and
  belong to the judge's prompt version, so changing them alone makes a judge version, never a rubric one, and
  every expert rating still compares;
* the first version of a rubric (or the first judge prompt of a rubric) needs no reason;
* every later version needs a reason and at least one motivating item. `judge-tui rubric-change` records a
  rubric change; the judge records a prompt change when run with `--reason` and `--items`;
* the judge refuses to run on an unrecorded change (rubric or prompt) and says which command records it;
  experts are never stopped from rating, but `judge-tui history` shows such a version as "no reason recorded"
  until `rubric-change` adds one;
* a prompt version whose template is unchanged and whose rubric version has a recorded reason takes that
  reason (the prompt changed because the rubric did), so a rubric change is recorded once.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.store import Store


def parse_items(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def check_reason(reason: str | None, items: list[str], store: Store, rubric_id: str, what: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise UserError(f"{what} needs a reason: pass --reason TEXT saying what changed and why")
    if not items:
        raise UserError(f"{what} needs the items that motivated it: pass --items ID,ID (e.g. --items B003,B007)")
    rubrics_of = store.item_rubrics(items)
    unknown = [i for i in items if i not in rubrics_of]
    if unknown:
        raise UserError(f"--items: {', '.join(unknown)} not in {store.path}; check the ids (`judge-tui export` "
                        f"lists items)")
    elsewhere = [i for i in items if rubrics_of[i] != rubric_id]
    if elsewhere:
        raise UserError(f"--items: {', '.join(elsewhere)} belong to another rubric, not {rubric_id}")
    return reason


def _short(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return stamp


# --------------------------------------------------------------------------- rubric versions


def needs_reason(store: Store, rubric: Rubric) -> dict[str, Any] | None:
    """The latest recorded version if `rubric` is a later, unexplained version of it; else None."""
    versions = store.rubric_versions(rubric.id)
    recorded = store.rubric_version_by_hash(rubric.content_hash)
    if recorded is not None:
        is_first = versions and versions[0]["id"] == recorded["id"]
        return None if is_first or recorded["reason"] else recorded
    return versions[-1] if versions else None


def record_rubric_change(store: Store, rubric: Rubric, reason: str | None, items: list[str]) -> int:
    """Record `rubric` as a new version with its reason (or add the reason to a version recorded without)."""
    reason = check_reason(reason, items, store, rubric.id, f"a change to rubric {rubric.id}")
    existing = store.rubric_version_by_hash(rubric.content_hash)
    if existing is not None and existing["reason"]:
        raise UserError(
            f"rubric {rubric.id} is unchanged since version #{existing['number']} ({_short(existing['created_at'])}, "
            f"reason: {existing['reason']}). Edit the rubric file (or pass --file NEW.rubric.toml) first."
        )
    if existing is not None:
        store.set_rubric_version_reason(existing["id"], reason, items)
        return int(existing["id"])
    return store.ensure_rubric_version(rubric, reason, items)


def record_definition(store: Store, rubric: Rubric, reason: str | None, items: list[str], *, prompt_version: str,
                      template: str, definition: Mapping[str, Any], in_force: str) -> tuple[str, int]:
    """`rubric-change`: a definition from the files put in force in this database on purpose, with its reason.

    What the experts are asked changed: a new rubric version (the existing drift rules say which earlier
    ratings still compare), and the judge's definition with it. Only the judge's part changed (its chosen
    examples, few-shot count, output extras or template): a new judge prompt version, and no rubric version.
    ``in_force`` is the judge prompt version the database uses now. Returns "rubric" or "judge", and the number
    of the rubric version the definition asks as."""
    reason = check_reason(reason, items, store, rubric.id, f"a change to rubric {rubric.id}")
    existing = store.rubric_version_by_hash(rubric.content_hash)
    with store.transaction():
        if existing is None or needs_reason(store, rubric) is not None:
            version_id = record_rubric_change(store, rubric, reason, items)
            number = version_number(store, version_id)
            store.record_prompt_version(rubric.id, prompt_version, version_id, template,
                                        f"rubric version #{number}: {reason}", items, definition)
            store.adopt_prompt_version(prompt_version)
            return "rubric", number
        if prompt_version == in_force:
            raise UserError(
                f"rubric {rubric.id} and its judge template are what {store.path} uses already (rubric version "
                f"#{existing['number']}, judge prompt {in_force}). Edit the rubric file or the judge template (or "
                "pass --file NEW.rubric.toml) first."
            )
        store.record_prompt_version(rubric.id, prompt_version, int(existing["id"]), template, reason, items,
                                    definition)
        store.adopt_prompt_version(prompt_version)
        return "judge", int(existing["number"])


def version_number(store: Store, version_id: int) -> int:
    """The number (1, 2, ...) of a recorded rubric version."""
    row = store.rubric_version(version_id)
    return int(row["number"]) if row is not None else 0


def require_recorded(
    store: Store, rubric: Rubric, *, prompt_version: str | None = None, template: str = "",
    reason: str | None = None, items: list[str] | None = None, definition: Mapping[str, Any] | None = None,
) -> int:
    """Before the judge runs: the rubric version id, refusing an unrecorded rubric or prompt change.

    With a reason (and items) the change is recorded instead. Used by `judge-tui judge`. The judge's
    ``definition`` is kept with its prompt version in this database the first time it is recorded here.
    """
    items = items or []
    stale = needs_reason(store, rubric)
    if stale is not None:
        if not reason:
            raise UserError(
                f"rubric {rubric.id} has changed since version #{stale['number']} ({_short(stale['created_at'])}) "
                f"and the change has no recorded reason. Record it first: judge-tui rubric-change {rubric.id} "
                f"--reason TEXT --items ID,ID (or pass --reason and --items to this command)"
            )
        version_id = record_rubric_change(store, rubric, reason, items)
    else:
        version_id = store.ensure_rubric_version(rubric)
    if prompt_version is not None:
        _require_prompt(store, rubric, version_id, prompt_version, template, reason, items, definition)
    return version_id


def _require_prompt(store: Store, rubric: Rubric, version_id: int, prompt_version: str, template: str,
                    reason: str | None, items: list[str], definition: Mapping[str, Any] | None) -> None:
    known = store.prompt_versions(rubric.id)
    if any(p["prompt_version"] == prompt_version for p in known):
        if definition is not None:  # recorded by an earlier release: its definition is kept from now on
            store.record_prompt_version(rubric.id, prompt_version, version_id, definition=definition)
        return
    if not known:
        store.record_prompt_version(rubric.id, prompt_version, version_id, template, (reason or "").strip(), items,
                                    definition)
        return
    last = known[-1]
    if reason:
        reason = check_reason(reason, items, store, rubric.id, f"a change to the {rubric.id} judge prompt")
        store.record_prompt_version(rubric.id, prompt_version, version_id, template, reason, items, definition)
        return
    same_template = last["template"] == template
    rubric_row = store.rubric_version(version_id)
    if same_template and template and rubric_row and rubric_row["reason"]:
        store.record_prompt_version(rubric.id, prompt_version, version_id, template,
                                    f"rubric version #{rubric_row['number']}: {rubric_row['reason']}",
                                    rubric_row["motivating_items"], definition)
        return
    raise UserError(
        f"the {rubric.id} judge prompt has changed since prompt version {last['prompt_version']} "
        f"({_short(last['created_at'])}) and the change has no recorded reason. Run the judge again with "
        f"--reason TEXT --items ID,ID saying what changed, why, and which items showed the need"
    )


# --------------------------------------------------------------------------- kept and reverted changes


def record_outcome(store: Store, rubric_id: str, outcome: str, before: str, after: str, reason: str = "",
                   items: list[str] | None = None) -> None:
    """Record that a change to the judge (prompt version `before` -> `after`) was kept or reverted, and why."""
    store.record_calibration_change(rubric_id, outcome, before, after, reason.strip(), list(items or []))


# --------------------------------------------------------------------------- history


def history_lines(store: Store, rubric_id: str | None = None) -> list[str]:
    """Every rubric and prompt version, oldest first per rubric, with dates, reasons, items and rating counts."""
    counts = store.rating_counts_by_version(rubric_id)
    rubric_ids = sorted({v["rubric"] for v in store.rubric_versions(rubric_id)} |
                        {p["rubric"] for p in store.prompt_versions(rubric_id)} |
                        {c["rubric"] for c in store.calibration_changes(rubric_id)})
    if not rubric_ids:
        return [f"no versions recorded{f' for rubric {rubric_id}' if rubric_id else ''} yet"]
    lines: list[str] = []
    for rid in rubric_ids:
        lines.append(f"rubric {rid}")
        versions = store.rubric_versions(rid)
        number_of = {v["id"]: v["number"] for v in versions}
        compared_as = store.compared_rubric_versions()
        entries = [("rubric", v) for v in versions] + [("prompt", p) for p in store.prompt_versions(rid)]
        entries += [("outcome", o) for o in store.calibration_changes(rid)]
        entries.sort(key=lambda e: e[1]["created_at"])
        first_rubric = True
        first_prompt = True
        for what, v in entries:
            if what == "outcome":
                # A revert's record goes from the tried version back to the earlier one.
                tried, other = ((v["before_version"], f"back to {v['after_version']}") if v["outcome"] == "reverted"
                                else (v["after_version"], f"over {v['before_version']}"))
                lines.append(f"  {v['outcome']}  {_short(v['created_at'])}  judge prompt {tried} ({other})")
                if v.get("reason"):
                    lines.append(f"      reason: {v['reason']}")
                if v.get("motivating_items"):
                    lines.append(f"      items: {', '.join(v['motivating_items'])}")
                continue
            if what == "rubric":
                human = counts.get((v["id"], "human"), 0)
                judge = counts.get((v["id"], "judge"), 0)
                lines.append(f"  #{v['number']}  {_short(v['created_at'])}  rubric version {v['number']} "
                             f"(label in the file: {v['version']}, hash {v['content_hash']}); ratings: "
                             f"{human} human, {judge} judge")
                same = compared_as.get(v["id"], v["id"])
                if same != v["id"]:  # recorded by an earlier release, which made the judge's settings a version
                    lines.append(f"      compared as #{number_of.get(same, '?')}: it differs only in the judge's "
                                 "settings (its chosen examples, few-shot count or output extras)")
                initial, first_rubric = first_rubric, False
            else:
                on = number_of.get(v["rubric_version_id"])
                lines.append(f"  prompt {v['prompt_version']}  {_short(v['created_at'])}  judge prompt on rubric "
                             f"version #{on if on is not None else '?'}")
                initial, first_prompt = first_prompt, False
            if v["reason"]:
                lines.append(f"      reason: {v['reason']}")
            elif initial:
                lines.append("      first version")
            elif what == "rubric":
                lines.append(f"      reason: NONE RECORDED (record it: judge-tui rubric-change {rid} --reason TEXT "
                             "--items ID,ID)")
            else:
                lines.append("      reason: NONE RECORDED (record it: run the judge with --reason TEXT --items ID,ID)")
            if v["motivating_items"]:
                lines.append(f"      items: {', '.join(v['motivating_items'])}")
    return lines
