"""Moving data in and out: import, validation, promptfoo import, export, merge, bundles, splits, the demo."""
