"""The LLM judge: prompts, strict answers, backends, the SQLite job queue and the runners."""
