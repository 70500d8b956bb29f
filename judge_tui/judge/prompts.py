"""Render the judge prompt for a rubric and an item.

Every judge prompt is built from four parts: who the judge is and the terms the rubric relies on, the criteria (dimensions,
what each scale point means, guidance per task type and the task constraints), worked examples taken only
from train-split items that a human has rated, and a strict answer format. The first three parts and the
format do not depend on the item, so they form one stable block sent as the system prompt with
`cache_control`: calls after the first read it from the cache. The item comes last, in the user message.

The wording lives in `prompts/<rubric>.judge.md`; this module fills in what comes from the rubric. The
prompt version is a hash of the template and the rubric, so any change to either makes a new judge rater.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from judge_tui.formats.numbers import short_text, word_for
from judge_tui.judge.schema import CONFIDENCE_KEY, LIST_EXTRAS, Layout, OutputFormat
from judge_tui.model import locations
from judge_tui.model.records import Item, Rating
from judge_tui.model.rubrics import Rubric, RubricError, load_rubrics, warn_once
from judge_tui.store import Store
from judge_tui.store.rubric_choice import stored_judge

TEMPLATE_SUFFIX = ".judge.md"
GENERIC_TEMPLATE = "generic"
ITEM_MARKER = "<!-- item -->"
PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
SYSTEM_PLACEHOLDERS = {"definitions", "criteria", "examples", "output_format", "rubric_name"}
ITEM_PLACEHOLDERS = {"item", "rubric_name"}


class PromptError(Exception):
    """A judge template that cannot be used; the message names the file and the problem."""


# --------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class JudgeTemplate:
    path: Path
    system_text: str
    item_text: str
    layout: str = "scores"
    score_key: str = "{id}"
    max_tokens: int = 4096
    digest: str = ""
    text: str = ""  # the template as written, kept with the judge's definition in the study's database


def template_path(rubric_id: str) -> Path | None:
    """The rubric's own template (user folder first, then the bundled one), else the generic template."""
    for folder in (locations.user_rubrics_dir(), locations.prompts_dir()):
        candidate = folder / f"{rubric_id}{TEMPLATE_SUFFIX}"
        if candidate.is_file():
            return candidate
    generic = locations.prompts_dir() / f"{GENERIC_TEMPLATE}{TEMPLATE_SUFFIX}"
    return generic if generic.is_file() else None


def _name_a_changed_template(store: Store, rubric_id: str, kept: str) -> None:
    """Say once that the user's template file differs from the one this database keeps, and how to adopt it."""
    path = locations.user_rubrics_dir() / f"{rubric_id}{TEMPLATE_SUFFIX}"
    try:
        differs = path.is_file() and path.read_bytes().decode("utf-8") != kept
    except (OSError, UnicodeDecodeError):
        differs = True
    if differs:
        warn_once(f"{path} differs from the judge template {store.path} keeps for rubric {rubric_id}; this database "
                  f"keeps its own. To use the file here on purpose: judge-tui rubric-change {rubric_id} --reason TEXT "
                  f"--items ID,ID --db {store.path}")


def rubric_file_text(rubric: Rubric) -> str:
    """The text of the rubric file that defines exactly `rubric` for the judge, or "" when no file does."""
    try:
        found = load_rubrics().get(rubric.id)
        if found is not None and found[0].judge_hash == rubric.judge_hash:
            return found[1].read_bytes().decode("utf-8")
    except (RubricError, OSError, UnicodeDecodeError):
        pass
    return ""


def load_template(path: Path) -> JudgeTemplate:
    """Read a template file (see parse_template)."""
    try:
        return parse_template(path.read_bytes().decode("utf-8"), path)
    except OSError as exc:
        raise PromptError(f"{path}: cannot read judge template ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise PromptError(f"{path}: not a UTF-8 text file") from None


def parse_template(written: str, path: Path) -> JudgeTemplate:
    """A template: optional TOML front matter between +++ lines, the stable part, the item marker, the item part.
    ``path`` names where it comes from in messages."""
    raw, text = written.encode("utf-8"), written
    options: dict[str, Any] = {}
    if text.startswith("+++\n"):
        end = text.find("\n+++\n", 4)
        if end < 0:
            raise PromptError(f"{path}: front matter opened with +++ is never closed")
        try:
            options = tomllib.loads(text[4:end])
        except tomllib.TOMLDecodeError as exc:
            raise PromptError(f"{path}: front matter is not valid TOML ({exc})") from None
        text = text[end + 5 :]
    unknown = set(options) - {"layout", "score_key", "max_tokens"}
    if unknown:
        raise PromptError(f"{path}: unknown front matter keys {sorted(unknown)}; known: layout, score_key, max_tokens")
    if text.count(ITEM_MARKER) != 1:
        raise PromptError(f"{path}: needs exactly one {ITEM_MARKER} line between the stable part and the item part")
    system_text, item_text = (part.strip("\n") for part in text.split(ITEM_MARKER))
    for part_name, part, allowed in (("stable", system_text, SYSTEM_PLACEHOLDERS), ("item", item_text, ITEM_PLACEHOLDERS)):
        bad = set(PLACEHOLDER.findall(part)) - allowed
        if bad:
            raise PromptError(
                f"{path}: unknown {word_for(len(bad), 'placeholder')} {sorted(bad)} in the {part_name} part;"
                f" allowed: {sorted(allowed)}"
            )
    if "{{item}}" not in item_text.replace(" ", ""):
        raise PromptError(f"{path}: the item part must contain {{{{item}}}}")
    return JudgeTemplate(
        path=path,
        system_text=system_text,
        item_text=item_text,
        layout=str(options.get("layout", "scores")),
        score_key=str(options.get("score_key", "{id}")),
        max_tokens=int(options.get("max_tokens", 4096)),
        digest=hashlib.sha256(raw).hexdigest(),
        text=written,
    )


def prompt_version(rubric: Rubric, template: JudgeTemplate) -> str:
    """Changes whenever the template or the rubric file changes, the judge's own settings (examples) included."""
    return hashlib.sha256(f"{template.digest}:{rubric.judge_hash}".encode()).hexdigest()[:12]


def _fill(text: str, values: dict[str, str]) -> str:
    # One pass: text coming from items or rubrics is never scanned for placeholders again.
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


# --------------------------------------------------------------------------- few-shot examples


@dataclass(frozen=True)
class FewShotExample:
    item: Item
    rating: Rating
    explanation: str = ""  # a chosen example's one line on why its rating is right


def example_count(rubric: Rubric) -> int:
    """How many examples a prompt shows: the rubric's count, or all its chosen examples if there are more."""
    return max(rubric.few_shot_examples, len(rubric.examples))


def chosen_examples(store: Store, rubric: Rubric) -> list[FewShotExample]:
    """The rubric's chosen examples (`[[examples]]`) still usable: a train-split item with that expert's rating."""
    chosen = []
    for pin in rubric.examples:
        item = store.item(pin.item)
        rating = store.rating(pin.item, pin.rater)
        if item is not None and item.split == "train" and rating is not None:
            chosen.append(FewShotExample(item, rating, pin.explanation))
    return chosen


def select_few_shot(store: Store, rubric: Rubric, count: int, spare: int = 1) -> list[FewShotExample]:
    """Up to count + spare train-split items with a complete human rating, spread over the labels.

    Only the train split is ever used. The rubric's chosen examples come first (all of them, even beyond
    count); the rest are taken in import order, alternating between verdicts
    (or PASS/FAIL labels) so the examples show both sides of the boundary when the data has them.
    """
    chosen = chosen_examples(store, rubric)
    count = max(count, len(chosen))
    if count <= 0:
        return []
    wanted = count + spare
    judged = [d.id for d in rubric.judged_dimensions]
    by_label: dict[str, list[FewShotExample]] = {}
    seen: set[str] = {ex.item.id for ex in chosen}
    for rating in store.iter_ratings(rubric=rubric.id, kind="human", split="train"):
        if rating.item_id in seen or any(d not in rating.scores for d in judged):
            continue
        item = store.item(rating.item_id)
        if item is None or item.split != "train":
            continue
        seen.add(rating.item_id)
        label = rating.verdict or ""
        by_label.setdefault(label, []).append(FewShotExample(item, rating))
        if len(seen) >= wanted * 8 + len(chosen):  # enough to choose from; never read a whole large split
            break
    queues = list(by_label.values())
    while len(chosen) < wanted and any(queues):
        for queue in queues:
            if queue and len(chosen) < wanted:
                chosen.append(queue.pop(0))
    return chosen


# --------------------------------------------------------------------------- rendering


def _fence(text: str, language: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


def render_item_fields(rubric: Rubric, fields: dict[str, Any]) -> str:
    """The item as the judge sees it: only the fields the rubric declares, never anything else it carries."""
    parts: list[str] = []
    for f in rubric.fields:
        value = fields.get(f.name)
        if value is None or value == "":
            if f.required:
                parts.append(f"### {f.label}\n(empty)")
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if f.kind == "code":
            text = _fence(text, f.language or "")
        elif f.kind in ("output", "xml"):
            text = _fence(text, "xml" if f.kind == "xml" else "")
        parts.append(f"### {f.label}\n{text}")
    computed = rubric.code_scores(fields)
    if computed:
        lines = [f"- {rubric.dimension(d).name}: {rubric.scale.label(v)}" for d, v in computed.items()]
        parts.append("### Computed by the program (for reference; do not score these)\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _definitions(rubric: Rubric) -> str:
    lines = [f"- **{d.term}**: {d.meaning}" for d in rubric.definitions]
    lines += [f"- **{d.name}**: {d.measures}" for d in rubric.dimensions]
    return "\n".join(lines)


def _criteria(rubric: Rubric, output: OutputFormat) -> str:
    scale = rubric.scale
    out: list[str] = []
    allowed = ", ".join(scale.labels)
    out.append(f"Every judged dimension gets one value from this scale: {allowed}.")
    if scale.anchors:
        out.append("What the values mean, unless a dimension says otherwise:\n" + "\n".join(
            f"- {label}: {scale.anchors[label]}" for label in scale.labels if label in scale.anchors))
    for d in rubric.judged_dimensions:
        block = [f"### {d.name} (answer key `{output.keys[d.id]}`)", d.measures]
        if d.questions:
            block.append("Ask yourself:\n" + "\n".join(f"- {q}" for q in d.questions))
        if d.anchors:
            block.append("What the values mean here:\n" + "\n".join(
                f"- {label}: {meaning}" for label, meaning in rubric.anchors(d).items()))
        if d.threshold is not None:
            block.append(f"Acceptable from {short_text(d.threshold)} upwards.")
        if d.guidance:
            block.append("By task type:\n" + "\n".join(f"- {task}: {text}" for task, text in d.guidance.items()))
        out.append("\n".join(block))
    if rubric.code_dimensions:
        names = ", ".join(d.name for d in rubric.code_dimensions)
        out.append(f"{names} is computed by the program; it is shown with the item and you do not score it.")
    if rubric.task_types:
        lines = []
        for t in rubric.task_types:
            constraints = "".join(f"\n  - {c}" for c in t.constraints)
            lines.append(f"- **{t.name}**: {t.summary}{constraints}")
        out.append("### Task types and their constraints\n" + "\n".join(lines))
    if rubric.instructions.strip():
        out.append("### Ground rules\n" + rubric.instructions.strip())
    return "\n\n".join(part for part in out if part)


def _output_format(rubric: Rubric, output: OutputFormat) -> str:
    keys = list(output.example())
    lines = [
        "Reply with exactly one JSON object and nothing else: no text before or after it, no code fence.",
        f"Use these keys in this order: {', '.join(keys)}.",
        f"Each score must be one of {', '.join(rubric.scale.labels)} ({rubric.scale.answer_wording}).",
        "An answer of any other shape is discarded as a failed judgment.",
        f"Last, `{CONFIDENCE_KEY}`: your probability, a number from 0 to 1, that expert reviewers applying this "
        "rubric would give exactly the scores you gave. Say how sure you are, not how good the response is; "
        "0.5 means a coin toss. The worked examples are the experts' own answers, so they carry no confidence; "
        "yours always does.",
        "",
        json.dumps(output.example(), ensure_ascii=False, indent=2),
    ]
    return "\n".join(lines)


@dataclass(frozen=True)
class RenderedPrompt:
    system: str
    user: str
    few_shot_ids: tuple[str, ...] = ()

    def system_blocks(self) -> list[dict[str, Any]]:
        """The stable part as one cacheable system block."""
        return [{"type": "text", "text": self.system, "cache_control": {"type": "ephemeral"}}]


@dataclass
class JudgePrompt:
    """Everything needed to ask one rubric's judge about items: template, answer format, examples."""

    rubric: Rubric
    template: JudgeTemplate
    candidates: list[FewShotExample] = field(default_factory=list)
    rubric_text: str = ""  # the rubric file's text, where known: kept with the definition, for the judge screen

    def __post_init__(self) -> None:
        try:  # OutputFormat checks the layout and the score keys the template's front matter chose
            self.output = OutputFormat(self.rubric, cast(Layout, self.template.layout), self.template.score_key)
        except ValueError as exc:
            raise PromptError(f"{self.template.path}: {exc}") from None
        self.version = prompt_version(self.rubric, self.template)
        self._systems: dict[tuple[str, ...], str] = {}

    @classmethod
    def for_rubric(cls, rubric: Rubric, store: Store | None = None) -> JudgePrompt:
        """The judge of `rubric`: with a database that keeps this definition of the judge, its template from
        there; else the rubric's template file (the judge's first run in a study, or a rubric given by path)."""
        candidates = select_few_shot(store, rubric, rubric.few_shot_examples) if store is not None else []
        kept = stored_judge(store, rubric.id) if store is not None else None
        if store is not None and kept is not None and kept.rubric.judge_hash == rubric.judge_hash:
            where = Path(f"{store.path} (judge template of rubric {rubric.id})")
            _name_a_changed_template(store, rubric.id, kept.template)
            return cls(rubric, parse_template(kept.template, where), candidates, kept.rubric_text)
        path = template_path(rubric.id)
        if path is None:
            raise PromptError(f"no judge template for rubric {rubric.id!r}: add {rubric.id}{TEMPLATE_SUFFIX}")
        return cls(rubric, load_template(path), candidates, rubric_file_text(rubric))

    def definition(self) -> dict[str, Any]:
        """What a study's database keeps with this prompt version: the rubric as the judge reads it, the rubric
        file's text and the template's."""
        return {"rubric": self.rubric.definition(), "rubric_text": self.rubric_text, "template": self.template.text}

    def examples_for(self, item_id: str) -> list[FewShotExample]:
        """The examples for judging this item: never the item itself."""
        return [ex for ex in self.candidates if ex.item.id != item_id][: example_count(self.rubric)]

    def _examples_text(self, examples: Iterable[FewShotExample]) -> str:
        blocks = []
        for n, ex in enumerate(examples, 1):
            label = ex.rating.verdict or ""
            extras = {
                name: ([] if name in LIST_EXTRAS else ex.rating.notes.strip() or "(no note)")
                for name in self.rubric.judge_output_extras
            }
            why = f"Why this answer: {ex.explanation}\n\n" if ex.explanation else ""
            blocks.append(
                f"### Example {n}{f' ({label})' if label else ''}\n"
                f"{render_item_fields(self.rubric, ex.item.fields)}\n\n{why}"
                f"Answer:\n{self.output.render(ex.rating.scores, extras)}"
            )
        if not blocks:
            return "No worked examples are given for this rubric; rely on the criteria above."
        return "\n\n".join(blocks)

    def system_text(self, examples: list[FewShotExample]) -> str:
        key = tuple(ex.item.id for ex in examples)
        if key not in self._systems:
            self._systems[key] = _fill(self.template.system_text, {
                "rubric_name": self.rubric.name,
                "definitions": _definitions(self.rubric),
                "criteria": _criteria(self.rubric, self.output),
                "examples": self._examples_text(examples),
                "output_format": _output_format(self.rubric, self.output),
            })
        return self._systems[key]

    def render(self, item: Item, *, swapped: bool = False) -> RenderedPrompt:
        """The prompt for one item; `swapped` shows its two paired fields the other way round (position bias)."""
        examples = self.examples_for(item.id)
        fields = self.rubric.swapped_fields(item.fields) if swapped else item.fields
        user = _fill(self.template.item_text, {
            "rubric_name": self.rubric.name,
            "item": render_item_fields(self.rubric, fields),
        })
        return RenderedPrompt(self.system_text(examples), user, tuple(ex.item.id for ex in examples))

    def stable_prefix_chars(self) -> int:
        """Length of the cacheable part as most items see it."""
        return len(self.system_text(self.examples_for("")))
