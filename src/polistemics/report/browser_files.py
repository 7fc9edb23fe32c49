"""The item browser at any scale (issue 32): a large study's answers are paged from data files
beside the page instead of inlined in it.

Up to ``INLINE_ANSWERS`` answers the page embeds the whole payload (``browser.browser_payload``)
as before and stays one self-contained file. Beyond that, the page embeds an index: per answer
only what the filters read (model, environment, variant, party, observation, sample, real stance,
final verdicts, judge disagreement, coded stance and prior), and ``files``, the data files. Each
data file, ``browser/answers-NNNN.js``, holds ``ANSWERS_PER_FILE`` consecutive answers in full
(statement, context, answer, judges' raw outputs) with its own string and context tables, as a
call ``polistemicsBrowserPage(N, {...});``. The page's script loads a file with a script
element when an answer of it is shown (or every file, the first time the text search is used),
which works when the page is opened from disk (``file://``), where ``fetch`` is refused. The
page's Content-Security-Policy then allows scripts of its own origin (``'self'``) besides its own
inline script; the JSON inside a data file is escaped as the page's (``browser.embed_json``),
so an answer's text stays a string.

Each file is written to a temporary name and renamed, so a report interrupted while writing
leaves no torn data file; files of an earlier, larger report are removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from polistemics.paths import UnsafePathError, output_folder, write_text_replacing
from polistemics.report.browser import embed_json

INLINE_ANSWERS = 2_000
ANSWERS_PER_FILE = 500
BROWSER_FOLDER = "browser"
DATA_FILE = "answers-{:04d}.js"
_DATA_FILE_NAME = re.compile(r"answers-\d{4,}\.js")
# What the filters and the answer count read: kept per answer in the page's index.
INDEX_FIELDS = ("m", "e", "v", "p", "o", "n", "s", "c", "d", "cs", "ps")


@dataclass(frozen=True)
class BrowserData:
    """What the page embeds (``index``) and the data files beside it (name, text), in order."""

    index: dict
    files: list[tuple[str, str]]

    @property
    def paged(self) -> bool:
        return bool(self.files)


def page_browser(
    payload: dict, *, inline: int | None = None, per_file: int | None = None
) -> BrowserData:
    """``payload`` as is when it has at most ``inline`` answers (default ``INLINE_ANSWERS``);
    else its index and data files of ``per_file`` answers each (``ANSWERS_PER_FILE``)."""
    inline = INLINE_ANSWERS if inline is None else inline
    per_file = ANSWERS_PER_FILE if per_file is None else per_file
    if per_file < 1:
        raise ValueError(f"per_file must be at least 1, got {per_file}")
    items = payload["items"]
    if len(items) <= inline:
        return BrowserData(payload, [])
    strings, contexts = payload["strings"], payload["contexts"]
    files = []
    for number, start in enumerate(range(0, len(items), per_file)):
        page = _data_page(items[start : start + per_file], strings, contexts)
        text = f"polistemicsBrowserPage({number},{embed_json(page)});\n"
        files.append((f"{BROWSER_FOLDER}/{DATA_FILE.format(number)}", text))
    index = {key: value for key, value in payload.items() if key not in ("items", "strings")}
    index |= {
        "strings": [],
        "contexts": [],
        "items": [{key: row[key] for key in INDEX_FIELDS} for row in items],
        "files": [name for name, _ in files],
        "perFile": per_file,
    }
    return BrowserData(index, files)


def _data_page(rows: list[dict], strings: list[str], contexts: list[list]) -> dict:
    """Full rows of some answers, their string and context indexes renumbered into the page's
    own tables (the script appends them to the index's when the file arrives)."""
    own_strings: dict[int, int] = {}
    own_contexts: dict[int, int] = {}
    page_strings: list[str] = []
    page_contexts: list[list] = []

    def text(index: int | None) -> int | None:
        if index is None:
            return None
        if index not in own_strings:
            own_strings[index] = len(page_strings)
            page_strings.append(strings[index])
        return own_strings[index]

    def context(index: int) -> int:
        if index not in own_contexts:
            own_contexts[index] = len(page_contexts)
            page_contexts.append([[text(chunk), role] for chunk, role in contexts[index]])
        return own_contexts[index]

    page_rows = []
    for row in rows:
        judged = [
            [r, judge, text(raw), marks, text(error)] for r, judge, raw, marks, error in row["j"]
        ]
        page_rows.append(
            row
            | {
                "q": text(row["q"]),
                "a": text(row["a"]),
                "f": text(row["f"]),
                "x": context(row["x"]),
                "j": judged,
            }
        )
    return {"strings": page_strings, "contexts": page_contexts, "items": page_rows}


def write_browser_files(data: BrowserData, out_dir: Path) -> list[Path]:
    """The data files into ``out_dir/browser/`` (each written, then renamed); data files there
    that this report does not have are removed. Returns the files written."""
    folder = out_dir / BROWSER_FOLDER
    if folder.is_symlink():
        raise UnsafePathError(f"{folder} is a symbolic link: refusing to write through it")
    names = {Path(name).name for name, _ in data.files}
    if folder.is_dir():
        for stale in folder.iterdir():
            if _DATA_FILE_NAME.fullmatch(stale.name) and stale.name not in names:
                stale.unlink()
    if not data.files:
        return []
    output_folder(folder)  # no entry in it is a link
    return [write_text_replacing(out_dir / name, text) for name, text in data.files]
