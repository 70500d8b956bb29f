"""User settings: one dataclass, read from settings.json in the judge-tui folder."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from judge_tui.model import locations
from judge_tui.model.errors import UserError
from judge_tui.model.plain_data import DataError, Strict, check_range, from_data

# Scores at most this far apart count as aligned, unless settings.json says otherwise.
DEFAULT_TOLERANCE = 0.15


@dataclass
class AgreementSettings(Strict):
    """Where the agreement bands start; the defaults are the calibration targets judge-tui was built for.

    The one home of the tolerance and of the band bounds: the report, the bands' words (analysis/bands.py) and
    every screen read them from here (tests/test_one_home.py keeps a second copy out).
    """

    tolerance: float = DEFAULT_TOLERANCE  # scores this close count as aligned
    alignment_well_calibrated: float = 0.80
    alignment_minor_drift: float = 0.70
    alignment_significant_drift: float = 0.60
    kappa_almost_perfect: float = 0.80  # kappa above this
    kappa_substantial: float = 0.61  # the target band starts here
    kappa_moderate: float = 0.41
    pearson_target: float = 0.70  # overall-score r at or above this
    tpr_tnr_target: float = 0.90  # PASS/FAIL: TPR and TNR above this
    team_alpha_target: float = 0.80  # Krippendorff's alpha among the experts at or above this
    confidence: float = 0.95  # of every interval in the report, e.g. 0.95 for 95%
    # The alternative annotator test's cost-benefit margin ε: how much better than the judge an expert must be
    # before the judge is said not to replace them (docs/validity.md).
    alt_test_epsilon: float = 0.2
    # Decide each target on the whole interval (met / not met / undecided), or on the point estimate alone.
    decide_on: Literal["interval", "point"] = "interval"

    def __post_init__(self) -> None:
        for name in ("tolerance", "alt_test_epsilon", "alignment_well_calibrated", "alignment_minor_drift", "alignment_significant_drift",
                     "tpr_tnr_target"):
            check_range(name, getattr(self, name), 0, 1)
        for name in ("kappa_almost_perfect", "kappa_substantial", "kappa_moderate", "pearson_target",
                     "team_alpha_target"):
            check_range(name, getattr(self, name), -1, 1)
        check_range("confidence", self.confidence, 0, 1, above=True, below=True)
        if not self.alignment_well_calibrated >= self.alignment_minor_drift >= self.alignment_significant_drift:
            raise ValueError("alignment bands must go down: well_calibrated >= minor_drift >= significant_drift")
        if not self.kappa_almost_perfect >= self.kappa_substantial >= self.kappa_moderate:
            raise ValueError("kappa bands must go down: almost_perfect >= substantial >= moderate")


@dataclass
class Settings(Strict):
    idle_seconds: float = 180.0  # show the item timer as idle after this long without a key
    # Of any pause between two keys, the most that counts as reading (docs/rating.md, "Time").
    reading_seconds: float = 90.0
    reveal_after_submit: bool = False  # show the judge's and other raters' scores for an item once submitted
    # On a rubric with one judged dimension (such as binary PASS/FAIL), the score key also submits and opens the
    # next item; left arrow goes back to change it.
    auto_submit: bool = True
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> keys, e.g. {"submit": "enter,ctrl+s"}
    judge_model: str = "claude-sonnet-5-5"  # model for the Anthropic judge backend
    judge_concurrency: int = 4
    # The app's judge: the Anthropic API, or a server speaking the OpenAI API (a local model, offline too). One of
    # the backends whose entry says in_settings, checked where the app's judge is made (judge/app_backend.py).
    judge_backend: str = "anthropic"
    openai_base_url: str = ""  # empty: $OPENAI_BASE_URL, else the OpenAI API; Ollama: http://127.0.0.1:11434/v1
    openai_model: str = ""  # the name the server knows the model by, e.g. "llama3.1:8b"
    openai_concurrency: int = 2  # calls at once to that server: a laptop's server judges one or two at a time
    # Judge the rubric's items while the app is open: true, false, or "auto": everywhere except on the machine of
    # an expert with a share of a team's plan (`judge-tui assign`), where the lead's database does the judging.
    judge_in_background: bool | Literal["auto"] = "auto"
    # On a pairwise rubric, the app's judge asks about each pair as shown and with the responses swapped (as
    # `judge --both-orders`), so the report can measure its position bias; other rubrics ignore it.
    judge_both_orders: bool = False
    drift_check: bool = False  # re-show some already-rated items, blind, to measure your self-agreement
    drift_share: float = 0.10  # with drift_check: the share of items re-shown
    # The order items come in: import order; random (a fixed random order of your own); balanced (the judge's
    # verdicts come in equal measure, at random, never shown).
    queue_order: Literal["import", "random", "balanced"] = "import"
    stop_notice: bool = True  # say once when the study's targets are decided and further ratings are optional
    agreement: AgreementSettings = field(default_factory=AgreementSettings)

    def __post_init__(self) -> None:
        check_range("idle_seconds", self.idle_seconds, 0, above=True)
        check_range("reading_seconds", self.reading_seconds, 0)
        check_range("judge_concurrency", self.judge_concurrency, 1, 64)
        check_range("openai_concurrency", self.openai_concurrency, 1, 64)
        check_range("drift_share", self.drift_share, 0, 1, above=True)


def load_settings(path: Path | None = None) -> Settings:
    path = path or locations.settings_path()
    if not path.is_file():
        return Settings()
    try:
        return from_data(Settings, json.loads(path.read_text(encoding="utf-8")))
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: settings file is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except RecursionError:
        raise UserError(f"{path}: settings file is nested too deeply to be settings; see docs/settings.md "
                        "for its form") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read the settings file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}: settings file is not valid JSON ({exc.msg})") from None
    except DataError as exc:
        raise UserError(f"{path}: invalid settings ({exc})") from None
