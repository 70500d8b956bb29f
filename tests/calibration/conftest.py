"""The fake Anthropic API for the calibration tests that run the app's own judge."""

from tests.judge.conftest import fake  # noqa: F401  (a fixture, used by name)
