"""CLI command ``polistemics coder validate --stance-coder NAME``: how far a stance coder can be trusted.

It runs the named coder (a registry name; a comma list is a panel coding by strict majority) on
the hand-labelled validation set shipped with the package, through the client layer, and prints
accuracy with a 95% Wilson interval, accuracy per language, Cohen's kappa, the 5x5 confusion
matrix (plus missing codes), outside-knowledge accuracy where labelled, and the missing count.

Calls are cached in ``--out`` (default ``runs/coder-validate/<coder names>``, beside the runs
it helps to plan), so a rerun, or one that was interrupted, repeats no finished call.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polistemics.cli.deprecated import renamed
from polistemics.cli.errors import UserError, user_errors
from polistemics.cli.groups import add_group
from polistemics.paths import inside, is_safe_name

if TYPE_CHECKING:
    from polistemics.coding.validation import ValidationReport
    from polistemics.llm.registry import ModelEndpoint

# The coder, the validation set's statistics (scipy, statsmodels) and the client are imported
# when ``coder validate`` runs: ``polistemics --help`` imports this module too.

DEFAULT_ROOT = Path("runs") / "coder-validate"


def register(app: typer.Typer) -> None:
    """Add the ``coder`` command group and its validate command."""
    coder = add_group(
        app,
        "coder",
        help="The stance coder: check a coder against the hand-labelled validation set.",
    )
    coder.command("validate")(validate)


def validate(
    model: Annotated[
        str,
        typer.Option(
            "--stance-coder",
            help="The coder's registry name; a comma list is a panel (strict majority).",
        ),
    ],
    _model: Annotated[str | None, renamed("--model", "--stance-coder")] = None,
    models_file: Annotated[
        Path | None, typer.Option("--models-file", help="Extra model registry TOML.")
    ] = None,
    _registry: Annotated[str | None, renamed("--registry", "--models-file")] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder for the call store. Default: runs/coder-validate/<coder names>.",
        ),
    ] = None,
    validation_file: Annotated[
        Path | None,
        typer.Option("--set", help="Another validation set in the shipped set's JSONL format."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Code the validation set with a stance coder and print how it agrees with the labels."""
    from polistemics.coding.validation import ValidationSetError, load_validation_set
    from polistemics.llm.local_server import LocalModelError
    from polistemics.llm.registry import RegistryError, default_registry
    from polistemics.paths import UnsafePathError

    with user_errors(RegistryError, ValidationSetError, UnsafePathError, LocalModelError, OSError):
        names = [name.strip() for name in model.split(",") if name.strip()]
        if not names:
            raise UserError("--stance-coder names no coder")
        registry = default_registry(models_file)
        coders = [registry.get(name) for name in names]
        items = load_validation_set(validation_file)
        store_dir = out if out is not None else inside(DEFAULT_ROOT, store_name(names))
        store_dir.mkdir(parents=True, exist_ok=True)
        report = asyncio.run(_validate(coders, items, store_dir, quiet=as_json))
    if as_json:
        typer.echo(json.dumps(report.as_json() | {"store": str(store_dir)}, indent=2))
    else:
        typer.echo(format_report(report, store_dir))


def store_name(names: list[str]) -> str:
    """A folder name for the panel: the names joined, or a digest when that is not a safe name."""
    joined = "_".join(names)
    if is_safe_name(joined):
        return joined
    return "panel-" + hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]


async def _validate(coders: list[ModelEndpoint], items, store_dir: Path, *, quiet: bool):
    from polistemics.coding.coder import STAGE, code_subjects
    from polistemics.coding.records import majority_codes
    from polistemics.coding.validation import evaluate
    from polistemics.llm.progress import declare_total
    from polistemics.llm.session import open_client

    subjects = [item.subject() for item in items]
    async with open_client(store_dir, quiet=quiet) as client:
        declare_total(client.listeners, STAGE, len(subjects) * len(coders))  # first tries
        records = await code_subjects(client, coders, subjects)
    reasons = Counter(_reason(r.missing) for r in records if r.stance is None)
    return evaluate(items, majority_codes(records), [c.name for c in coders], dict(reasons))


def _reason(missing: str | None) -> str:
    """The kind of a missing code, without the reply's own words (they may be long)."""
    text = missing or "unknown"
    return text.split(":", 1)[0] if text.startswith(("call failed", "unreadable after")) else text


def _rate(successes: int, n: int, ci: tuple[float, float] | None) -> str:
    if not n:
        return "n/a (0 items)"
    assert ci is not None
    return f"{successes / n:.4f} ({successes}/{n}), 95% CI [{ci[0]:.4f}, {ci[1]:.4f}]"


def format_report(report: ValidationReport, store_dir: Path) -> str:
    from polistemics.coding.validation import LABELS, LANGUAGE_NAMES, MISSING

    acc = report.accuracy
    lines = [
        f"stance coder: {', '.join(report.coders)}  ({acc.n} items; calls stored in {store_dir})",
        f"accuracy: {_rate(acc.successes, acc.n, acc.ci)}",
    ]
    for language, part in report.per_language.items():
        lines.append(f"  {LANGUAGE_NAMES[language]:<8} {_rate(part.successes, part.n, part.ci)}")
    kappa = "n/a" if report.kappa is None else f"{report.kappa:.4f}"
    lines.append(f"Cohen's kappa (coded items): {kappa}")
    ok = report.outside_knowledge
    lines.append(f"outside knowledge accuracy: {_rate(ok.successes, ok.n, ok.ci)}")
    lines.append(f"missing codes: {report.missing}")
    for reason, count in sorted(report.missing_reasons.items()):
        lines.append(f"  {count} seat code(s): {reason}")
    columns = [label.value for label in LABELS] + [MISSING]
    width = max(len(c) for c in columns) + 1
    lines.append("confusion matrix (rows: label, columns: coded):")
    lines.append(" " * width + "".join(f"{c:>{width}}" for c in columns))
    for truth, row in report.confusion.items():
        lines.append(f"{truth:<{width}}" + "".join(f"{row[c]:>{width}}" for c in columns))
    return "\n".join(lines)
