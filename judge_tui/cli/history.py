"""`judge-tui rubric-change`, `rubric-export` and `history`: adopt a rubric file with its reason; write the files a
database uses; list every version."""

from __future__ import annotations

import argparse
from pathlib import Path

from judge_tui.cli.commands import open_store
from judge_tui.formats.terminal import echo
from judge_tui.judge.calibration import export_texts
from judge_tui.judge.history import history_lines, parse_items, record_definition
from judge_tui.judge.prompts import (
    TEMPLATE_SUFFIX,
    JudgePrompt,
    PromptError,
    load_template,
    rubric_file_text,
    template_path,
)
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric, RubricError, get_rubric, is_rubric_path, load_rubric
from judge_tui.store.rubric_choice import resolve_rubric


def run_rubric_change(args: argparse.Namespace) -> int:
    """Put a rubric file's definition (and the judge template beside it) in force in this database only, on
    purpose: other databases keep their own version, and no file is copied."""
    items = parse_items(args.items)
    with open_store(args, create=False) as store:
        rubric = _file_rubric(args.rubric, args.file)
        try:
            template = template_path(rubric.id)
            if template is None:
                raise PromptError(f"no judge template for rubric {rubric.id!r}: add {rubric.id}{TEMPLATE_SUFFIX}")
            prompt = JudgePrompt(rubric, load_template(template), [], _read_text(args.file) if args.file else
                                 rubric_file_text(rubric))
            in_force = JudgePrompt.for_rubric(resolve_rubric(rubric.id, store, notice=False), store).version
        except PromptError as exc:
            raise UserError(str(exc)) from None
        kind, number = record_definition(store, rubric, args.reason, items, prompt_version=prompt.version,
                                         template=prompt.template.digest, definition=prompt.definition(),
                                         in_force=in_force)
    if kind == "rubric":
        print(f"recorded rubric {rubric.id} version #{number} (hash {rubric.content_hash}) in {store.path}; "
              f"motivated by {', '.join(items)}.")
    else:
        print(f"recorded judge prompt {prompt.version} of rubric {rubric.id} in {store.path}: only the judge's part "
              f"changed (its examples, settings or template), so what the experts are asked is still rubric version "
              f"#{number} and every rating compares; motivated by {', '.join(items)}.")
    print(f"Every command on {store.path} uses this definition from now on; other databases keep their own "
          f"version of {rubric.id}.")
    return 0


def _file_rubric(rubric_id: str, file: Path | None) -> Rubric:
    """The rubric file the lead adopts: --file, else the rubric file of that id (rubrics folder, then built-in)."""
    try:
        rubric = load_rubric(Path(file)) if file else get_rubric(rubric_id)
    except RubricError as exc:
        raise UserError(str(exc)) from None
    if rubric.id != rubric_id and not is_rubric_path(rubric_id):
        raise UserError(f"{file} defines rubric {rubric.id!r}, not {rubric_id!r}")
    return rubric


def _read_text(path: Path) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def run_rubric_export(args: argparse.Namespace) -> int:
    """Write the rubric file and judge template a database uses, where the lead asks."""
    with open_store(args, create=False) as store:
        written = export_texts(store, resolve_rubric(args.rubric, store, notice=False), Path(args.to),
                               overwrite=args.overwrite)
    for path in written:
        echo(f"wrote {path}")
    return 0


def run_history(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        for line in history_lines(store, getattr(args, "rubric", None)):
            echo(line)
    return 0
