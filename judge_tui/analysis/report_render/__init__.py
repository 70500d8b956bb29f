"""The report rendered, each part from its typed object: the judge comparison (analysis/report/model.py) as JSON
(as_json.py), text with Rich tables (as_text.py) and Markdown (as_markdown.py), with what they share in common.py;
the other sections (team and self-agreement, version comparison, jury, biases, position bias) as a JSON dict and
as blocks (blocks.py) drawn in Markdown, Rich or plain lines; the flagged items (flags.py); and the whole report
of `judge-tui report` (full.py).

Nothing is imported here, so that a command that renders one part (`judge-tui flags`) loads only that part.
"""
