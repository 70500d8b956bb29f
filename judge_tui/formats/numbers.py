"""How every figure is written for people: the one number formatter of the report (text, Markdown, screens),
of the commands' messages and of the app. `tests/test_number_formats.py` fails if a format appears elsewhere.

It reads typed figures and intervals (a renderer never formats a dict it built itself); a figure that cannot be
computed (Undefined, or None) is written "n/a".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from judge_tui.model.rubrics import Scale
    from judge_tui.stats.agreement import Undefined
    from judge_tui.stats.intervals import Interval

    Shown = float | Undefined | None  # a figure to write
    ShownInterval = Interval | Undefined | None


def _undefined() -> type[Undefined]:
    """stats.agreement's Undefined, imported when a figure is written: the app's screens format numbers too, and
    must start without numpy (tests/test_import_hygiene.py)."""
    from judge_tui.stats.agreement import Undefined

    return Undefined


def figure_text(value: Shown, *, digits: int = 3, percent: bool = False, signed: bool = False) -> str:
    """A figure as text: a share as a percentage with one decimal (a signed change in points), any other
    figure with ``digits`` decimals."""
    if value is None or isinstance(value, _undefined()):
        return "n/a"
    number = cast("float", value)
    if percent:
        return f"{number * 100:+.1f} pts" if signed else f"{number:.1%}"
    return f"{number:+.{digits}f}" if signed else f"{number:.{digits}f}"


def share_text(value: float, decimals: int = 0) -> str:
    """A share, a target or a confidence level in percent: 0.9 -> "90%" (decimals=1: "90.0%")."""
    return f"{value:.{decimals}%}"


def decimal_text(value: float, digits: int, *, signed: bool = False, grouped: bool = False) -> str:
    """A number with ``digits`` decimals: a target, a figure in a message, a cost; ``signed`` writes its sign
    (+0.12), ``grouped`` separates thousands (12,345.6)."""
    sign, group = "+" if signed else "", "," if grouped else ""
    return f"{value:{sign}{group}.{digits}f}"


def short_text(value: float, digits: int | None = None) -> str:
    """A number as short as it reads exactly (the general format): a setting, a tolerance or a value the user
    gave, echoed as given: 0.15 -> "0.15", 2.0 -> "2"; with ``digits``, at most that many significant ones."""
    return f"{value:g}" if digits is None else f"{value:.{digits}g}"


def aligned_text(scale: Scale, tolerance: float) -> str:
    """What "aligned" means on this scale, in words: "within ±0.15", or on nominal categories, where no
    tolerance applies (Scale.alignment_tolerance), "in the same category"."""
    return "in the same category" if scale.nominal else f"within ±{short_text(tolerance)}"


def tolerance_text(scale: Scale, tolerance: float) -> str:
    """The tolerance as a report's header names it: "tolerance ±0.15", or "alignment: same category" on nominal
    categories, where no tolerance applies."""
    return "alignment: same category" if scale.nominal else f"tolerance ±{short_text(tolerance)}"


def differ_text(scale: Scale, tolerance: float) -> str:
    """What "not aligned" means on this scale, in words: "differ by more than ±0.15", or "name different
    categories" on nominal ones."""
    return "name different categories" if scale.nominal else f"differ by more than ±{short_text(tolerance)}"


def duration_text(seconds: float) -> str:
    """A duration in whole seconds as a clock reads: 0:42, 12:05, 1:02:03."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def word_for(count: int, word: str, words: str | None = None) -> str:
    """The word that agrees with a count: ``word`` for exactly one, else ``words`` (by default ``word`` + "s");
    a verb or pronoun as well as a noun: word_for(n, "was", "were")."""
    return word if count == 1 else words or word + "s"


def plural(count: int, word: str, words: str | None = None, *, grouped: bool = False) -> str:
    """A count with its noun, exact in number: "1 flag", "3 flags", plural(2, "study", "studies");
    ``grouped`` separates thousands (1,000 calls)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {word_for(count, word, words)}"


NO_PRICE = "no price (a local model or program)"


def cost_text(dollars: float, calls: int) -> str:
    """What a judge's calls cost, in one wording on every screen: dollars where the API priced them, else that
    there is no price (a local model or a program costs nothing judge-tui can know)."""
    if not calls:
        return "—"
    return f"${decimal_text(dollars, 4, grouped=True)}" if dollars > 0 else NO_PRICE


def pct(value: Shown) -> str:
    return figure_text(value, percent=True)


def num(value: Shown) -> str:
    return figure_text(value)


def signed(value: Shown) -> str:
    return figure_text(value, signed=True)


def interval_text(interval: ShownInterval, *, digits: int = 2, percent: bool = False) -> str:
    """An interval as "[low, high]" (shares in percent without decimals), or "" when there is none."""
    if interval is None or isinstance(interval, _undefined()):
        return ""
    bounds = cast("Interval", interval)
    low, high = bounds.low, bounds.high
    if percent:
        low, high = low * 100, high * 100
        digits = 0
    # A bound a hair below zero is written 0, not -0.
    low, high = (0.0 if round(b, digits) == 0 else b for b in (low, high))
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def figure_with_interval(value: Shown, interval: ShownInterval, *, digits: int = 3, percent: bool = False) -> str:
    """A figure and its interval side by side, e.g. "0.726 [0.49, 0.96]" or "83.3% [55, 95]"."""
    text = figure_text(value, digits=digits, percent=percent)
    bounds = interval_text(interval, percent=percent)
    return f"{text} {bounds}" if bounds and text != "n/a" else text


def interval_json(interval: Interval | Undefined, name: str, undefined: dict[str, str]) -> dict[str, Any] | None:
    """An interval for the JSON report at full precision: {low, high, method, confidence}; null when it cannot
    be computed, with the reason put in ``undefined`` under ``name`` (as undefined figures are written)."""
    if isinstance(interval, _undefined()):
        undefined[name] = interval.reason
        return None
    bounds = cast("Interval", interval)
    return {"low": float(bounds.low), "high": float(bounds.high), "method": bounds.method,
            "confidence": float(bounds.confidence)}
