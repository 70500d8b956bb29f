"""Why a score key does nothing on a rubric's scale, and which keys set a score there.

The one home of these words for every screen where scores are typed (the rating screen, the adjudication
screen): a key past the scale's last point, a digit on a PASS/FAIL rubric or p on a scale of points is
answered with a short notice rather than with silence. Keys are named as the user's keymap has them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from textual.binding import Binding

from judge_tui.model.rubrics import Scale
from judge_tui.tui.keys import DigitEntry, action_parts, binding, keys_of, point_binding_ids, point_codes

KeyDisplay = Callable[[Binding], str]  # App.get_key_display: how Textual writes a binding's key


def key_shown(binding_id: str, keymap: Mapping[str, str], display: KeyDisplay) -> str:
    """The first key of a binding as the user's keymap has it, as Textual writes keys ("" when it has none)."""
    keys = keys_of(binding(binding_id), keymap)
    return display(binding(binding_id).with_key(keys[0])) if keys else ""


def keys_by_point(scale: Scale, keymap: Mapping[str, str], display: KeyDisplay) -> dict[float, str]:
    """Each point of the scale -> the key that sets it."""
    return {point: "".join(key_shown(binding_id, keymap, display) for binding_id in binding_ids)
            for point, binding_ids in point_binding_ids(scale).items()}


def keys_that_score(scale: Scale, keys: Mapping[float, str]) -> str:
    """What the scale is and which key sets each of its points, as one sentence (`keys` from keys_by_point)."""
    if scale.binary:
        return f"This rubric is PASS/FAIL: press {keys[1.0]} for PASS or {keys[0.0]} for FAIL."
    listed = ", ".join(f"{keys[point]}→{label}" for point, label in zip(scale.points, scale.labels, strict=True))
    two = " (two keys each)" if any(len(code) == 2 for code in point_codes(scale)) else ""
    if not scale.numbered:  # names are read beside their keys; a grid's numbers are listed first as well
        shown = "" if scale.named else f" ({', '.join(scale.labels)})"
        return f"This scale has {len(scale.points)} {scale.points_name}{shown}: use the keys{two} {listed}."
    runs = f"This scale runs from {scale.labels[0]} to {scale.labels[-1]}"
    if all(keys[p] == label.zfill(len(keys[p])) for p, label in zip(scale.points, scale.labels, strict=True)):
        return (f"{runs}: type the number"
                + (f" in two digits ({keys[scale.points[0]]} to {keys[scale.points[-1]]})." if two else "."))
    return f"{runs}: use the keys{two} {listed}."  # the keymap moved a digit: the number is typed otherwise


def refused_score_key(scale: Scale, binding_id: str, key: str, keys: Mapping[float, str]) -> str:
    """What the score key `key` (of binding `binding_id`) would set, why it sets nothing on this scale, and which
    keys do."""
    action, parameters = action_parts(binding(binding_id).action)
    if action == "pass_fail":
        what = f"{key} sets {parameters[0]} only on a PASS/FAIL rubric."
    elif scale.binary:
        what = f"{key} sets a score only on a scale of points or categories."
    else:  # the rubric names its categories; numbers and points are the scale's
        what = f"{key} is not a {scale.point_name} of this {'rubric' if scale.named else 'scale'}."
    return f"{what} {keys_that_score(scale, keys)}"


def second_digit(scale: Scale, digits: str) -> str:
    """What a first digit of a two-digit point waits for: "1: now the second digit (10 to 17)"."""
    codes = [code for code in point_codes(scale) if code.startswith(digits)]
    return f"{digits}: now the second digit ({codes[0]} to {codes[-1]})."


def typed_score(scale: Scale, entry: DigitEntry, where: object, digit: int, keys: Mapping[float, str]
                ) -> tuple[float | None, str, bool]:
    """A score key's digit on a screen where scores are typed: (the point it sets, what to say, whether that is a
    warning). A first digit of a two-digit point sets nothing and names the second digits that follow; digits
    that make no point set nothing and say which keys do."""
    digits, point = entry.type(scale, where, digit)
    if point is not None:
        return point, "", False
    if entry.typed:
        return None, second_digit(scale, digits), False
    return None, refused_score_key(scale, f"score-{digit}", digits, keys), True
