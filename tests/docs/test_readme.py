"""Every command the README shows, run as a newcomer would type it, on a fresh checkout.

The README's ```bash blocks are read line by line (``\\`` continuations joined, comments
dropped) and run in order in one scratch folder, each with bash. ```toml blocks whose first line
is ``# <file name>`` are written to that file first, as a reader would save them.

Nothing leaves the machine: the OpenRouter API (``POLISTEMICS_OPENROUTER_BASE_URL``) is the
project's test server (``polistemics.testing``), and ``data fetch`` downloads from a local copy
of the qual-o-mat-data layout (``POLISTEMICS_QOM_URL``) holding a made-up election under the
Bundestag 2025 names. ``polistemics`` and ``.venv/bin/polistemics`` run this checkout's package.
Commands that cannot run here are listed in ``SKIPPED`` with the reason; a README command that is
neither run nor listed fails the test.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from polistemics.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

SKIPPED = {
    "make demo": "compiles llama.cpp, then runs the local model for minutes; the same pipeline "
    "runs below against the test server",
    "make test": "the test suite this test is part of",
    "source .venv/bin/activate": "changes only the reader's shell; `polistemics` is on PATH here",
}
# Commands another branch adds; run when the CLI has them, listed as skipped before.
NEWER_COMMANDS = {"new": ("new",), "data list": ("data", "list")}


def readme_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order."""
    return [
        (m["lang"], m["body"])
        for m in re.finditer(r"```(?P<lang>\w*)\n(?P<body>.*?)```", text, re.S)
    ]


def shell_commands(body: str) -> list[str]:
    """The commands of a shell block: continuations joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", body)
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            commands.append(shlex.join(words))
    return commands


def saved_files(blocks: list[tuple[str, str]]) -> dict[str, str]:
    """``# name`` on a TOML block's first line: the file a reader saves it as."""
    files = {}
    for lang, body in blocks:
        first = body.splitlines()[0] if body.strip() else ""
        if lang == "toml" and (m := re.fullmatch(r"#\s*(\S+\.toml)\s*", first)):
            files[m[1]] = body
    return files


def test_the_readme_shows_commands_and_a_study_file():
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    commands = [c for lang, body in blocks if lang == "bash" for c in shell_commands(body)]
    assert "make demo" in commands and "make test" in commands
    assert any("polistemics run" in c for c in commands)
    assert saved_files(blocks), "the first study's TOML block names its file"


def test_shell_commands_are_parsed_as_typed():
    body = "a --x 1   # note\n\n# only a comment\nb \\\n   --y 2\nexport K=sk-or-...\n"
    assert shell_commands(body) == ["a --x 1", "b --y 2", "export K=sk-or-..."]


def cli_has(words: tuple[str, ...]) -> bool:
    import typer.main

    from polistemics.cli import build_app

    command = typer.main.get_command(build_app())
    for word in words:
        command = getattr(command, "commands", {}).get(word)
        if command is None:
            return False
    return True


def skip_reason(command: str) -> str | None:
    if command in SKIPPED:
        return SKIPPED[command]
    words = shlex.split(command)
    if words and words[0].endswith("polistemics"):
        for name, path in NEWER_COMMANDS.items():
            if tuple(words[1 : 1 + len(path)]) == path and not cli_has(path):
                return f"`polistemics {name}` is not in this checkout's CLI yet"
    return None


# The made-up election served as qual-o-mat-data's data/2025/deutschland (the scope's names).
PARTIES = ["CDU/CSU", "SPD", "AfD", "GRÜNE", "BSW", "FDP", "Die Linke"]
STATEMENTS = [
    ("Tempolimit", "Auf Autobahnen soll ein Tempolimit gelten."),
    ("Mindestlohn", "Der Mindestlohn soll steigen."),
    ("Windkraft", "Der Ausbau der Windkraft soll beschleunigt werden."),
    ("Schuldenbremse", "Die Schuldenbremse soll bleiben."),
]


def write_election(folder: Path) -> None:
    folder.mkdir(parents=True)
    opinions, comments = [], []
    for p, party in enumerate(PARTIES):
        for s, (label, _) in enumerate(STATEMENTS):
            answer = (p + s) % 3
            comments.append(
                {
                    "id": len(comments),
                    "text": f'"Wir sagen zu {label}: {party} hat dazu eine klare Haltung."',
                }
            )
            opinions.append(
                {
                    "id": len(opinions),
                    "party": p,
                    "statement": s,
                    "answer": answer,
                    "comment": len(comments) - 1,
                }
            )
    files = {
        "overview": {
            "title": "Bundestagswahl 2025",
            "date": "2025-02-23",
            "slug": "bundestagswahl2025",
        },
        "answer": [
            {"id": 0, "message": "Neutral"},
            {"id": 1, "message": "stimme nicht zu"},
            {"id": 2, "message": "Stimme zu"},
        ],
        "party": [{"id": i, "name": n, "longname": n} for i, n in enumerate(PARTIES)],
        "statement": [
            {"id": i, "category": None, "label": lab, "text": t}
            for i, (lab, t) in enumerate(STATEMENTS)
        ],
        "opinion": opinions,
        "comment": comments,
    }
    for name, content in files.items():
        (folder / f"{name}.json").write_text(
            json.dumps(content, ensure_ascii=False), encoding="utf-8"
        )


@pytest.fixture
def qom_mirror(tmp_path: Path) -> Iterator[str]:
    """A local HTTP server with qual-o-mat-data's layout: <base>/2025/deutschland/<file>.json."""
    root = tmp_path / "qom"
    write_election(root / "2025" / "deutschland")
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def polistemics_shim(folder: Path) -> Path:
    """``folder/polistemics``: this checkout's CLI under the name the README types."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "polistemics"
    shim.write_text(
        f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(ROOT / 'src'))} exec {shlex.quote(sys.executable)} "
        '-m polistemics "$@"\n'
    )
    shim.chmod(0o755)
    return shim


@pytest.mark.timeout(900)
def test_every_readme_command_runs_on_a_fresh_checkout(tmp_path: Path, qom_mirror: str):
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    work = tmp_path / "checkout"
    work.mkdir()
    for name, body in saved_files(blocks).items():
        (work / name).write_text(body, encoding="utf-8")
    venv_bin = polistemics_shim(work / ".venv" / "bin").parent
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("POLISTEMICS_") and not key.endswith("_API_KEY")
    }
    env |= {
        "PATH": f"{venv_bin}{os.pathsep}{env.get('PATH', '')}",
        "POLISTEMICS_DATA": str(tmp_path / "data"),
        "POLISTEMICS_QOM_URL": qom_mirror,
        "POLISTEMICS_QUIET": "1",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "COLUMNS": "120",
    }
    ran, skipped = [], []
    # The key the README exports: the test server accepts only it, so calls prove it travelled.
    key = re.search(r"export OPENROUTER_API_KEY=(\S+)", README.read_text(encoding="utf-8"))
    assert key is not None, "the first study exports its key"
    with FakeOpenAIServer(expected_api_key=key[1]) as server:
        env["POLISTEMICS_OPENROUTER_BASE_URL"] = server.base_url
        env["POLISTEMICS_OPENAI_BASE_URL"] = server.base_url
        for lang, body in blocks:
            if lang not in ("bash", "sh", "shell", "console"):
                continue
            for command in shell_commands(body):
                if (reason := skip_reason(command)) is not None:
                    skipped.append((command, reason))
                    continue
                if m := re.fullmatch(r"export (\w+)=(\S*)", command):
                    env[m[1]] = m[2]
                    ran.append(command)
                    continue
                done = subprocess.run(
                    ["bash", "-c", command],
                    cwd=work,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=600,
                )
                assert done.returncode == 0, (
                    f"README command failed: {command}\nstdout:\n{done.stdout[-3000:]}\n"
                    f"stderr:\n{done.stderr[-3000:]}"
                )
                ran.append(command)
        stats = server.stats()
        assert stats.authorized > 0 and stats.unauthorized == 0, stats
    run_dir = work / "runs" / "my-study"
    for produced in ("report/report.html", "scores/summary.json", "scores/cells.csv", "run.json"):
        assert (run_dir / produced).is_file(), produced
    assert any(c.endswith("--dry-run") for c in ran)
    print("ran:", *ran, "skipped:", *(f"{c}: {r}" for c, r in skipped), sep="\n  ")
