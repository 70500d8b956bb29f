"""`judge-tui report` rendered whole from its sections' objects (full_report.FullReport): JSON built from them in
one go; text draws every table with Rich; Markdown joins the sections."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from judge_tui.analysis.full_report import FullReport
from judge_tui.analysis.judges import ChosenJudge
from judge_tui.analysis.report_render import validity as validity_format
from judge_tui.analysis.report_render.as_json import SCHEMA_VERSION, no_comparison_to_dict, report_to_dict
from judge_tui.analysis.report_render.as_markdown import render_markdown
from judge_tui.analysis.report_render.as_text import rich_sections
from judge_tui.analysis.report_render.biases import biases_blocks, biases_dict
from judge_tui.analysis.report_render.blocks import Block, Paragraph, lines_of, md, rich_of
from judge_tui.analysis.report_render.comparison import compare_blocks, comparison_to_dict
from judge_tui.analysis.report_render.flags import flag_row
from judge_tui.analysis.report_render.flags import render as render_flags
from judge_tui.analysis.report_render.jury import jury_blocks, jury_to_dict
from judge_tui.analysis.report_render.position_bias import blocks as position_blocks
from judge_tui.analysis.report_render.position_bias import to_dict as position_dict
from judge_tui.analysis.report_render.team import drift_blocks, drift_to_dicts, team_blocks, team_to_dict
from judge_tui.formats.terminal import output_width, render_plain


def render_full(full: FullReport, fmt: str, width: int | None = None) -> str:
    """The report in a format: "json", "markdown" or "text" (at ``width``, or fitted to standard output)."""
    if fmt == "json":
        data: dict[str, Any]
        if full.comparison is not None:
            data = {"schema_version": SCHEMA_VERSION,
                    "version_comparison": comparison_to_dict(full.comparison)}
        elif full.report is not None:
            data = {**report_to_dict(full.report), "judge_comparison": None}
        else:
            data = no_comparison_to_dict(
                full.rubric, full.split, full.settings,
                full.team.experts if full.team is not None else (), full.judge_comparison or "")
        if full.chosen_judge is not None:
            data["judge"] = full.chosen_judge.to_dict()
        if full.validity is not None:
            data["judge_validity"] = validity_format.to_dict(full.validity)
        if full.judge_biases:
            data["judge_biases"] = [biases_dict(b) for b in full.judge_biases]
        if full.judge_biases_missing:
            data["judge_biases_missing"] = full.judge_biases_missing
        if full.position_biases:
            data["position_bias"] = [position_dict(p, full.rubric) for p in full.position_biases]
        if full.team is not None:
            data["team"] = team_to_dict(full.team, full.split)
        if full.jury is not None:
            data["jury"] = jury_to_dict(full.jury)
        if full.expert_self_agreement:
            data["expert_self_agreement"] = drift_to_dicts(full.expert_self_agreement, full.settings)
        if full.flagged is not None:
            data["flagged_items"] = [flag_row(f) for f in full.flagged]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    blocks: list[Block] = []
    if full.comparison is not None:
        blocks += compare_blocks(full.comparison)
    if full.report is None and full.comparison is None:
        blocks.append(Paragraph((f"No judge comparison: {full.judge_comparison}",)))
    for b in full.judge_biases:
        blocks += biases_blocks(b)
    if full.judge_biases_missing:
        blocks.append(Paragraph((f"Judge biases: {full.judge_biases_missing}.",)))
    for p in full.position_biases:
        blocks += position_blocks(p, full.rubric)
    if full.team is not None:
        blocks += team_blocks(full.team)
    if full.jury is not None:
        blocks += jury_blocks(full.jury)
    if full.expert_self_agreement:
        blocks += drift_blocks(full.expert_self_agreement, full.rubric.scale, full.settings)
    named = full.chosen_judge
    # The judge the report compares is named first: by the heading of its validity page, which leads, else by a
    # line of its own; after the page, how it was chosen and the rubric's other judges.
    leads = _leads(full)
    if fmt == "markdown":
        lines = [render_markdown(full.report).rstrip("\n"), ""] if full.report is not None else []
        body = "\n".join(lines + lines_of(blocks, fmt))
        if named is not None:
            body = md(judge_paragraph(named, leads)) + "\n\n" + body
        if full.validity is not None:
            body = validity_format.render_markdown(full.validity) + "\n" + body
        if named is not None and not leads:
            body = md(named.line()) + "\n\n" + body
    else:
        sections = rich_sections(full.report) if full.report is not None else []
        body = render_plain([*sections, *rich_of(blocks)], width=width, gap=True, split=True)
        fit = min(width or output_width(), validity_format.WIDTH)
        if named is not None:
            body = _wrapped(judge_paragraph(named, leads), fit) + "\n" + body
        if full.validity is not None:  # first: the page fits the first screen of an 80-column terminal
            body = validity_format.render_text(full.validity, min(width or validity_format.WIDTH,
                                                                 validity_format.WIDTH)) + "\n" + body
        if named is not None and not leads:
            body = _wrapped(named.line(), fit) + "\n" + body
    if full.flagged is None:
        return body.rstrip("\n") + "\n"
    flagged = render_flags(list(full.flagged), "markdown" if fmt == "markdown" else "text",
                           width=(width or output_width()) if fmt == "text" else None)
    return body.rstrip("\n") + "\n\n" + flagged


def judge_paragraph(chosen: ChosenJudge, named_before: bool) -> str:
    """How the judge was chosen (the judge itself when not named before), the items it rated, and the rubric's
    other judges (reverted or under trial where they are) with how to compare one of them instead."""
    text = (chosen.line() if not named_before else f"The judge is {chosen.rater} ({chosen.why})")
    text = f"{text}; it rated {chosen.rated} item{'' if chosen.rated == 1 else 's'}."
    if chosen.others:
        others = ", ".join(f"{rater} ({rated}{'' if state in ('', 'kept') else ', ' + state})"
                           for rater, rated, state in chosen.others)
        text += f" Other judges (items): {others}. Compare another with --judge RATER or --judge VERSION."
    return text


def _leads(full: FullReport) -> bool:
    """Whether the validity page's first block is the judge the report compares (its heading then names it)."""
    named, page = full.chosen_judge, full.validity
    return named is not None and page is not None and bool(page.judges) and page.judges[0].judge == named.rater


def _wrapped(text: str, width: int) -> str:
    return textwrap.fill(text, width, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False) + "\n"
