"""CLI commands: ``polistemics environments build``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from polistemics.cli.deprecated import renamed
from polistemics.cli.errors import UserError, fail, user_errors
from polistemics.cli.groups import add_group
from polistemics.conditions import Environment, Variant
from polistemics.environments.vague import DEFAULT_MAX_ATTEMPTS

if TYPE_CHECKING:
    from polistemics.environments.build import BuildResult
    from polistemics.records import Evidence, Position

# The environments' builders (numpy, the embedders) are imported when ``environments build``
# runs: ``polistemics --help`` imports this module too.

_ENV_NAMES = ", ".join(e.value for e in Environment)


def _errors() -> tuple[type[Exception], ...]:
    """The errors ``environments build`` reports as a user's."""
    from polistemics.environments.basis import EnvironmentInputError
    from polistemics.environments.embeddings import EmbeddingBackendError
    from polistemics.environments.evidence_file import EvidenceFileError
    from polistemics.llm.registry import RegistryError
    from polistemics.runlog.release_io import ReleaseFormatError

    return (
        EnvironmentInputError,
        EvidenceFileError,
        ReleaseFormatError,
        RegistryError,
        EmbeddingBackendError,
    )


def register(app: typer.Typer) -> None:
    """Add the ``environments`` command group and its build command."""
    environments = add_group(
        app,
        "environments",
        help="Information environments: build the contexts each observation is asked under.",
    )
    environments.command("build")(build)


def _default_embedding_cache() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("polistemics")) / "embeddings"


def build(
    evidence_file: Annotated[
        Path | None,
        typer.Option("--evidence", help="Standardised evidence: a JSONL file of Evidence rows."),
    ] = None,
    release_file: Annotated[
        Path | None,
        typer.Option(
            "--evidence-from-release",
            help="Take the evidence from the Baseline rows of a release ground_truth.jsonl.",
        ),
    ] = None,
    only: Annotated[
        str | None,
        typer.Option(
            "--environments",
            help=f"Comma-separated environments ({_ENV_NAMES}). Default: all of the variant's.",
        ),
    ] = None,
    _only: Annotated[str | None, renamed("--only", "--environments")] = None,
    compositions: Annotated[
        str | None,
        typer.Option(
            "--compositions",
            help="Comma-separated combined environments, each two parts joined with '+' (e.g. "
            "ie_clarity_vague+ie_noise); full variant only, the parts built too.",
        ),
    ] = None,
    variant: Annotated[
        Variant, typer.Option("--variant", help="full; anon (Baseline, Vague); en (Baseline).")
    ] = Variant.FULL,
    embeddings: Annotated[
        str, typer.Option("--embeddings", help="Noisy distractors: use or tfidf.")
    ] = "use",
    embedding_cache: Annotated[
        Path | None,
        typer.Option(
            "--embedding-cache", help="Folder for cached embeddings (default: the user cache)."
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--vague-generator", help="Registry name of the Vague generator."),
    ] = None,
    _model: Annotated[str | None, renamed("--model", "--vague-generator")] = None,
    audit_model: Annotated[
        str | None,
        typer.Option(
            "--vague-auditor",
            help="Registry name of the Vague auditor (default: --vague-generator), run at "
            "temperature 0.",
        ),
    ] = None,
    _audit_model: Annotated[str | None, renamed("--audit-model", "--vague-auditor")] = None,
    registry: Annotated[
        Path | None, typer.Option("--models-file", help="Extra model registry TOML.")
    ] = None,
    _registry: Annotated[str | None, renamed("--registry", "--models-file")] = None,
    run_dir: Annotated[
        Path | None,
        typer.Option(
            "--run-dir",
            help="Run directory whose store caches the Vague calls (default: no cache).",
        ),
    ] = None,
    max_vague_attempts: Annotated[
        int,
        typer.Option("--vague-max-tries", min=1, help="Tries per observation for Vague."),
    ] = DEFAULT_MAX_ATTEMPTS,
    _max_vague_attempts: Annotated[
        str | None, renamed("--max-vague-attempts", "--vague-max-tries")
    ] = None,
    election: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="The election (its source spec, KIND:PATH) whose stances give party distances; "
            "default: the evidence's.",
        ),
    ] = None,
    _election: Annotated[str | None, renamed("--election", "--source")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seeds the Vague mode draws.")] = 0,
    counterbalance: Annotated[
        bool,
        typer.Option(
            "--counterbalance-contradictory-order",
            help="Show the opposing passage first for every second Contradictory item.",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the items as release-format JSONL."),
    ] = None,
) -> None:
    """Build environments from standardised evidence and print kept/dropped per environment."""
    with user_errors(*_errors()):
        from polistemics.environments.build import build_environments, parse_environments
        from polistemics.environments.embeddings import make_embedder
        from polistemics.runlog.release_io import write_items

        evidence = _load_evidence(evidence_file, release_file)
        wanted = parse_environments(only) if only else list(variant.environments)
        composed = parse_environments(compositions) if compositions else []
        positions = _election_positions(election) if election else []
        embedder = None
        if Environment.NOISY in wanted:
            if embeddings not in ("use", "tfidf"):
                raise UserError(f"--embeddings must be 'use' or 'tfidf', got '{embeddings}'")
            embedder = make_embedder(embeddings, embedding_cache or _default_embedding_cache())  # type: ignore[arg-type]
        kwargs = dict(
            environments=wanted,
            variant=variant,
            seed=seed,
            positions=positions,
            embedder=embedder,
            counterbalance_contradictory_order=counterbalance,
            compositions=composed,
        )
        if Environment.VAGUE in wanted:
            if not model:
                raise UserError(
                    "the Vague environment needs --vague-generator NAME "
                    "(or leave it out with --environments)"
                )
            result = asyncio.run(
                _build_with_client(
                    evidence,
                    kwargs,
                    model,
                    audit_model or model,
                    registry,
                    run_dir,
                    max_vague_attempts,
                )
            )
        else:
            result = asyncio.run(build_environments(evidence, **kwargs))
    _print_summary(result, len(evidence))
    if out:
        count = write_items(result.items, out)
        typer.echo(f"wrote {count} rows to {out}")


def _load_evidence(evidence_file: Path | None, release_file: Path | None) -> list[Evidence]:
    from polistemics.environments.evidence_file import read_evidence_jsonl
    from polistemics.runlog.release_io import read_release_evidence

    if (evidence_file is None) == (release_file is None):
        raise UserError(
            "give exactly one of --evidence FILE.jsonl and --evidence-from-release FILE"
        )
    if evidence_file is not None:
        evidence = read_evidence_jsonl(evidence_file)
    else:
        assert release_file is not None
        evidence = read_release_evidence(release_file)
    if not evidence:
        raise UserError(f"{evidence_file or release_file}: no evidence found")
    return evidence


def _election_positions(spec: str) -> list[Position]:
    from polistemics.sources.errors import SourceError
    from polistemics.sources.load import load_election

    try:
        return load_election(spec).positions
    except SourceError as exc:
        raise UserError(str(exc)) from None


async def _build_with_client(
    evidence: list[Evidence],
    kwargs: dict,
    model: str,
    audit_model: str,
    registry: Path | None,
    run_dir: Path | None,
    max_attempts: int,
) -> BuildResult:
    from polistemics.environments.build import VagueSettings, build_environments
    from polistemics.llm.registry import default_registry

    models = default_registry(registry)
    endpoint, audit_endpoint = models.get(model), models.get(audit_model)
    try:
        from polistemics.llm.session import open_client
    except ImportError as exc:
        fail(f"the Vague environment needs the model client layer (polistemics.llm.session): {exc}")
    async with open_client(run_dir) as client:
        vague = VagueSettings(client, endpoint, audit_endpoint, max_attempts)
        return await build_environments(evidence, vague=vague, **kwargs)


def _print_summary(result: BuildResult, total: int) -> None:
    typer.echo(f"{total} observations")
    for summary in result.summaries:
        details = ", ".join(f"{k} {v}" for k, v in summary.details.items())
        typer.echo(
            f"  {summary.environment.value:<30} kept {summary.kept:>5}  dropped {summary.dropped:>5}"
            + (f"  ({details})" if details else "")
        )
