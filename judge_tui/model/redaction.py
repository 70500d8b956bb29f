"""Keys kept out of what judge-tui stores and shows: error text from a server or a local program is scrubbed of
every secret the environment holds (an API key, a token, a password) before it is written or printed.

A server that refuses a key may quote it back ("invalid x-api-key: sk-ant-..."), and a local judge given a key
with --cmd-env may print it: such text goes into judge_jobs.last_error, the judge's messages and the app.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

REDACTED = "[hidden]"
# Variables whose values are secrets: ANTHROPIC_API_KEY, OPENAI_API_KEY, ANTHROPIC_AUTH_TOKEN, HF_TOKEN, ...
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
SHORTEST_SECRET = 8  # shorter values ("1", "yes") are settings, and replacing them would garble the text
# A key that is not in this environment still has a recognisable shape: an Authorization header's token, an
# Anthropic or OpenAI key.
_KEY_SHAPES = re.compile(r"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{20,}")


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the environment's secret variables, longest first (a key that holds another is hidden
    whole)."""
    environ = os.environ if environ is None else environ
    values = {value.strip() for name, value in environ.items()
              if SECRET_NAME.search(name) and len(value.strip()) >= SHORTEST_SECRET}
    return sorted(values, key=len, reverse=True)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with every secret value of the environment, and anything shaped like a key, replaced."""
    if not text:
        return text
    for value in secret_values(environ):
        if value in text:
            text = text.replace(value, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)
