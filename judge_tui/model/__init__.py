"""Plain types and rules: records, rubrics, checkers, settings, locations, errors, safe text, numbers and the blind rule. Imports nothing of ours outside model/."""
