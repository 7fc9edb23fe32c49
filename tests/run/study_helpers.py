"""Build a small study config whose models all live on one test server."""

from __future__ import annotations

import os
import subprocess
import sys
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
