"""Build a small study config whose models all live on one test server, and run the CLI on it."""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from pathlib import Path


def write_study(
    tmp_path: Path, base_url: str, key_env: str | None = None, **overrides: str
) -> Path:
    models = tmp_path / "models.toml"
    models.write_text(
        "\n".join(
            f'[models.{name}]\nbase_url = "{base_url}"\nmodel = "fake-model"\n'
            f"temperature = {temp}\nmax_concurrency = 8\n"
            + (f'api_key_env = "{key_env}"\n' if key_env else "")
            for name, temp in [
                ("target", 0.0),
                ("judge-a", 0.0),
                ("judge-b", 0.0),
                ("judge-c", 0.0),
                ("writer", 0.3),
            ]
        )
    )
    config = tmp_path / "study.toml"
    fields = {
        "name": '"pipeline-test"',
        "targets": '["target"]',
        "judges": '["judge-a", "judge-b", "judge-c"]',
        "standardiser": '"writer"',
        "vague_generator": '"writer"',
        "vague_auditor": '"judge-a"',
        "ablations": '["anon", "en"]',
        "embeddings": '"tfidf"',
        "models_file": f'"{models}"',
        "output_dir": f'"{tmp_path / "run"}"',
        **overrides,
    }
    body = "\n".join(f"{k} = {v}" for k, v in fields.items())
    config.write_text(body + '\n\n[[elections]]\nsource = "demo"\nscope = "demo"\n')
    return config


def start_run(config: Path) -> subprocess.Popen:
    """``polistemics run CONFIG -q`` in a child process (stderr piped, as text)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from polistemics.cli import main; main()",
            "run",
            str(config),
            "-q",
        ],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``polistemics ARGS`` in this process, as ``polistemics.cli.main`` runs it (only the named
    command registered), finished as a child process would be: its exit code, stdout and stderr
    (an uncaught exception's traceback included). For tests of what a command does; a child
    process (``start_run``) pays the imports again, about 2.5 s of CPU, so it is kept for tests
    of the process itself (a kill, a lock, piped output)."""
    from typer.testing import CliRunner

    from polistemics.cli import build_app, requested_command

    command = requested_command(args)
    app = build_app([command]) if command else build_app()
    result = CliRunner().invoke(app, list(args))
    stderr = result.stderr
    if result.exc_info is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return subprocess.CompletedProcess(
        ["polistemics", *args], result.exit_code, result.stdout, stderr
    )
