"""Changing the judge from the judge screen: its files, the checks a change must pass, recording it, and
keeping or reverting it.

A change is made to the user's copies of the rubric file and the judge template (the rubrics folder; the
built-in file is copied there the first time, byte for byte), so a built-in file is never edited. The order
on save is fixed: check the new texts (rubric, template, chosen examples, one rendered prompt) and the reason,
and only then write the files and record the versions; a refused change leaves files and database as they
were. The change under trial (the files as they were before it, the two prompt versions) is kept in the
database, so the judge screen can keep or revert it after a restart. Revert writes the earlier bytes back (or
removes a copy that did not exist, so the built-in file is in force again) and records the revert with its
reason; both versions' judgments stay in the database.
"""

from __future__ import annotations

import base64
import json
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from judge_tui.analysis.history import check_reason, record_outcome, require_recorded
from judge_tui.judge.prompts import (
    TEMPLATE_SUFFIX,
    JudgePrompt,
    PromptError,
    load_template,
    select_few_shot,
    template_path,
)
from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import (
    REPLACES_BUILT_IN,
    RUBRIC_SUFFIX,
    Rubric,
    RubricError,
    load_rubric,
    load_rubrics,
)
from judge_tui.store import Store
from judge_tui.store.version_rows import TRIAL_META

LOOP_SPLIT = "dev"  # the loop's measurements; test is never used inside it, train gives the examples


@dataclass(frozen=True)
class JudgeFiles:
    """The two files that define a rubric's judge, where a change is written, and where they are read now."""

    rubric: Path  # the user's rubric file (written on save)
    template: Path  # the user's judge template
    rubric_source: Path  # where the rubric is read from now (the user's file, or the built-in one)
    template_source: Path

    def texts(self) -> tuple[str, str]:
        """The texts to edit. A built-in rubric's starts with a line saying its copy replaces it on purpose."""
        rubric = _read(self.rubric_source)
        if self.rubric_source != self.rubric and not rubric.startswith(REPLACES_BUILT_IN):
            rubric = REPLACES_BUILT_IN + rubric
        return rubric, _read(self.template_source)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a UTF-8 text file") from None


def judge_files(rubric: Rubric) -> JudgeFiles:
    """The rubric's files. Refuses when the definition in force is not the one in its rubric file (a version
    recorded from another file with `rubric-change --file`): that text is not at hand to edit."""
    try:
        found = load_rubrics()
    except RubricError as exc:
        raise UserError(str(exc)) from None
    in_file, source = found.get(rubric.id, (None, None))
    user_rubric = locations.user_rubrics_dir() / f"{rubric.id}{RUBRIC_SUFFIX}"
    if in_file is None or source is None or in_file.judge_hash != rubric.judge_hash:
        raise UserError(
            f"the definition of rubric {rubric.id} in force in this database is not the one in a rubric file, so "
            f"it cannot be edited here; save it as {user_rubric} and record it with `judge-tui rubric-change "
            f"{rubric.id} --reason TEXT --items ID,ID`"
        )
    template = template_path(rubric.id)
    if template is None:
        raise UserError(f"no judge template for rubric {rubric.id!r}: add {rubric.id}{TEMPLATE_SUFFIX}")
    return JudgeFiles(user_rubric, locations.user_rubrics_dir() / f"{rubric.id}{TEMPLATE_SUFFIX}", source, template)


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


def check_change(store: Store, current: Rubric, files: JudgeFiles, rubric_text: str,
                 template_text: str) -> CheckedChange:
    """The new definitions, checked as the judge would use them; a UserError names the file and the field."""
    with tempfile.TemporaryDirectory(prefix="judge-tui-check-") as folder:
        rubric_copy = Path(folder) / files.rubric.name
        template_copy = Path(folder) / files.template.name
        rubric_copy.write_bytes(rubric_text.encode("utf-8"))
        template_copy.write_bytes(template_text.encode("utf-8"))

        def named(message: str) -> str:  # the messages name the real files, not the copies checked
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
    """A change to the judge being measured: before and after, and the files as they were before it."""

    rubric: str
    before: str  # prompt versions
    after: str
    reason: str
    items: tuple[str, ...]
    rubric_file: str
    template_file: str
    rubric_bytes: str  # base64 of the files before the change
    template_bytes: str
    rubric_was_file: bool = True  # False: the built-in file was in force, and the user's copy did not exist
    template_was_file: bool = True

    def old_bytes(self) -> tuple[bytes, bytes]:
        return base64.b64decode(self.rubric_bytes), base64.b64decode(self.template_bytes)

    def restore(self) -> None:
        """The user's files exactly as they were: their earlier bytes, or no file where there was none (the
        built-in one is in force again)."""
        old_rubric, old_template = self.old_bytes()
        _restore(Path(self.rubric_file), old_rubric, self.rubric_was_file)
        _restore(Path(self.template_file), old_template, self.template_was_file)


def _restore(path: Path, old: bytes, was_file: bool) -> None:
    if was_file:
        path.write_bytes(old)
    else:
        path.unlink(missing_ok=True)


def open_trial(store: Store, rubric_id: str) -> Trial | None:
    raw = store.get_meta(TRIAL_META.format(rubric=rubric_id))
    if not raw:
        return None
    try:
        found = json.loads(raw)
        return Trial(**{**found, "items": tuple(found["items"])})
    except (json.JSONDecodeError, TypeError, KeyError):
        return None


def _close_trial(store: Store, rubric_id: str) -> None:
    store.set_meta(TRIAL_META.format(rubric=rubric_id), "")


def current_prompt_version(store: Store, rubric: Rubric) -> str:
    return JudgePrompt.for_rubric(rubric, store).version


def apply_change(store: Store, current: Rubric, files: JudgeFiles, change: CheckedChange, reason: str,
                 items: list[str]) -> Trial:
    """Write the checked change to the user's files and record it with its reason: the new version is in force
    for every command from now on, and under trial until kept or reverted."""
    if open_trial(store, current.id) is not None:
        raise UserError("a change is still under trial: keep it or revert it first")
    before = current_prompt_version(store, current)
    after = change.prompt.version
    if after == before:
        raise UserError("nothing changed for the judge: the rubric and the judge template define the same prompt "
                        "as before (comments and layout in the rubric file do not count)")
    reason = check_reason(reason, items, store, current.id, f"a change to the {current.id} judge")
    old_rubric = files.rubric_source.read_bytes()
    old_template = files.template_source.read_bytes()
    trial = Trial(current.id, before, after, reason, tuple(items), str(files.rubric), str(files.template),
                  base64.b64encode(old_rubric).decode(), base64.b64encode(old_template).decode(),
                  files.rubric.is_file(), files.template.is_file())
    files.rubric.parent.mkdir(parents=True, exist_ok=True)
    # One transaction, taken before the files change: a database another program holds changes nothing at all.
    with store.transaction():
        try:
            files.rubric.write_bytes(change.rubric_text.encode("utf-8"))
            files.template.write_bytes(change.template_text.encode("utf-8"))
            if not store.prompt_versions(current.id):  # the judge never ran: its first version is history too
                store.record_prompt_version(current.id, before, store.ensure_rubric_version(current),
                                            _digest(old_template))
            require_recorded(store, change.rubric, prompt_version=after, template=change.prompt.template.digest,
                             reason=reason, items=items)
            store.set_meta(TRIAL_META.format(rubric=current.id), json.dumps(asdict(trial)))
        except BaseException:
            trial.restore()
            raise
    return trial


def _digest(raw: bytes) -> str:
    import hashlib

    return hashlib.sha256(raw).hexdigest()


def keep(store: Store, trial: Trial, reason: str = "") -> None:
    """The change stays in force; the trial ends and `history` says it was kept."""
    with store.transaction():
        record_outcome(store, trial.rubric, "kept", trial.before, trial.after, reason or trial.reason,
                       list(trial.items))
        _close_trial(store, trial.rubric)


def revert(store: Store, trial: Trial, reason: str) -> None:
    """Write the files back exactly as they were before the change and record the revert with its reason."""
    if not reason.strip():
        raise UserError("a revert needs a reason: say why the change did not help")
    with store.transaction():  # taken first: a database another program holds leaves the files as they are
        record_outcome(store, trial.rubric, "reverted", trial.after, trial.before, reason, list(trial.items))
        _close_trial(store, trial.rubric)
        trial.restore()


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
