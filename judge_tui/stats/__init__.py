"""Pure statistics over numpy arrays: intervals, chance-corrected agreement, decisions against targets.

Nothing here reads the database or knows a rubric; every function takes counts or aligned arrays and returns
numbers, :class:`~judge_tui.stats.agreement.Undefined` with a reason, or small frozen records. See
docs/agreement.md for each method and the reference it is checked against.
"""
