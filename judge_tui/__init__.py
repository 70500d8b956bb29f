"""judge-tui: rate submissions against a rubric, beside an LLM judge, and measure how far they agree."""

__version__ = "0.3.0"
