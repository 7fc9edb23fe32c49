"""Saving figures: inline-ready SVG text for the page, and SVG, PDF or PNG files for papers.

``save_figures`` writes many figures at once: the SVG here (the page inlines it too), the PDF and
PNG files in forked worker processes (drawing holds the GIL, and a paper-scale report draws each
of its figures three times). SVG alone, as a run writes it, is rendered by forked workers only
when its drawing is long enough to repay the fork (``FORK_MIN_SVG_SECONDS``).

PDF embeds its fonts as Type 42 (TrueType), never Type 3 (``FONT_RC``). SVG keeps text as text
(searchable labels), salts its ids with the figure id and carries no date; PDF carries no
creation date, so the same data gives the same files. A PDF or PNG file already in the folder is
not drawn again when it holds the same drawing: the folder's ``.figure-keys.json`` records, per
file, the key of what was drawn (the figure's SVG, this module's code, matplotlib's version,
settings and fonts) and the file's hash; a rerun whose figures did not change writes only their
SVG. matplotlib numbers
its SVG groups ``figure_1``, ``axes_1``, ... in every file, so the inline copy prefixes every id
(and every reference to one) with the figure id: several figures share one page.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import multiprocessing
import os
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from polistemics.paths import inside, write_text_replacing
from polistemics.report.figures.formats import FIGURE_FORMATS, FigureFormatError

PNG_DPI = 300
PAD_INCHES = 0.08
_BOX_ATTRIBUTE = "_polistemics_tight_box"

KEYS_FILE = ".figure-keys.json"  # in the figures folder: what each PDF and PNG file holds
MAX_KEYS_BYTES = 1 << 20  # a larger keys file is not read (then every file is drawn)
# Fonts embedded as Type 42 (TrueType) in PDF and PostScript: matplotlib's default, Type 3,
# is rejected by some publishers' submission checks. Set at every save (the forked workers
# save through ``_save`` too), so a caller's rcParams cannot bring Type 3 back.
FONT_RC = {"pdf.fonttype": 42, "ps.fonttype": 42}

_METADATA = {
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None},
    "png": {"Software": None},
}


def tight_box(figure: Figure) -> Bbox:
    """The figure's drawn extent in inches plus a margin: computed once (one draw) and reused
    by every format, instead of ``bbox_inches="tight"`` drawing each file twice."""
    box = getattr(figure, _BOX_ATTRIBUTE, None)
    if box is None:
        box = figure.get_tightbbox(_measuring_renderer(figure.dpi)).padded(PAD_INCHES)
        setattr(figure, _BOX_ATTRIBUTE, box)
    return box


@functools.cache
def _measuring_renderer(dpi: float) -> RendererAgg:
    """One Agg renderer per dpi that measures every figure's extent in this process: matplotlib
    keeps its text metrics per renderer, and a report's figures share most of their strings
    (labels, party names, cell values), which each figure's own canvas renderer measured again.
    An extent needs the renderer's dpi only, not its size (the same box as the figure's own)."""
    return RendererAgg(1, 1, dpi)


def _save(figure: Figure, target, fmt: str, salt: str) -> None:
    if fmt not in FIGURE_FORMATS:
        raise FigureFormatError(f"unknown figure format '{fmt}'")
    with matplotlib.rc_context({**FONT_RC, "svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(
            target,
            format=fmt,
            dpi=PNG_DPI,
            bbox_inches=tight_box(figure),
            facecolor="white",
            metadata=_METADATA[fmt],
        )


def svg_document(figure: Figure, salt: str) -> str:
    buffer = io.StringIO()
    _save(figure, buffer, "svg", salt)
    return buffer.getvalue()


# In the page a figure fills the column's width (its viewBox keeps the aspect), but is never
# drawn smaller than its own size (notes stay legible; wide figures scroll) nor larger than
# MAX_PAGE_SCALE times it (a small figure's text would grow huge).
MAX_PAGE_SCALE = 1.6
_POINTS = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)pt\s*$")


def _fit_to_page(root: ET.Element) -> None:
    found = _POINTS.match(root.get("width", ""))
    if found is None:
        return
    natural = float(found.group(1))
    root.set("width", "100%")
    root.attrib.pop("height", None)  # from the viewBox's aspect
    root.set(
        "style",
        f"width:100%;height:auto;min-width:{natural:g}pt;max-width:{MAX_PAGE_SCALE * natural:g}pt",
    )


SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
_URL_REF = re.compile(r"url\(#([^)]+)\)")


def inline_svg(figure: Figure, figure_id: str, document: str | None = None) -> str:
    """The SVG element alone (no XML declaration or DOCTYPE), its ids prefixed with
    ``figure_id``, ``xlink:href`` as plain ``href`` and without the RDF metadata block, sized
    to the page's width (``_fit_to_page``).
    ``document``: ``svg_document(figure, figure_id)`` when already rendered."""
    root = ET.fromstring(document or svg_document(figure, figure_id))
    _fit_to_page(root)
    prefix = f"{figure_id}-"
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag == f"{{{SVG_NS}}}metadata":
                parent.remove(child)
    href = f"{{{XLINK_NS}}}href"
    for element in root.iter():
        if "id" in element.attrib:
            element.set("id", prefix + element.get("id", ""))
        for name, value in list(element.attrib.items()):
            if name == href:  # SVG 2 ``href``: the page needs no xlink namespace
                del element.attrib[name]
                element.set("href", "#" + prefix + value[1:] if value.startswith("#") else value)
            elif "url(#" in value:
                element.set(name, _URL_REF.sub(lambda m: f"url(#{prefix}{m.group(1)})", value))
    return ET.tostring(root, encoding="unicode")


def write_figure(figure: Figure, path: Path, fmt: str, salt: str) -> Path:
    _save(figure, path, fmt, salt)
    return path


class FigureFiles:
    """The page and file interface of a drawn figure, for dataclasses with ``figure_id`` (unique
    within the page), ``stem`` (file name without extension) and ``figure``."""

    figure_id: str
    stem: str
    figure: Figure

    @property
    def file_name(self) -> str:
        return f"{self.stem}.svg"

    @cached_property
    def svg_document(self) -> str:
        """The standalone SVG file's text, rendered once for the file and the page."""
        return svg_document(self.figure, self.figure_id)

    @cached_property
    def svg(self) -> str:
        """Inline-ready SVG (no prologue, ids prefixed with ``figure_id``)."""
        return inline_svg(self.figure, self.figure_id, self.svg_document)

    def save(self, folder: Path, fmt: str) -> Path:
        # The stem holds an election id from the data: the file must stay in the folder.
        path = inside(folder, f"{self.stem}.{fmt}")
        if fmt == "svg":
            path.write_text(self.svg_document, encoding="utf-8")
            return path
        return write_figure(self.figure, path, fmt, self.figure_id)


# The figures a pool's forked workers draw from (set just before the fork, read by index in the
# workers: a figure is not sent to them, they inherit it).
_FORKED: Sequence[FigureFiles] = ()
MIN_PARALLEL_FIGURES = 4  # fewer figures are drawn here: a fork costs more than it saves
# SVG alone (what a run writes): the first PROBE_FIGURES are rendered here, on this thread's CPU
# clock, and workers are forked only when all of them would take longer than this at that
# pace. A fork costs a report about 0.4 CPU seconds; it saved no wall time at the demo's size
# (1.2-1.3 s of SVG) and 0.5-1 s at the paper's (2.4 s); the smaller reports of the test suite's
# studies (0.1-0.9 s) are drawn here (docs/benchmarks.md#session-25).
FORK_MIN_SVG_SECONDS = 1.0
PROBE_FIGURES = 3


def save_figures(
    figures: Sequence[FigureFiles], folder: Path, formats: Sequence[str]
) -> list[Path]:
    """Every figure in every format, in that order: the files ``FigureFiles.save`` writes, byte
    for byte (see ``saving_figures``)."""
    with saving_figures(figures, folder, formats) as paths:
        return paths


@contextmanager
def saving_figures(
    figures: Sequence[FigureFiles], folder: Path, formats: Sequence[str]
) -> Iterator[list[Path]]:
    """``save_figures`` that lets the caller work while files are drawn: the SVG documents are
    rendered on entry (by forked worker processes, where the platform forks, there are enough
    figures and cores to share them and, for SVG alone, enough drawing to repay the fork), and
    the SVG files written; the other files are drawn by the same workers while the block runs.
    A PDF or PNG file the folder already holds with the same drawing (``KEYS_FILE``) is kept.
    Every file is written when the block ends, where a worker's failure is raised."""
    files = [(i, fmt) for i in range(len(figures)) for fmt in formats if fmt != "svg"]
    # Checked before any worker writes: a stem from the data must stay in the folder.
    paths = {(i, fmt): inside(folder, f"{figures[i].stem}.{fmt}") for i, fmt in files}
    svg_paths = {i: inside(folder, f"{f.stem}.svg") for i, f in enumerate(figures)}
    workers = min(_cores(), len(figures))
    if (
        workers < 2
        or len(figures) < MIN_PARALLEL_FIGURES
        or not _can_fork()
        or (not files and not _svg_worth_forking(figures))
    ):
        with _drawn_here(figures, folder, formats, files, paths) as in_order:
            yield in_order
        return
    with _forked_workers(figures, workers) as pool:
        # The page inlines every SVG: rendered side by side, before the block runs.
        left = [i for i, figure in enumerate(figures) if "svg_document" not in figure.__dict__]
        for i, (document, box) in zip(left, pool.map(_render_svg_forked, left), strict=True):
            figures[i].__dict__["svg_document"] = document  # FigureFiles.svg_document's value
            setattr(figures[i].figure, _BOX_ATTRIBUTE, box)
        if "svg" in formats:
            for figure in figures:
                figure.save(folder, "svg")
        keys = _drawing_keys(figures, files)
        drawn = _read_keys(folder)
        by_figure: dict[int, list[str]] = {}  # each task draws one figure's formats in a row
        for i, fmt in files:
            if not _holds(paths[i, fmt], keys[i, fmt], drawn):
                by_figure.setdefault(i, []).append(fmt)
        futures = [
            pool.submit(_draw_forked, i, [(fmt, paths[i, fmt]) for fmt in fmts])
            for i, fmts in by_figure.items()
        ]
        yield _in_order(figures, formats, paths, svg_paths)
        for future in futures:
            future.result()
    _write_keys(folder, {paths[file]: keys[file] for file in files})
    _remove_stale_files(figures, folder, formats)


def _svg_worth_forking(figures: Sequence[FigureFiles]) -> bool:
    """Renders the first ``PROBE_FIGURES`` SVG documents here (kept for the page), and tells
    whether every figure, at their pace, would take longer than ``FORK_MIN_SVG_SECONDS``."""
    started = time.thread_time()
    for figure in figures[:PROBE_FIGURES]:
        _ = figure.svg_document
    pace = (time.thread_time() - started) / min(PROBE_FIGURES, len(figures))
    return pace * len(figures) > FORK_MIN_SVG_SECONDS


@contextmanager
def _drawn_here(
    figures: Sequence[FigureFiles],
    folder: Path,
    formats: Sequence[str],
    files: list[tuple[int, str]],
    paths: dict[tuple[int, str], Path],
) -> Iterator[list[Path]]:
    """``saving_figures`` in this process, every file drawn before the block runs."""
    svg_paths = {}
    if "svg" in formats:
        svg_paths = {i: figure.save(folder, "svg") for i, figure in enumerate(figures)}
    keys = _drawing_keys(figures, files)
    drawn = _read_keys(folder)
    for i, fmt in files:
        if not _holds(paths[i, fmt], keys[i, fmt], drawn):
            figures[i].save(folder, fmt)
    _write_keys(folder, {paths[file]: keys[file] for file in files})
    _remove_stale_files(figures, folder, formats)
    yield _in_order(figures, formats, paths, svg_paths)


def _remove_stale_files(
    figures: Sequence[FigureFiles], folder: Path, formats: Sequence[str]
) -> None:
    """A format not written this time keeps only the files that still show their figure: a run
    writes SVG only, so a PDF that ``polistemics report`` wrote before the data changed would
    otherwise sit beside an SVG that no longer matches it."""
    others = [fmt for fmt in FIGURE_FORMATS if fmt != "svg" and fmt not in formats]
    present = [
        (i, fmt)
        for i, figure in enumerate(figures)
        for fmt in others
        if (folder / f"{figure.stem}.{fmt}").is_file()
    ]
    if not present:
        return
    keys, drawn = _drawing_keys(figures, present), _read_keys(folder)
    for i, fmt in present:
        path = inside(folder, f"{figures[i].stem}.{fmt}")
        if not _holds(path, keys[i, fmt], drawn):
            path.unlink()


def _in_order(
    figures: Sequence[FigureFiles],
    formats: Sequence[str],
    paths: dict[tuple[int, str], Path],
    svg_paths: dict[int, Path],
) -> list[Path]:
    return [
        svg_paths[i] if fmt == "svg" else paths[i, fmt]
        for i in range(len(figures))
        for fmt in formats
    ]


def _drawing_keys(
    figures: Sequence[FigureFiles], files: list[tuple[int, str]]
) -> dict[tuple[int, str], str]:
    """Per (figure, format), a key of everything its file is drawn from: the figure's SVG
    document (every mark, text, size and colour it draws) and what shapes the other formats
    beside it (this module's code, matplotlib's version and settings, the fonts it finds)."""
    if not files:
        return {}
    from matplotlib import font_manager

    context = hashlib.sha256(Path(__file__).read_bytes())
    context.update(matplotlib.__version__.encode())
    context.update(repr(sorted(matplotlib.rcParams.items())).encode())
    fonts = font_manager.fontManager.ttflist + font_manager.fontManager.afmlist
    context.update(repr(sorted((f.fname, f.name, f.style, f.weight) for f in fonts)).encode())
    keys = {}
    for i, fmt in files:
        key = context.copy()
        key.update(f"\0{fmt}\0".encode())
        key.update(figures[i].svg_document.encode("utf-8"))
        keys[i, fmt] = key.hexdigest()
    return keys


def _read_keys(folder: Path) -> dict[str, dict]:
    """The folder's ``KEYS_FILE``: file name -> {"key", "sha256"}; empty when it is missing,
    too large, a link or not such a record."""
    path = folder / KEYS_FILE
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_KEYS_BYTES:
            return {}
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict):
        return {}
    return {name: entry for name, entry in record.items() if isinstance(entry, dict)}


def _holds(path: Path, key: str, drawn: dict[str, dict]) -> bool:
    """Whether the file at ``path`` is the drawing ``key`` names, as this folder recorded it."""
    entry = drawn.get(path.name)
    if entry is None or entry.get("key") != key or path.is_symlink() or not path.is_file():
        return False
    return entry.get("sha256") == _file_hash(path)


def _write_keys(folder: Path, files: dict[Path, str]) -> None:
    if not files:
        return
    record = {
        path.name: {"key": key, "sha256": _file_hash(path)}
        for path, key in sorted(files.items(), key=lambda item: item[0].name)
    }
    write_text_replacing(folder / KEYS_FILE, json.dumps(record, indent=1) + "\n")


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextmanager
def _forked_workers(figures: Sequence[FigureFiles], workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool whose workers are forked (all at the first task) with ``figures`` in ``_FORKED``."""
    global _FORKED
    _FORKED = figures
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            yield pool
    finally:
        _FORKED = ()


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _render_svg_forked(index: int) -> tuple[str, Bbox]:
    """A figure's SVG document and the drawn extent it was saved with (so that this process
    saves its other formats with the same box)."""
    figure = _FORKED[index]
    return figure.svg_document, tight_box(figure.figure)


def _draw_forked(index: int, files: list[tuple[str, Path]]) -> None:
    figure = _FORKED[index]
    for fmt, path in files:
        write_figure(figure.figure, path, fmt, figure.figure_id)
