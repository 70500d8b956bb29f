"""The judge as a program of yours: it reads each request as JSON on stdin and writes the answer on stdout."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from judge_tui.formats.numbers import short_text
from judge_tui.judge.backends import AnswerError, ConfigError, FatalError, JudgeAnswer, JudgeRequest
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import BackendKind, BackendOption, BackendRequest
from judge_tui.model.textsafe import clean

if TYPE_CHECKING:
    import asyncio  # imported where it runs: the command line reads this module, and asyncio takes 25 ms to load


# Programs that run a script: a judge run as `python3 my_judge.py` is named after the script, not the interpreter.
_RUNNERS = re.compile(r"(python|pypy|node|deno|bun|ruby|perl|php|bash|sh|zsh|rscript|julia|uv|uvx|npx|pipx)[\d.]*"
                      r"(\.exe)?|run|exec", re.IGNORECASE)


def program_name(argv: list[str]) -> str:
    """What a local judge is called: my_judge for `python3 my_judge.py` or `python -m tools.my_judge`."""
    words = iter(argv)
    for word in words:
        if word == "-m":
            return next(words, "module").rsplit(".", 1)[-1]
        if word.startswith("-") or _RUNNERS.fullmatch(Path(word).name):
            continue
        return Path(word).stem
    return Path(argv[0]).stem


# What a local judge gets of judge-tui's environment: enough to find programs and files, and to read and write
# text (paths, user, locale, time zone, temporary folder; on Windows the system folders it cannot start
# without). Nothing else, so no key or token (ANTHROPIC_API_KEY above all) reaches a program that has no need
# of it; --cmd-env NAME passes another variable on purpose.
COMMAND_ENV = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP",
               "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def command_env(extra: tuple[str, ...] | list[str] = (), environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a local judge runs in: COMMAND_ENV and the locale (LC_*), plus the variables named."""
    environ = dict(os.environ) if environ is None else environ
    for name in extra:
        if not _ENV_NAME.fullmatch(name):
            raise ConfigError(f"--cmd-env {name!r}: give a variable's name (letters, digits, _), e.g. --cmd-env"
                              " OLLAMA_HOST; its value is taken from judge-tui's environment")
    wanted = {*COMMAND_ENV, *extra}
    return {name: value for name, value in environ.items() if name in wanted or name.startswith("LC_")}


# An answer is one JSON object of a few KB; a program that prints more is misbehaving, and what it printed would be
# kept (as the failed answer) in the database. Past this the program is stopped and nothing it printed is kept.
MAX_COMMAND_OUTPUT = 1_000_000
_STDERR_KEPT = 8_000  # the end of what it wrote to stderr, for the failure's message
_CHUNK = 65_536


class OutputTooLarge(Exception):
    """A local program printed more than MAX_COMMAND_OUTPUT bytes."""


class CommandBackend:
    """Runs a local program per judgment: the request as JSON on stdin, the answer JSON on stdout.

    The program gets a small environment (command_env), not judge-tui's whole one. Its answer is read up to
    MAX_COMMAND_OUTPUT bytes and the end of its stderr is kept, so a runaway program costs neither memory nor
    database.
    """

    name = "command"

    def __init__(self, command: str, *, model: str | None = None, timeout: float = 300.0,
                 pass_env: tuple[str, ...] | list[str] = ()) -> None:
        self.env = command_env(pass_env)
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise ConfigError(f"cannot split --cmd {command!r}: {exc}") from None
        if not self.argv:
            raise ConfigError("--cmd is empty: give the program to run, e.g. --cmd 'python my_judge.py'")
        if shutil.which(self.argv[0]) is None and not Path(self.argv[0]).is_file():
            raise ConfigError(f"--cmd: program {self.argv[0]!r} not found")
        self.model = model or f"cmd-{program_name(self.argv)}"
        self.timeout = timeout

    async def close(self) -> None:
        return None

    @staticmethod
    async def _end(process: asyncio.subprocess.Process) -> None:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        await process.communicate()  # reads the pipes to their end, so their transports close now

    @staticmethod
    async def _exchange(process: asyncio.subprocess.Process, payload: bytes) -> tuple[bytes, bytes]:
        """Send the request and read the answer (raising OutputTooLarge past the cap) and the end of stderr."""
        import asyncio  # here, not at the top: the module is read with the command line (see the package)

        assert process.stdin and process.stdout and process.stderr  # created with PIPE for all three

        async def feed(stdin: asyncio.StreamWriter) -> None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a program that reads nothing
                stdin.write(payload)
                await stdin.drain()
                stdin.close()

        async def tail(stream: asyncio.StreamReader) -> bytes:
            kept = b""
            while chunk := await stream.read(_CHUNK):
                kept = (kept + chunk)[-_STDERR_KEPT:]
            return kept

        feeding = asyncio.ensure_future(feed(process.stdin))
        draining = asyncio.ensure_future(tail(process.stderr))
        try:
            out = bytearray()
            while chunk := await process.stdout.read(_CHUNK):
                out += chunk
                if len(out) > MAX_COMMAND_OUTPUT:
                    raise OutputTooLarge
            err = await draining
            await feeding
            await process.wait()
            return bytes(out), err
        finally:
            for task in (feeding, draining):
                task.cancel()

    async def judge(self, request: JudgeRequest) -> JudgeAnswer:
        import asyncio  # here, not at the top: the module is read with the command line (see the package)

        payload = json.dumps({
            "model": self.model, "rubric": request.rubric_id, "item_id": request.item_id, "repeat": request.repeat,
            "system": request.prompt.system, "prompt": request.prompt.user, "schema": request.schema,
            "max_tokens": request.max_tokens,
        }, ensure_ascii=False).encode()
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=self.env)
        except OSError as exc:
            raise FatalError(f"cannot start {self.argv[0]!r}: {exc.strerror}") from None
        try:
            out, err = await asyncio.wait_for(self._exchange(process, payload), self.timeout)
        except OutputTooLarge:
            await self._end(process)
            raise AnswerError(f"{self.argv[0]} printed more than {MAX_COMMAND_OUTPUT // 1_000_000} MB, so it was"
                              " stopped and its output dropped: an answer is one JSON object (a few KB); have it"
                              " print anything else to standard error") from None
        except TimeoutError:
            await self._end(process)
            raise AnswerError(f"{self.argv[0]} gave no answer within {short_text(self.timeout)} s") from None
        except asyncio.CancelledError:
            # Stopped (Ctrl-C, the app quitting): end the program while the event loop still runs, or its pipes
            # are closed after the loop and Python prints "Event loop is closed" tracebacks on the way out.
            await self._end(process)
            raise
        stdout = out.decode("utf-8", errors="replace")
        if process.returncode != 0:
            stderr = err.decode("utf-8", errors="replace").strip()
            raise AnswerError(f"{self.argv[0]} exited with status {process.returncode}: {stderr[-2000:]}",
                              raw=stdout)
        return JudgeAnswer(raw_text=stdout, model=self.model, sampling={"backend": "command"})


def from_request(request: BackendRequest) -> CommandBackend:
    if not request.options.get("cmd"):
        raise UserError("--backend command needs --cmd \"PROGRAM ARGS\": a program that reads the request"
                        " as JSON on stdin and writes the answer JSON on stdout")
    return CommandBackend(request.options["cmd"], model=request.model,
                          pass_env=request.options.get("cmd_env") or ())


def describe(backend: CommandBackend) -> str:
    return f"the local program {clean(shlex.join(backend.argv))} (no tokens, no price)"


BACKEND = BackendKind("command", "a program of yours", from_request, describe=describe,
                      options=(BackendOption("--cmd", "program reading a request on stdin, answering on stdout"),
                               BackendOption("--cmd-env", "pass this environment variable to the program too (it"
                                             " gets only PATH, HOME, the locale and a few more); repeat for several",
                                             metavar="NAME", repeat=True)))
