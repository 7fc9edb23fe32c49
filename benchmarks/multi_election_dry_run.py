"""The dry run of a study of every Wahl-O-Mat election a data folder holds (issue 32).

One target model and the paper's panel (the ``paper-de`` preset's judges, standardiser and Vague
models, both ablations; without its mechanisms), every Wahl-O-Mat election of the folder with at
least one rationale, each with all its parties. Runs ``polistemics run CONFIG --dry-run --json``
in its own process, as a user would, and prints the elections, answers, judge calls, calls, the
online cost estimate and the disk estimate, with that process's wall time, CPU time and peak
memory (``wait4``).

``--synthetic N`` first writes N synthetic elections in qual-o-mat-data's layout
(``wahlomat/<year>/<region>/{overview,party,statement,answer,opinion,comment}.json``; seeded;
38 statements, 10-40 parties, a rationale of 2-5 sentences for about 9 in 10 positions, as in
the real ones) into a temporary data folder, so the 70-election case can be measured without
the data.

    python benchmarks/multi_election_dry_run.py /work/shared/data
    python benchmarks/multi_election_dry_run.py --synthetic 70
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from polistemics.run.config import load_config
from polistemics.sources.catalog import election_specs
from polistemics.sources.load import load_election

STATEMENTS = 38
PARTIES = (10, 40)
RATIONALE_SHARE = 0.9
REGIONS = [
    "deutschland",
    "europa",
    "baden-wuerttemberg",
    "bayern",
    "berlin",
    "brandenburg",
    "bremen",
    "hamburg",
    "hessen",
    "mecklenburg-vorpommern",
    "niedersachsen",
    "nordrhein-westfalen",
    "rheinland-pfalz",
    "saarland",
    "sachsen",
    "sachsen-anhalt",
    "schleswig-holstein",
    "thueringen",
]
STANCES = [(0, "Stimme zu"), (1, "Stimme nicht zu"), (2, "Neutral")]
SENTENCES = [
    "Die Partei {party} setzt sich in der Frage {topic} für eine klare Regelung ein.",
    "Sie verweist auf die Erfahrungen der vergangenen Jahre in {region}.",
    "Aus Sicht der Partei müssen die Kosten gerecht verteilt werden.",
    "Deshalb fordert sie ein Gesetz, das die Kommunen entlastet und Planungssicherheit schafft.",
    "Sie lehnt Ausnahmen ab, die nur wenigen Gruppen nützen.",
    "Die Umsetzung soll bis zum Ende der Wahlperiode abgeschlossen sein.",
]


def synthetic_elections(root: Path, count: int, seed: int = 0) -> None:
    """``count`` elections under ``root/wahlomat/<year>/<region>/``, as qual-o-mat-data has them."""
    rng = random.Random(seed)
    pairs = [(year, region) for year in range(2002, 2027) for region in REGIONS]
    for year, region in sorted(rng.sample(pairs, count)):
        folder = root / "wahlomat" / str(year) / region
        folder.mkdir(parents=True)
        n_parties = rng.randint(*PARTIES)
        slug = f"{region.replace('-', '')}{year}"

        def write(name: str, data: object, folder: Path = folder) -> None:
            (folder / f"{name}.json").write_text(
                json.dumps(data, ensure_ascii=False), encoding="utf-8"
            )

        write(
            "overview",
            {"title": f"Wahl {region} {year}", "date": f"{year}-05-01", "slug": slug},
        )
        write(
            "party",
            [
                {"id": p, "name": f"P{p + 1}", "longname": f"Partei {p + 1} in {region}"}
                for p in range(n_parties)
            ],
        )
        write(
            "statement",
            [
                {
                    "id": s,
                    "category": None,
                    "label": f"Thema {s + 1}",
                    "text": f"Das Land soll die Maßnahme {s + 1} ({region}, {year}) umsetzen.",
                }
                for s in range(STATEMENTS)
            ],
        )
        write("answer", [{"id": i, "message": m} for i, m in STANCES])
        opinions, comments = [], []
        for p in range(n_parties):
            for s in range(STATEMENTS):
                i = len(opinions)
                if rng.random() < RATIONALE_SHARE:
                    sentences = rng.sample(SENTENCES, rng.randint(2, 5))
                    text = " ".join(sentences).format(party=f"P{p + 1}", topic=s + 1, region=region)
                    text = f'"{text}"'
                else:
                    text = '""'
                comments.append({"id": i, "text": text})
                answer = rng.choices([0, 1, 2], weights=[0.45, 0.45, 0.10])[0]
                opinions.append(
                    {"id": i, "party": p, "statement": s, "answer": answer, "comment": i}
                )
        write("opinion", opinions)
        write("comment", comments)


def wahlomat_specs(data: Path) -> tuple[list[str], list[str]]:
    """The folder's Wahl-O-Mat specs with at least one rationale, and those left out (why)."""
    os.environ["POLISTEMICS_DATA"] = str(data)
    kept, left_out = [], []
    for spec in election_specs(data):
        if not spec.startswith("wahlomat:"):
            continue
        election = load_election(spec)
        if any(p.has_rationale for p in election.positions):
            kept.append(spec)
        else:
            left_out.append(f"{spec} (no rationale)")
    return kept, left_out


def study_config(folder: Path, specs: list[str]) -> Path:
    """``paper-de``'s panel and models, one target, every election (all parties)."""
    paper = load_config("paper-de")
    lines = [
        'name = "every-election"',
        f'targets = ["{paper.targets[0]}"]',
        "judges = [" + ", ".join(f'"{j}"' for j in paper.judges) + "]",
        f'standardiser = "{paper.standardiser}"',
        f'vague_generator = "{paper.vague_generator}"',
        f'vague_auditor = "{paper.vague_auditor}"',
        'ablations = ["anon", "en"]',
        "",
    ]
    lines += [f'[[elections]]\nsource = "{spec}"\n' for spec in specs]
    path = folder / "every-election.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def dry_run(config: Path, data: Path, run_dir: Path) -> dict:
    """``polistemics run CONFIG --dry-run --json`` in its own process: the plan, wall, CPU, peak."""
    command = [sys.executable, "-m", "polistemics", "run", str(config), "--dry-run", "--json"]
    command += ["--out", str(run_dir)]
    env = {**os.environ, "POLISTEMICS_DATA": str(data)}
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the dry run failed: {' '.join(command)}")
    return {
        "plan": json.loads(out),
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="?", help="a data folder (wahlomat/ inside)")
    parser.add_argument("--synthetic", type=int, help="write N synthetic elections first")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if (args.data is None) == (args.synthetic is None):
        parser.error("give a data folder or --synthetic N")
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data
        if args.synthetic is not None:
            data = Path(tmp) / "data"
            started = time.perf_counter()
            synthetic_elections(data, args.synthetic, args.seed)
            print(f"synthetic data        {time.perf_counter() - started:.1f} s to write")
        specs, left_out = wahlomat_specs(data)
        if not specs:
            raise SystemExit(f"no Wahl-O-Mat election with rationales in {data}/wahlomat")
        config = study_config(Path(tmp), specs)
        result = dry_run(config, data, Path(tmp) / "run")
    plan, details = result["plan"], result["plan"]["details"]
    stages = plan["stages"]
    costs = [s["cost"] for s in stages if s["cost"] is not None]
    observations = sum(e.get("observations", 0) for e in details["elections"].values())
    print(
        f"elections             {len(specs)}" + (f" ({len(left_out)} left out)" if left_out else "")
    )
    for spec in left_out:
        print(f"  left out            {spec}")
    print(f"observations          {observations:,}")
    print(f"answers               {details['answers_total']:,}")
    print(f"judge calls           {details['judge_calls_total']:,}")
    print(f"calls                 {sum(s['calls'] for s in stages):,}")
    n_a = sum(s["cost"] is None for s in stages)
    print(f"online cost estimate  ${sum(costs):,.2f}" + (f" ({n_a} rows n/a)" if n_a else ""))
    if "disk" in plan:
        print(f"disk estimate         {plan['disk']['needed'] / 1e9:.2f} GB")
    print(f"dry run wall time     {result['wall']:.1f} s")
    print(f"dry run CPU time      {result['cpu']:.1f} s")
    print(f"dry run peak memory   {result['peak_mb']:.0f} MB (RSS)")


if __name__ == "__main__":
    main()
