"""Figures built from the store: the blind rule, report, team, drift, compare, flags."""
