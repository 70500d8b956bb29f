"""Agreement figures and what is built on them: report, team, drift, compare, history, status, flags and the item report."""
