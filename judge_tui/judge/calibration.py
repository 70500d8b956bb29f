"""Changing the judge from the judge screen: the texts it edits, the checks a change must pass, recording it,
and keeping or reverting it.

A study's changes live in the study's database: a change is the judge's whole definition (the rubric as the
judge reads it, the rubric's text and the judge template), kept with its new prompt version there and put in
force for that database alone. No file is written: the rubrics folder is only read (by a study's first run),
and `judge-tui rubric-export` writes the files when the lead wants them. The order on save is fixed: check the
new texts (rubric, template, chosen examples, one rendered prompt) and the reason, and only then record the
versions; a refused change leaves the database as it was. The change under trial (the two prompt versions) is
kept in the database, so the judge screen can keep or revert it after a restart. Revert puts the earlier
definition in force again and records the revert with its reason; both versions' judgments stay.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from judge_tui.judge.history import check_reason, record_outcome, require_recorded
from judge_tui.judge.prompts import (
    TEMPLATE_SUFFIX,
    JudgePrompt,
    PromptError,
    load_template,
    select_few_shot,
)
from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import (
    REPLACES_BUILT_IN,
    RUBRIC_SUFFIX,
    Rubric,
    RubricError,
    load_rubric,
)
from judge_tui.store import Store
from judge_tui.store.version_rows import TRIAL_META

LOOP_SPLIT = "dev"  # the loop's measurements; test is never used inside it, train gives the examples


@dataclass(frozen=True)
class JudgeTexts:
    """The two texts that define a rubric's judge in a study, as the judge screen edits them, and the names
    they go by (the names `rubric-export` writes them under)."""

    rubric: Path  # <id>.rubric.toml: a name for messages and for the file rubric-export writes
    template: Path  # <id>.judge.md
    rubric_text: str
    template_text: str

    def texts(self) -> tuple[str, str]:
        return self.rubric_text, self.template_text


def judge_texts(store: Store, rubric: Rubric) -> JudgeTexts:
    """The texts of the judge in force for `rubric` in this database: the ones it keeps, else (before the
    judge's definition is kept here) the rubric's files, read only. Refuses when no text of that definition is
    at hand (a version recorded from another file with `rubric-change --file` before the judge ran)."""
    try:
        prompt = JudgePrompt.for_rubric(rubric, store)
    except PromptError as exc:
        raise UserError(str(exc)) from None
    names = Path(f"{rubric.id}{RUBRIC_SUFFIX}"), Path(f"{rubric.id}{TEMPLATE_SUFFIX}")
    if not prompt.rubric_text:
        raise UserError(
            f"the text of rubric {rubric.id} as {store.path} uses it is not at hand to edit here (it was recorded "
            f"from a file before its judge ran); run the judge once (`judge-tui judge --rubric {rubric.id}`), or "
            f"record the file again with `judge-tui rubric-change {rubric.id} --file FILE --reason TEXT --items ID,ID`"
        )
    return JudgeTexts(*names, prompt.rubric_text, prompt.template.text)


def export_texts(store: Store, rubric: Rubric, folder: Path, *, overwrite: bool = False) -> list[Path]:
    """`judge-tui rubric-export`: the rubric file and judge template a database uses, written into `folder` (the
    one time judge-tui writes a rubric file: the lead asks for it). A built-in rubric's copy says on its first line
    that it replaces the built-in one on purpose. Refuses to replace a file unless ``overwrite``."""
    texts = judge_texts(store, rubric)
    targets = [folder / texts.rubric.name, folder / texts.template.name]
    there = [str(path) for path in targets if path.exists()]
    if there and not overwrite:
        raise UserError(f"{' and '.join(there)} already there: pass --overwrite to replace, or choose another "
                        "folder with --to")
    rubric_text = texts.rubric_text
    if (locations.prompts_dir() / texts.rubric.name).is_file() and not rubric_text.startswith(REPLACES_BUILT_IN):
        rubric_text = REPLACES_BUILT_IN + rubric_text
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for path, text in zip(targets, (rubric_text, texts.template_text), strict=True):
            path.write_bytes(text.encode("utf-8"))
    except OSError as exc:
        raise UserError(f"{folder}: cannot write ({exc.strerror})") from None
    return targets


# --------------------------------------------------------------------------- checking a change


@dataclass(frozen=True)
class CheckedChange:
    rubric: Rubric
    prompt: JudgePrompt
    rubric_text: str
    template_text: str


def check_examples(store: Store, rubric: Rubric, where: Path) -> None:
    """Every chosen example must be a train-split item of this rubric with that expert's rating (004: examples
    come from the train split only; dev and test measure the judge)."""
    for n, pin in enumerate(rubric.examples):
        field = f"{where}: field examples.{n}"
        item = store.item(pin.item)
        if item is None or item.rubric != rubric.id:
            raise UserError(f"{field}.item: no item {pin.item!r} of rubric {rubric.id} in {store.path}")
        if item.split != "train":
            raise UserError(refuse_split(pin.item, item.split, field=f"{field}.item"))
        rating = store.rating(pin.item, pin.rater)
        rater = store.rater(pin.rater)
        if rating is None or rater is None or rater["kind"] != "human":
            raise UserError(f"{field}.rater: {pin.rater!r} has no rating of {pin.item} to show as the example's "
                            "answer; name an expert who rated it")


def refuse_split(item_id: str, split: str | None, *, field: str = "") -> str:
    where = f"{field}: " if field else ""
    if split in ("dev", "test"):
        purpose = ("dev items measure each change to the judge" if split == "dev" else
                   "test items give the final, unbiased figure (`judge-tui report --split test`)")
        return (f"{where}{item_id} is in the {split} split and cannot be a few-shot example: examples come from the "
                f"train split only, and {purpose}. Choose a train item.")
    return (f"{where}{item_id} has no split, so it cannot be a few-shot example: examples come from the train "
            "split only. Assign splits with `judge-tui split`.")


def check_change(store: Store, current: Rubric, files: JudgeTexts, rubric_text: str,
                 template_text: str) -> CheckedChange:
    """The new definitions, checked as the judge would use them; a UserError names the file and the field."""
    with tempfile.TemporaryDirectory(prefix="judge-tui-check-") as folder:
        rubric_copy = Path(folder) / files.rubric.name
        template_copy = Path(folder) / files.template.name
        rubric_copy.write_bytes(rubric_text.encode("utf-8"))
        template_copy.write_bytes(template_text.encode("utf-8"))

        def named(message: str) -> str:  # the messages name the texts, not the copies checked
            return message.replace(str(rubric_copy), str(files.rubric)).replace(str(template_copy),
                                                                                str(files.template))

        try:
            rubric = load_rubric(rubric_copy)
        except RubricError as exc:
            raise UserError(named(str(exc))) from None
        if rubric.id != current.id:
            raise UserError(f"{files.rubric}: field id: the rubric is {current.id!r}, not {rubric.id!r}; a rubric's "
                            "id cannot change")
        check_examples(store, rubric, files.rubric)
        try:
            template = load_template(template_copy)
            prompt = JudgePrompt(rubric, template, select_few_shot(store, rubric, rubric.few_shot_examples))
            sample = next(iter(store.items_by_id(store.item_ids(rubric.id)[:1]).values()), None)
            if sample is not None:
                prompt.render(sample)
        except PromptError as exc:
            raise UserError(named(str(exc))) from None
        except KeyError as exc:
            raise UserError(f"{files.template}: the template cannot be filled in ({exc})") from None
    return CheckedChange(rubric, prompt, rubric_text, template_text)


# --------------------------------------------------------------------------- the change under trial


@dataclass(frozen=True)
class Trial:
    """A change to the judge being measured: its prompt versions before and after, with its reason."""

    rubric: str
    before: str  # prompt versions
    after: str
    reason: str
    items: tuple[str, ...]


def open_trial(store: Store, rubric_id: str) -> Trial | None:
    raw = store.get_meta(TRIAL_META.format(rubric=rubric_id))
    if not raw:
        return None
    try:
        found = json.loads(raw)
        known = {f.name for f in fields(Trial)}  # an earlier release kept the files' old bytes here too
        return Trial(**{**{k: v for k, v in found.items() if k in known}, "items": tuple(found["items"])})
    except (json.JSONDecodeError, TypeError, KeyError, AttributeError):
        return None


def _close_trial(store: Store, rubric_id: str) -> None:
    store.set_meta(TRIAL_META.format(rubric=rubric_id), "")


def current_prompt_version(store: Store, rubric: Rubric) -> str:
    return JudgePrompt.for_rubric(rubric, store).version


def apply_change(store: Store, current: Rubric, files: JudgeTexts, change: CheckedChange, reason: str,
                 items: list[str]) -> Trial:
    """Record the checked change in this database with its reason: the new version is in force for every
    command on this database from now on, and under trial until kept or reverted."""
    if open_trial(store, current.id) is not None:
        raise UserError("a change is still under trial: keep it or revert it first")
    before = JudgePrompt.for_rubric(current, store)
    after = change.prompt.version
    if after == before.version:
        raise UserError("nothing changed for the judge: the rubric and the judge template define the same prompt "
                        "as before (comments and layout in the rubric file do not count)")
    reason = check_reason(reason, items, store, current.id, f"a change to the {current.id} judge")
    trial = Trial(current.id, before.version, after, reason, tuple(items))
    definition = {"rubric": change.rubric.definition(), "rubric_text": change.rubric_text,
                  "template": change.template_text}
    with store.transaction():  # all or nothing: a database another program holds changes not at all
        # The definition in force until now is kept too, so a revert can put it back.
        store.record_prompt_version(current.id, before.version, store.ensure_rubric_version(current),
                                    before.template.digest, definition=before.definition())
        require_recorded(store, change.rubric, prompt_version=after, template=change.prompt.template.digest,
                         reason=reason, items=items, definition=definition)
        store.adopt_prompt_version(after)  # a change tried before (and reverted) is in force again
        store.set_meta(TRIAL_META.format(rubric=current.id), json.dumps(asdict(trial)))
    return trial


def keep(store: Store, trial: Trial, reason: str = "") -> None:
    """The change stays in force; the trial ends and `history` says it was kept."""
    with store.transaction():
        record_outcome(store, trial.rubric, "kept", trial.before, trial.after, reason or trial.reason,
                       list(trial.items))
        _close_trial(store, trial.rubric)


def revert(store: Store, trial: Trial, reason: str) -> None:
    """Put the definition in force before the change back, and record the revert with its reason."""
    if not reason.strip():
        raise UserError("a revert needs a reason: say why the change did not help")
    with store.transaction():
        record_outcome(store, trial.rubric, "reverted", trial.after, trial.before, reason, list(trial.items))
        _close_trial(store, trial.rubric)
        if not store.adopt_prompt_version(trial.before):  # nothing recorded: the transaction is rolled back
            raise UserError(
                f"prompt version {trial.before} was kept in files by an earlier judge-tui, not in {store.path}, so it "
                f"cannot be put back here: keep this change, then record the earlier rubric file with `judge-tui "
                f"rubric-change {trial.rubric} --file FILE --reason TEXT --items ID,ID`")


# --------------------------------------------------------------------------- choosing a few-shot example


def example_raters(store: Store, rubric: Rubric, item_id: str) -> list[str]:
    """Whose rating a few-shot example of this train item may carry: the experts' consensus first when there is
    one (the default), then each expert who rated it. Refuses an item outside the train split, with the reason,
    an item already chosen, and an item no expert has rated."""
    item = store.item(item_id)
    if item is None or item.rubric != rubric.id:
        raise UserError(f"no item {item_id!r} of rubric {rubric.id} in {store.path}")
    if item.split != "train":
        raise UserError(refuse_split(item_id, item.split))
    if any(pin.item == item_id for pin in rubric.examples):
        raise UserError(f"{item_id} is already a chosen example")
    experts = sorted(r["id"] for r in store.rubric_raters(rubric.id) if r["kind"] == "human" and r["id"] != "consensus")
    raters = [r for r in ("consensus", *experts) if store.rating(item_id, r) is not None]
    if not raters:
        raise UserError(f"{item_id} has no expert rating yet: an example shows an expert's rating, so rate it first")
    return raters


def example_block(item_id: str, rater: str, explanation: str) -> str:
    """The rubric file's [[examples]] entry for a chosen example."""
    return (f"[[examples]]\nitem = {json.dumps(item_id)}\nrater = {json.dumps(rater)}\n"
            f"explanation = {json.dumps(explanation, ensure_ascii=False)}\n")


def promote_example(store: Store, rubric: Rubric, rubric_text: str, item_id: str, explanation: str,
                    rater: str | None = None) -> str:
    """The rubric text with one more chosen example: a train item, an expert's rating of it (`rater`; the
    consensus when there is one, else the first expert, by default) and a one-line explanation.

    Refuses an item outside the train split, with the reason."""
    item_id = item_id.strip()
    raters = example_raters(store, rubric, item_id)
    explanation = " ".join(explanation.split())
    if not explanation:
        raise UserError("say in one line why the expert's rating of this item is right")
    if rater is None:
        rater = raters[0]
    elif rater not in raters:
        raise UserError(f"{rater!r} has no rating of {item_id}; choose one of {', '.join(raters)}")
    return rubric_text.rstrip("\n") + "\n\n" + example_block(item_id, rater, explanation)
