"""A scripted $EDITOR: `python edit_file.py OLD NEW FILE` replaces the first OLD with NEW in FILE, as a user would."""

import sys
from pathlib import Path

old, new, path = sys.argv[1], sys.argv[2], Path(sys.argv[3])
text = path.read_text(encoding="utf-8")
if old not in text:
    sys.exit(f"{old!r} not in {path}")
path.write_text(text.replace(old, new, 1), encoding="utf-8")
