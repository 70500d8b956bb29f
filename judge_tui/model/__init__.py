"""Plain types and rules: records, rubrics, checkers, settings, locations, errors, safe text and numbers.

Imports nothing of ours outside model/.
"""
