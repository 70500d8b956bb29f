"""`judge-tui report`: the agreement report, or with --items the item-by-item listing."""

from __future__ import annotations

import argparse
import sys

from judge_tui.analysis.full_report import build_full_report
from judge_tui.analysis.item_report import item_rows
from judge_tui.analysis.judges import judge_raters, judges_by_coverage
from judge_tui.analysis.report import ReportError, default_groups
from judge_tui.analysis.report_render.full import render_full
from judge_tui.analysis.report_render.items import (
    FORMAT_BY_SUFFIX,
    FORMATS,
    render_csv,
    render_jsonl,
    render_markdown,
)
from judge_tui.cli.commands import open_store, output_format, write_output
from judge_tui.cli.raters import parse_members, parse_raters
from judge_tui.formats.terminal import PIPE_WIDTH, for_terminal
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import load_settings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.store.rubric_choice import resolve_rubric


def pick_rubric(store: Store, name: str | None) -> Rubric:
    if name:
        return resolve_rubric(name, store)
    in_use = store.rubrics_in_use()
    if not in_use:
        raise ReportError(f"{store.path}: the database has no items yet; import some with "
                          "`judge-tui import FILE --rubric ID`, then ratings with `judge-tui import-ratings`")
    return resolve_rubric(in_use[0][0], store)


def say_which_judge(store: Store, rubric_id: str) -> None:
    """With several judges and no --raters, name the one compared (on stderr: the report itself stays as it is)."""
    if len(judge_raters(store, rubric_id)) < 2:  # nothing to say: the judges' ratings are not counted
        return
    judges = judges_by_coverage(store, rubric_id)
    total = store.count_items(rubric_id)
    others = ", ".join(f"{clean(rater)} ({rated})" for rater, rated in judges[1:])
    print(f"report: comparing with judge {clean(judges[0][0])}, which rated {judges[0][1]} of {total} items"
          f" (other judges: {others}); choose another with --raters HUMAN,JUDGE", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "items", False):
        return run_items(args)
    settings = load_settings().agreement
    by = [f.strip() for f in (getattr(args, "by", None) or "").split(",") if f.strip()]
    fmt = getattr(args, "format", "text") or "text"
    if fmt in ("csv", "jsonl"):
        raise UserError(f"--format {fmt} is for the item-by-item listing: add --items")
    destination = getattr(args, "output", None)
    width = PIPE_WIDTH if destination else None  # a file gets every table at its full width
    with open_store(args, create=False) as store:
        rubric = pick_rubric(store, getattr(args, "rubric", None))
        human = judge = None
        if getattr(args, "raters", None):
            human, judge = parse_raters(args.raters, store, rubric.id)
        compare = getattr(args, "compare", None)
        members = parse_members(args.jury, store, rubric.id) if getattr(args, "jury", None) else None
        full = build_full_report(store, rubric, human=human, judge=judge, split=args.split, by=by,
                                 settings=settings, compare=tuple(compare) if compare else None, jury=members)
        if full.report is not None and human is None:
            say_which_judge(store, rubric.id)  # once the report stands: a mistake is said alone
        output = render_full(full, fmt, width)
    if destination:
        try:
            destination.write_text(output, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{destination}: cannot write the report ({exc.strerror})") from None
        print(f"wrote the report to {destination} ({fmt})", file=sys.stderr)
    else:
        print(for_terminal(output), end="" if output.endswith("\n") else "\n")
    return 0


def run_items(args: argparse.Namespace) -> int:
    """`report --items`: the rendering asked for (format from --format or the -o file's name; default CSV)."""
    fmt = output_format(args.format, args.output, FORMAT_BY_SUFFIX, "csv")
    if fmt not in FORMATS:
        raise UserError(f"--items writes {', '.join(FORMATS)} (or a file named .csv, .jsonl or .md), "
                        f"not --format {fmt}")
    tolerance = load_settings().agreement.tolerance
    with open_store(args, create=False) as store:
        rubric = pick_rubric(store, args.rubric)
        human, judge = parse_raters(args.raters, store, rubric.id) if args.raters else default_groups(store, rubric.id)
        rows = item_rows(store, rubric, human, judge, args.split, tolerance)
    # On a terminal, nothing in a note may act on it (colours, titles, cursor moves); files keep the text exact.
    text = clean if args.output is None and sys.stdout.isatty() else str
    if fmt == "csv":
        output = render_csv(rows, text)
    elif fmt == "jsonl":
        output = render_jsonl(rows, text)
    else:
        output = render_markdown(rows, rubric, human, judge, tolerance)
    write_output(output, args.output, f"{len(rows)} item row(s) ({fmt})")
    return 0
