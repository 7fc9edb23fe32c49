"""The whole study at the paper's scale, against the project's test server.

A synthetic election of the paper's size (485 observations: 8 parties x 61 statements, 3 without
a rationale), all 6 environments and both ablations, 3 target models and a 3-judge panel of
distinct models, every stage through the client layer. The test server answers after a fixed
latency (plus an optional jitter, uniform in [0, jitter)) in its own process. Prints total calls,
wall time, wall / ideal (ideal = calls x mean latency / concurrency), harness CPU ms per call and
peak memory and the report's size; then reruns the study and prints how many calls the rerun
made (must be 0). ``--scale N`` makes the election N times larger: N times the statements per
party, the same 3 positions without a rationale (4x: 8 x 244 - 3 = 1,949 observations).

    python benchmarks/paper_scale.py --latency-ms 50 --concurrency 64
    python benchmarks/paper_scale.py --scale 4 --latency-ms 20 --concurrency 64
    python benchmarks/paper_scale.py --latency-ms 500 --jitter-ms 500 --concurrency 256
    python benchmarks/paper_scale.py --latency-ms 500 --jitter-ms 500 --concurrency 256 --no-gc-freeze
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from client_overhead import test_server  # noqa: E402

PARTIES = 8
STATEMENTS = 61
MISSING = 3  # positions without a rationale: 8 x 61 - 3 = 485 observations
STANCES = ["Agree", "Disagree", "Neutral"]


def synthetic_election(path: Path, seed: int = 0, scale: int = 1) -> None:
    """The paper-sized election, or one with ``scale`` times the statements per party."""
    statements = STATEMENTS * scale
    rng = random.Random(seed)
    missing = set(rng.sample(range(PARTIES * statements), MISSING))
    rows = []
    for p in range(PARTIES):
        for s in range(statements):
            stance = rng.choices(STANCES, weights=[0.45, 0.45, 0.10])[0]
            name = f"Party {p + 1} of Benchland"
            rationale = (
                ""
                if p * statements + s in missing
                else (
                    f"The {name} takes a clear line on topic {s + 1}. The party argues that policy "
                    f"{s + 1} affects many households in the country. It wants the parliament to act "
                    f"on this question without delay."
                )
            )
            rows.append(
                {
                    "election_id": "benchland2099",
                    "country": "xx",
                    "language": "en",
                    "party_name": name,
                    "statement_number": s + 1,
                    "statement_text": f"The state should adopt policy number {s + 1}.",
                    "stance": stance,
                    "rationale": rationale,
                }
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def write_config(
    folder: Path, base_url: str, concurrency: int, prompt_order: bool = False, scale: int = 1
) -> Path:
    names = [
        "target-1",
        "target-2",
        "target-3",
        "judge-1",
        "judge-2",
        "judge-3",
        "writer",
        "auditor",
    ]
    (folder / "models.toml").write_text(
        "".join(
            f'[models.{n}]\nbase_url = "{base_url}"\nmodel = "fake-{n}"\ntemperature = 0.0\n'
            f"timeout = 60\n\n"
            for n in names
        )
    )
    election = folder / "benchland.jsonl"
    synthetic_election(election, scale=scale)
    config = folder / "paper-scale.toml"
    config.write_text(
        'name = "paper-scale"\n'
        'targets = ["target-1", "target-2", "target-3"]\n'
        'judges = ["judge-1", "judge-2", "judge-3"]\n'
        'standardiser = "writer"\nvague_generator = "writer"\nvague_auditor = "auditor"\n'
        'ablations = ["anon", "en"]\nembeddings = "tfidf"\n'
        f"concurrency = {concurrency}\n"
        # Judging after all answers, calls sharing a prompt prefix sent together.
        + ("overlap_judging = false\n" if prompt_order else "")
        + f'models_file = "{folder / "models.toml"}"\noutput_dir = "{folder / "run"}"\n\n'
        f'[[elections]]\nsource = "generic:{election}"\n'
    )
    return config


def run_cli(config_path: Path, env: dict[str, str] | None = None) -> dict:
    """``polistemics run CONFIG`` in its own process, as a user runs it: its wall time, CPU
    seconds and peak memory (that process's and the worker processes' it waited for, read with
    wait4), and its run.json."""
    command = [sys.executable, "-m", "polistemics", "run", str(config_path), "--quiet"]
    run_dir = config_path.parent / "run"
    wall0 = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    phases = PhaseWatch(process.pid, run_dir)
    phases.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - wall0
    phases.stop()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"polistemics run failed with exit code {process.returncode}")
    return {
        "call_stage_peak_mb": phases.call_stage_peak_mb,
        "call_stage_cpu": phases.call_stage_cpu,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "manifest": json.loads((run_dir / "run.json").read_text(encoding="utf-8")),
        "answers": _lines(run_dir / "answers.jsonl"),
        "report_bytes": folder_bytes(run_dir / "report"),
        "page_bytes": (run_dir / "report" / "report.html").stat().st_size,
        "judge_records": _lines(run_dir / "judges.jsonl"),
    }


class PhaseWatch(threading.Thread):
    """The run process's peak memory (VmHWM) and CPU time when its model stages end: the first
    file of the run directory other than the store and the hidden lock files (the finish step's
    exports) marks the end, so the call stage's figures include the scoring just before them."""

    INTERVAL = 0.05  # seconds between two looks

    def __init__(self, pid: int, run_dir: Path):
        super().__init__(daemon=True)
        self.pid, self.run_dir = pid, run_dir
        self.call_stage_peak_mb: float | None = None
        self.call_stage_cpu: float | None = None
        self._done = threading.Event()

    def stop(self) -> None:
        self._done.set()
        self.join()

    def run(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        while not self._done.wait(self.INTERVAL):
            try:
                status = Path(f"/proc/{self.pid}/status").read_text()
                fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                return
            peak_kb = next(
                (int(line.split()[1]) for line in status.splitlines() if line[:6] == "VmHWM:"),
                None,
            )
            if peak_kb is None:  # the process is a zombie: gone
                return
            self.call_stage_peak_mb = peak_kb / 1024
            self.call_stage_cpu = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
            if self._finishing():
                return

    def _finishing(self) -> bool:
        if not self.run_dir.is_dir():
            return False
        return any(not p.name.startswith(("store.sqlite", ".")) for p in self.run_dir.iterdir())


def run_loop_name(env: dict[str, str] | None) -> str:
    """The event loop ``polistemics run`` picked (``llm.event_loop``; asyncio's in older trees)."""
    command = [
        sys.executable,
        "-c",
        "try:\n from polistemics.llm.event_loop import loop_name; print(loop_name())\n"
        "except ImportError:\n print('asyncio')",
    ]
    return subprocess.run(command, capture_output=True, text=True, env=env).stdout.strip()


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _lines(path: Path) -> int:
    with path.open(encoding="utf-8") as handle:
        return sum(1 for _ in handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument(
        "--jitter-ms", type=float, default=0.0, help="extra server delay, uniform in [0, jitter)"
    )
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--prompt-order",
        action="store_true",
        help="judge after all answers, calls sharing a prompt prefix together "
        "(overlap_judging = false)",
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=1,
        help="the election N times larger: N times the statements per party (default 1)",
    )
    parser.add_argument(
        "--no-gc-freeze",
        action="store_true",
        help="run without the run's garbage-collector policies (POLISTEMICS_GC_POLICY=off)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="keep the study's folder (config, election, run) here; it must not exist yet",
    )
    args = parser.parse_args()
    if args.out is not None and args.out.exists():
        parser.error(f"--out {args.out} exists already")
    env = {**os.environ, "POLISTEMICS_GC_POLICY": "off"} if args.no_gc_freeze else None
    jitter = ["--jitter-ms", str(args.jitter_ms)] if args.jitter_ms else []

    with test_server(args.latency_ms, jitter) as server, tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        config = write_config(
            folder, server.base_url, args.concurrency, args.prompt_order, args.scale
        )
        first = run_cli(config, env)
        rerun = run_cli(config, env)

    manifest = first["manifest"]
    calls = manifest["calls_made_this_run"]
    mean_latency_ms = args.latency_ms + args.jitter_ms / 2  # the jitter is uniform
    ideal = calls * mean_latency_ms / 1000 / args.concurrency
    environments = [
        env for election in manifest["elections"].values() for env in election["environments"]
    ]
    observations = sum(
        election["standardisation"].get("final_size", 0)
        for election in manifest["elections"].values()
    )
    print(f"event loop            {run_loop_name(env)}")
    print(f"scale                 {args.scale}")
    print(f"gc policies           {'off' if args.no_gc_freeze else 'on'}")
    print(f"observations          {observations}")
    print(f"environment items     {sum(env['kept'] for env in environments)}")
    print(f"answers               {first['answers']}")
    print(f"judge records         {first['judge_records']}")
    print(f"total calls           {calls}")
    stages = manifest["stage_seconds"]
    print("stage seconds         " + ", ".join(f"{k} {v:.1f}" for k, v in stages.items()))
    print(f"wall time             {first['wall']:.1f} s  (the whole command, imports to report)")
    print(
        f"ideal                 {ideal:.1f} s  "
        f"({mean_latency_ms:g} ms mean latency x calls / {args.concurrency})"
    )
    print(f"wall / ideal          {first['wall'] / ideal:.2f}")
    # The latency the client saw (server time plus the round trip and both event loops' queues):
    # the gap between this and the configured latency is not the harness's scheduling.
    observed_ms = sum(c["mean_latency_ms"] * c["calls"] for c in manifest["calls"]) / sum(
        c["calls"] for c in manifest["calls"]
    )
    observed_ideal = calls * observed_ms / 1000 / args.concurrency
    print(
        f"observed latency      {observed_ms:.1f} ms per call "
        f"(wall / ideal at that latency {first['wall'] / observed_ideal:.2f})"
    )
    print(f"harness CPU per call  {first['cpu'] / calls * 1000:.2f} ms")
    print(f"test server CPU/call  {server.cpu_seconds / calls * 1000:.2f} ms (its own process)")
    print(f"peak memory (RSS)     {first['peak_mb']:.0f} MB")
    if first["call_stage_peak_mb"] is not None:
        print(
            f"call stage            peak memory {first['call_stage_peak_mb']:.0f} MB, "
            f"CPU {first['call_stage_cpu'] / calls * 1000:.2f} ms per call "
            "(model stages and scoring, before the exports)"
        )
    totals = manifest["totals"]
    cached = totals.get("cached_input_tokens", 0)
    print(
        f"cached input tokens   {cached:,} of {totals['input_tokens']:,} "
        f"({cached / max(1, totals['input_tokens']):.1%}; the test server's prompt cache)"
    )
    print(
        f"rerun wall time       {rerun['wall']:.1f} s, CPU {rerun['cpu']:.1f} s "
        f"(with its figure workers), peak memory {rerun['peak_mb']:.0f} MB"
    )
    print(f"rerun calls made      {rerun['manifest']['calls_made_this_run']}")
    print(
        f"report size           {first['report_bytes'] / 1e6:.1f} MB "
        f"(page {first['page_bytes'] / 1e6:.1f} MB, with its figures and files)"
    )


if __name__ == "__main__":
    main()
