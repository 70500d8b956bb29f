"""The rating screen's key bindings, and the check of a user's keymap against every screen's (the other screens'
bindings are in screen_keys.py). Every binding has a stable id, so settings.keymap can remap it."""

from __future__ import annotations

import ast
import string
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from textual.binding import Binding

from judge_tui.model.rubrics import GRIDS, Scale
from judge_tui.tui.screen_keys import OTHER_SCREENS

SCORE_GROUP = Binding.Group("score", compact=True)


def action_parts(action: str) -> tuple[str, tuple[object, ...]]:
    """The name and arguments of one of our own action strings ("score(3)" -> ("score", (3,)), "app.quit" ->
    ("quit", ())): the arguments are Python literals, as Textual reads them."""
    call, _, arguments = action.partition("(")
    arguments = arguments.removesuffix(")").strip()
    return call.rpartition(".")[2], ast.literal_eval(f"({arguments},)") if arguments else ()


def _score_tooltip(number: int) -> str:
    """What the key `number` gives on each grid that has it: "0.50 on a quarter scale, 1 on a three-point scale"."""
    grids = [grid for grid in GRIDS if number in grid.key_numbers]
    gives = ", ".join(f"{grid.labels[grid.key_numbers.index(number)]} on a {grid.called}" for grid in grids)
    only = f" ({grids[0].called} only)" if len(grids) == 1 < len(GRIDS) else ""
    return f"Score the focused dimension {gives}{only}; then on to the next dimension"

RATING_BINDINGS: list[Binding] = [
    *(
        Binding(str(n), f"score({n})", f"score {n}", id=f"score-{n}", group=SCORE_GROUP, tooltip=_score_tooltip(n))
        for n in range(5)
    ),
    Binding("p", "pass_fail('PASS')", "PASS", id="pass", tooltip="Label the focused dimension PASS"),
    Binding("f", "pass_fail('FAIL')", "FAIL", id="fail", tooltip="Label the focused dimension FAIL"),
    Binding("enter", "submit", "Submit", id="submit",
            tooltip="Save the rating, open the next unrated item"),
    Binding("down,tab", "move(1)", "Next dimension", show=False, id="next-dimension"),
    Binding("up,shift+tab", "move(-1)", "Previous dimension", show=False, id="prev-dimension"),
    Binding("right", "next_item", "Next item", show=False, id="next-item",
            tooltip="Open the next item in order, rated or not"),
    Binding("left", "prev_item", "Previous item", show=False, id="prev-item",
            tooltip="Open the previous item in order"),
    Binding("s", "skip", "Skip", id="skip", tooltip="Set the item aside until the others are done"),
    Binding("!", "flag", "Flag", id="flag", tooltip="Flag the item (a reason if you like); again to unflag"),
    Binding("u,ctrl+z", "undo", "Undo", id="undo", tooltip="Revert the last change to this item"),
    Binding("n", "edit_note", "Note", id="edit-note", tooltip="Write a note on this item; Escape when done"),
    Binding("g", "toggle_guidance", "Guidance", show=False, id="toggle-guidance",
            tooltip="Show or hide the task type's guidance"),
    Binding("z", "toggle_rubric", "Rubric", id="toggle-rubric",
            tooltip="Rubric folded into a line, the item full width"),
    Binding("w", "toggle_wrap", "Wrap", id="toggle-wrap",
            tooltip="Unwrap code: a line a row; h and l scroll it"),
    Binding("h", "scroll_sideways(-1)", "Code left", show=False, id="scroll-left",
            tooltip="Unwrapped code: scroll left"),
    Binding("l", "scroll_sideways(1)", "Code right", show=False, id="scroll-right",
            tooltip="Unwrapped code: scroll right"),
    Binding("pagedown,space", "scroll_item('scroll_page_down')", "Scroll item down", show=False, id="scroll-down"),
    Binding("pageup", "scroll_item('scroll_page_up')", "Scroll item up", show=False, id="scroll-up"),
    Binding("j", "scroll_item('scroll_down')", "Item one line down", show=False, id="line-down"),
    Binding("k", "scroll_item('scroll_up')", "Item one line up", show=False, id="line-up"),
    Binding("home", "scroll_item('scroll_home')", "Item top", show=False, id="item-top"),
    Binding("end", "scroll_item('scroll_end')", "Item bottom", show=False, id="item-bottom"),
    Binding("]", "scroll_rubric(1)", "Scroll rubric down", show=False, id="rubric-down",
            tooltip="Scroll the rubric down: guidance, the rest"),
    Binding("[", "scroll_rubric(-1)", "Scroll rubric up", show=False, id="rubric-up",
            tooltip="Scroll the rubric back up"),
    Binding("a", "agreement", "Agreement", show=False, id="agreement",
            tooltip="Agreement summary over the items you submitted"),
    Binding("c", "adjudicate", "Adjudicate", show=False, id="adjudicate",
            tooltip="Lead (rate --lead): settle experts' disagreements"),
    Binding("J", "calibrate", "Judge screen", show=False, id="calibrate",
            tooltip="Lead (rate --lead): the judge screen"),
    Binding("F", "finish_study", "Finish", show=False, id="finish-study",
            tooltip="Finish: your totals, then name and summary notes"),
    Binding("?", "help", "Help", id="help", tooltip="List every key"),
    Binding("q", "app.quit", "Quit", id="quit", tooltip="Save and quit; the next start resumes here"),
]

# Keys 5 to 9 name categories 5 to 9 of a scale of categories (1 to 4 are the score keys above), whole numbers
# 5 to 9, or a digit of a two-digit point (from ten categories or a number past 9 on). In the score group, so the
# key bar and help list them where they act; check_action hides them on every other scale, whose key bar and
# help stay as they are.
CATEGORY_BINDINGS: list[Binding] = [
    Binding(str(n), f"score({n})", f"category {n}", id=f"score-{n}", group=SCORE_GROUP,
            tooltip=f"On a scale of categories or whole numbers: the focused dimension's {n} (or the digit {n} "
                    f"of a two-digit one)")
    for n in range(5, 10)
]



def score_bindings(scale: Scale) -> list[Binding]:
    """The score keys help lists for this scale, in key order: the digits its points are typed with (1 to k for
    k categories, 0 to 9 from ten on), otherwise 0 to 4 (all five on the 0-1 grids and PASS/FAIL, as help always
    listed them)."""
    if not scale.declared:
        return [b for b in RATING_BINDINGS if b.group is SCORE_GROUP]
    return [b for b in (*RATING_BINDINGS, *CATEGORY_BINDINGS)
            if b.group is SCORE_GROUP and scale_has_key(scale, *action_parts(b.action))]


# A key whose action cannot act right now (check_action says no) falls through to a second, hidden binding
# with the same id that says why. Being a binding too, it runs in key order and follows the keymap.
# Keys 5 to 9 are explained too: on a scale of three categories, 5 must say "1–3" as 4 does, not nothing.
EXPLAINED_IDS = ("score-0", "score-1", "score-2", "score-3", "score-4", "score-5", "score-6", "score-7", "score-8",
                 "score-9", "pass", "fail", "submit", "undo", "adjudicate", "calibrate")
EXPLAIN_BINDINGS: list[Binding] = [
    Binding(b.key, f"explain({b.id!r})", show=False, id=b.id) for b in (*RATING_BINDINGS, *CATEGORY_BINDINGS)
    if b.id in EXPLAINED_IDS
]


SCORE_ACTIONS = ("score", "pass_fail")
# The keys that set a score on some scale: 0 to 9, p and f.
SCORE_BINDING_IDS = tuple(b.id for b in (*RATING_BINDINGS, *CATEGORY_BINDINGS)
                          if b.id and action_parts(b.action)[0] in SCORE_ACTIONS)

OTHER_ITEMS = Binding.Group("Other items", compact=True)
# The adjudication screen's keys: the rating screen's ids where they do the same, so a keymap moves them there too.
# Its check_action lets act, and the key bar show, only the score keys of the rubric's scale: "01234 score", "123
# score" on three categories, "p PASS f FAIL".
ADJUDICATION_BINDINGS = [
    *(Binding(str(n), f"score({n})", f"score {n}", id=f"score-{n}", group=SCORE_GROUP) for n in range(5)),
    *CATEGORY_BINDINGS,  # 5-9: the rest of a scale of up to nine categories
    Binding("p", "pass_fail('PASS')", "PASS", id="pass"),
    Binding("f", "pass_fail('FAIL')", "FAIL", id="fail"),
    # A score key of another scale falls through to these (check_action refuses the binding above): it says why
    # it set nothing and which keys do, instead of nothing.
    *(b for b in EXPLAIN_BINDINGS if b.id in SCORE_BINDING_IDS),
    Binding("enter", "submit", "Save consensus", id="submit",
            tooltip="Save the consensus (every judged dimension needs a score) and open the next item"),
    # Enter while a dimension is unset (check_action dims the binding above): says which, instead of nothing.
    Binding("enter", "explain_submit", show=False, id="submit"),
    Binding("down,tab", "move(1)", "Next dimension", show=False, id="next-dimension"),
    Binding("up,shift+tab", "move(-1)", "Previous dimension", show=False, id="prev-dimension"),
    Binding("left", "item(-1)", "Previous item", id="prev-item", group=OTHER_ITEMS),
    Binding("right", "item(1)", "Next item", id="next-item", group=OTHER_ITEMS),
    Binding("a", "agreement", "Agreement", id="agreement",
            tooltip="The agreement summary, with the team's figures over every item"),
    Binding("escape", "leave", "Back", id="leave-adjudication"),
]

_EVERY_BINDING = (*RATING_BINDINGS, *CATEGORY_BINDINGS, *ADJUDICATION_BINDINGS,
                  *(b for s in OTHER_SCREENS.values() for b in s.bindings))
RATING_BINDING_IDS: tuple[str, ...] = tuple(dict.fromkeys(b.id for b in (*RATING_BINDINGS, *CATEGORY_BINDINGS)
                                                          if b.id))
BINDING_IDS: tuple[str, ...] = tuple(dict.fromkeys(b.id for b in _EVERY_BINDING if b.id))  # every id a keymap may name


def point_codes(scale: Scale) -> dict[str, float]:
    """The digits typed for each point of the scale: categories 1 to k as they are numbered on screen, whole
    numbers as themselves, the 0-1 grids 0 up; two digits each (01 to 17, 00 to 10) once a number passes 9, so
    no number is the start of another. PASS/FAIL has none (p and f)."""
    numbers = scale.key_numbers
    if not numbers:
        return {}
    width = 2 if numbers[-1] > 9 else 1
    return {f"{n:0{width}d}": point for n, point in zip(numbers, scale.points, strict=True)}


def typed_digit(scale: Scale, typed: str, digit: int) -> tuple[str, float | None]:
    """A score key's digit after the digits already typed for this dimension: (digits still waiting, the point
    they set). ("1", None) waits for a second digit; ("", point) sets one; ("", None) sets nothing."""
    codes = point_codes(scale)
    digits = f"{typed}{digit}"
    if digits in codes:
        return "", codes[digits]
    if any(code.startswith(digits) for code in codes):
        return digits, None
    return "", None


@dataclass
class DigitEntry:
    """The digits typed so far toward a two-digit point and where (an item's dimension): a digit typed anywhere
    else starts afresh, so moving on forgets a half-typed score."""

    where: object = None
    typed: str = ""

    def type(self, scale: Scale, where: object, digit: int) -> tuple[str, float | None]:
        """(every digit typed toward this point, the point they set or None); `typed` is left waiting when they
        begin one."""
        before = self.typed if where == self.where else ""
        self.where = where
        self.typed, point = typed_digit(scale, before, digit)
        return f"{before}{digit}", point


def scale_has_key(scale: Scale, action: str, parameters: tuple[object, ...]) -> bool:
    """Whether a score key acts on this scale: digits that are part of a point's code (1 to k for categories,
    the numbers themselves on whole numbers), p / f only on PASS/FAIL (typed by no number)."""
    if not scale.key_numbers:
        return action == "pass_fail"
    return action == "score" and any(str(parameters[0]) in code for code in point_codes(scale))


def point_binding_ids(scale: Scale) -> dict[float, tuple[str, ...]]:
    """Each point of the scale -> the ids of the bindings typed to set it, in order (the keys scale_has_key lets
    act): p / f on PASS/FAIL (typed by no number), otherwise a digit key for each digit of the point's code."""
    if not scale.key_numbers:
        return {1.0: ("pass",), 0.0: ("fail",)}
    return {point: tuple(f"score-{digit}" for digit in code) for code, point in point_codes(scale).items()}


def keys_of(binding: Binding, keymap: Mapping[str, str]) -> list[str]:
    """The keys a binding answers to once the user's keymap is applied."""
    keys = keymap.get(binding.id or "", binding.key)
    return [k.strip() for k in keys.split(",") if k.strip()]


def binding(binding_id: str) -> Binding:
    return next(b for b in _EVERY_BINDING if b.id == binding_id)


# Keys the app itself answers to, whatever the screen: a binding given one would never run, or would quit.
RESERVED_KEYS = {"ctrl+q": "quits the app", "ctrl+c": "copies text and explains how to quit"}
# Textual's names for the keys that are not a printable character (its table of them is not public API):
# the arrows and editing keys alone and with ctrl, shift or both, f1-f24 alone and with ctrl, and ctrl with a
# letter, a digit (and ctrl+shift with a digit) or one of the few symbols terminals send with ctrl.
_EDITING_KEYS = ("left", "right", "up", "down", "home", "end", "insert", "delete", "pageup", "pagedown")
_FUNCTION_KEYS = tuple(f"f{n}" for n in range(1, 25))
# Keys a terminal sends as another key (ctrl+i arrives as tab): bound under the alias, nothing ever runs.
# Ctrl+space sends NUL, which Textual names ctrl+@ (its own list of aliases files it under ctrl+at, a name no key
# arrives with).
SENT_AS = {"ctrl+i": "tab", "ctrl+m": "enter", "ctrl+left_square_brace": "escape", "ctrl+space": "ctrl+@",
           "newline": "ctrl+j"}
NAMED_KEYS = frozenset((
    "escape", "shift+escape", "enter", "return", "tab", "shift+tab", "space", "backspace",
    *_EDITING_KEYS, *(f"{modifiers}+{key}" for modifiers in ("ctrl", "shift", "ctrl+shift") for key in _EDITING_KEYS),
    *_FUNCTION_KEYS, *(f"ctrl+{key}" for key in _FUNCTION_KEYS),
    *(f"ctrl+{letter}" for letter in string.ascii_lowercase if f"ctrl+{letter}" not in SENT_AS),
    *(f"ctrl+{digit}" for digit in string.digits), *(f"ctrl+shift+{digit}" for digit in string.digits),
    "ctrl+@", "ctrl+backslash", "ctrl+right_square_bracket", "ctrl+circumflex_accent", "ctrl+underscore",
))
# The few characters whose key Textual names otherwise than by their Unicode name ("/" is slash, not solidus).
_KEY_NAME_REPLACEMENTS = {"solidus": "slash", "reverse_solidus": "backslash", "commercial_at": "at",
                          "hyphen_minus": "minus", "plus_sign": "plus", "low_line": "underscore"}


def _printable(character: str) -> bool:
    return len(character) == 1 and character.isprintable() and not character.isspace()


def character_key(character: str) -> str:
    """The name Textual gives the key of one printable character ("!" is exclamation_mark, "a" is a): its
    Unicode name in lower case with _ for spaces and dashes, for a character that is not a letter or digit."""
    if character.isalnum():
        return character
    key = unicodedata.name(character, character).lower().replace("-", "_").replace(" ", "_")
    return _KEY_NAME_REPLACEMENTS.get(key, key)


def _is_character_name(name: str) -> bool:
    """A printable character's key name, as Textual names it (exclamation_mark for "!")."""
    try:
        character = unicodedata.lookup(name.replace("_", " "))
    except KeyError:
        return False
    return _printable(character) and character_key(character) == name


def normalise_key(key: str) -> str:
    """One spelling per key: a printable character and its key name ("!" and "exclamation_mark") are one key."""
    return character_key(key) if _printable(key) else key


def key_problem(key: str) -> str | None:
    """Why a terminal can never deliver this key to a binding, or None when it can."""
    if key in RESERVED_KEYS:
        return f"{key!r} is reserved: it {RESERVED_KEYS[key]}"
    if key in SENT_AS:
        return f"{key!r} reaches the app as {SENT_AS[key]!r} in a terminal: bind {SENT_AS[key]!r} instead"
    if key in NAMED_KEYS or _printable(key) or _is_character_name(key):
        return None
    modifiers, _, last = key.rpartition("+")
    if modifiers in ("alt", "alt+shift") and len(last) == 1 and last.isascii() and last.isalnum() and last.islower():
        return None
    if modifiers == "shift" and len(last) == 1 and last.isalpha():
        return f"{key!r} is typed as {last.upper()!r}: bind {last.upper()!r}"
    if key.lower() != key and key_problem(key.lower()) is None:
        return f"unknown key {key!r}: key names are lower case ({key.lower()!r})"
    return f"unknown key {key!r} (a character such as 'x' or '!', or a key name such as 'enter', 'space', " \
           "'pagedown', 'f5' or 'ctrl+s')"


def keymap_problems(keymap: Mapping[str, str], scale: Scale | None = None) -> list[str]:
    """What is wrong with a user's keymap: unknown binding ids, keys a terminal cannot send, a key given to two
    bindings of one screen, a key the screen's list, pane or text field takes first, or a binding left with no key
    at all. Keys 5 to 9 of a scale of categories clash with another binding only where they act (given the scale,
    on one of that many categories): a keymap that gives 7 to another binding stays right for every rubric that
    has no seventh category."""
    problems = [f"unknown binding id {name!r}" for name in sorted(set(keymap) - set(BINDING_IDS))]
    problems += _screen_problems(keymap, [*RATING_BINDINGS, *CATEGORY_BINDINGS], scale)
    problems += [f"{problem} on the adjudication screen"
                 for problem in _screen_problems(keymap, ADJUDICATION_BINDINGS, scale)
                 if problem not in problems]  # a shared id's problem is said once, as the rating screen's
    for name, screen in OTHER_SCREENS.items():
        problems += [f"{problem} on the {name}" for problem in _screen_problems(keymap, screen.bindings, scale)]
        for b in screen.bindings:
            for key in keys_of(b, keymap) if b.id in keymap and not b.priority else ():
                typed = screen.typed and (_printable(key) or _is_character_name(key))
                if typed or normalise_key(key) in screen.taken:
                    problems.append(f"{b.id!r}: {key!r} {'is typed into the note' if typed else screen.why_taken} "
                                    f"on the {name}, so it would never act: choose another key")
    return problems


def _screen_problems(keymap: Mapping[str, str], bindings: list[Binding], scale: Scale | None) -> list[str]:
    """The keymap's problems with one screen's bindings: keys a terminal cannot send, a key given to two of them,
    one left with no key."""
    problems: list[str] = []
    owner: dict[str, str] = {}
    for b in bindings:
        keys = keys_of(b, keymap)
        if not keys:
            problems.append(f"{b.id!r} is given no key")
        acts = b not in CATEGORY_BINDINGS or (scale is not None and scale_has_key(scale, *action_parts(b.action)))
        for key in keys:
            problem = key_problem(key) if b.id in keymap else None
            if problem:
                problems.append(f"{b.id!r}: {problem}")
                continue
            if not acts:
                continue
            key = normalise_key(key)
            if owner.get(key, b.id) != b.id:
                problems.append(f"key {key!r} is given to both {owner[key]!r} and {b.id!r}")
            owner.setdefault(key, b.id or "")
    return problems
