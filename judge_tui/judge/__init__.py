"""The LLM judge: prompts, strict answers, backends, the SQLite job queue and the runners, and the history of
its rubric and prompt versions."""
