"""The figure file formats (``--figure-format``), in a module without matplotlib: the command
line parses and shows them (``polistemics --help``, ``run --dry-run``) without loading it."""

from __future__ import annotations

FIGURE_FORMATS = ("svg", "pdf", "png")
# What a run writes unless asked: the page draws SVG; PDF and PNG (for papers) cost about 4 s of a
# paper-scale run's wall time and twice that in CPU, so `polistemics report RUN` writes them on request.
RUN_FIGURE_FORMATS = ("svg",)


class FigureFormatError(ValueError):
    """A figure format other than svg, pdf and png."""


def parse_figure_formats(value: str) -> tuple[str, ...]:
    """``"svg,png"`` -> ``("svg", "png")``; unknown or no formats raise ``FigureFormatError``."""
    formats = []
    for part in value.split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name not in FIGURE_FORMATS:
            raise FigureFormatError(
                f"unknown figure format '{part.strip()}' (choose from {', '.join(FIGURE_FORMATS)})"
            )
        if name not in formats:
            formats.append(name)
    if not formats:
        raise FigureFormatError(f"no figure format given (choose from {', '.join(FIGURE_FORMATS)})")
    return tuple(formats)
