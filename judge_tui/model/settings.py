"""User settings: one pydantic model, read from settings.json in the judge-tui folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from judge_tui.model import locations
from judge_tui.model.errors import UserError

# Scores at most this far apart count as aligned, unless settings.json says otherwise.
DEFAULT_TOLERANCE = 0.15


class AgreementSettings(BaseModel):
    """Where the agreement bands start; the defaults are the calibration targets judge-tui was built for."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    tolerance: float = Field(default=DEFAULT_TOLERANCE, ge=0, le=1, description="Scores this close count as aligned")
    alignment_well_calibrated: float = Field(default=0.80, ge=0, le=1)
    alignment_minor_drift: float = Field(default=0.70, ge=0, le=1)
    alignment_significant_drift: float = Field(default=0.60, ge=0, le=1)
    kappa_almost_perfect: float = Field(default=0.80, ge=-1, le=1, description="Kappa above this")
    kappa_substantial: float = Field(default=0.61, ge=-1, le=1, description="The target band starts here")
    kappa_moderate: float = Field(default=0.41, ge=-1, le=1)
    pearson_target: float = Field(default=0.70, ge=-1, le=1, description="Overall-score r at or above this")
    tpr_tnr_target: float = Field(default=0.90, ge=0, le=1, description="PASS/FAIL: TPR and TNR above this")
    team_alpha_target: float = Field(default=0.80, ge=-1, le=1,
                                     description="Krippendorff's alpha among the experts at or above this")
    confidence: float = Field(default=0.95, gt=0, lt=1,
                              description="Confidence of every interval in the report, e.g. 0.95 for 95%")
    decide_on: Literal["interval", "point"] = Field(
        default="interval", description="Decide each target on the whole interval (met / not met / undecided), "
        "or on the point estimate alone (\"point\")")

    @model_validator(mode="after")
    def _bands_in_order(self) -> AgreementSettings:
        if not self.alignment_well_calibrated >= self.alignment_minor_drift >= self.alignment_significant_drift:
            raise ValueError("alignment bands must go down: well_calibrated >= minor_drift >= significant_drift")
        if not self.kappa_almost_perfect >= self.kappa_substantial >= self.kappa_moderate:
            raise ValueError("kappa bands must go down: almost_perfect >= substantial >= moderate")
        return self


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    idle_seconds: float = Field(default=180.0, gt=0, description="Stop the item timer after this long without a key")
    reveal_after_submit: bool = Field(
        default=False, description="Show the judge's and other raters' scores for an item once you have submitted it"
    )
    auto_submit: bool = Field(
        default=True, description="On a rubric with one judged dimension (such as binary PASS/FAIL), the score key "
        "also submits and opens the next item; ← goes back to change it"
    )
    keymap: dict[str, str] = Field(
        default_factory=dict, description="Binding id -> keys, e.g. {\"submit\": \"enter,ctrl+s\"}"
    )
    judge_model: str = Field(default="claude-sonnet-5-5", description="Model for the Anthropic judge backend")
    judge_concurrency: int = Field(default=4, ge=1, le=64)
    judge_in_background: bool = Field(default=True, description="Judge queued items while the app is open")
    drift_check: bool = Field(
        default=False, description="Re-show some already-rated items, blind, to measure your self-agreement"
    )
    drift_share: float = Field(default=0.10, gt=0, le=1, description="With drift_check: share of items re-shown")
    queue_order: Literal["import", "random", "balanced"] = Field(
        default="import", description="The order items come in: import order; random (a fixed random order of "
        "your own); balanced (the judge's verdicts come in equal measure, at random, never shown)"
    )
    stop_notice: bool = Field(
        default=True, description="Say once when the study's targets are decided and further ratings are optional"
    )
    agreement: AgreementSettings = Field(default_factory=AgreementSettings)


def load_settings(path: Path | None = None) -> Settings:
    path = path or locations.settings_path()
    if not path.is_file():
        return Settings()
    try:
        return Settings.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: settings file is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except RecursionError:
        raise UserError(f"{path}: settings file is nested too deeply to be settings; see the README's "
                        "Settings section for its form") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read the settings file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}: settings file is not valid JSON ({exc.msg})") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise UserError(f"{path}: invalid settings ({problems})") from None
