"""Running a study: its status (each expert's progress and time, each judge's queue and cost, the team's progress
on an assignment plan) and its plan (how many items decide the targets)."""
