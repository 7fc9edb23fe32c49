"""The report document: one self-contained HTML page (inline CSS, JS, SVG and JSON data).

A Content-Security-Policy forbids every network request, so the page works offline and any
markup smuggled into data could not load anything even if it escaped the escaping.
"""

from __future__ import annotations

from importlib import resources

from polistemics import __version__
from polistemics.report.browser import embed_json
from polistemics.report.content import ReportContent
from polistemics.report.html import esc
from polistemics.report.sections import ALL_SECTIONS, SECTIONS

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def asset(name: str) -> str:
    return (
        resources.files("polistemics.report").joinpath("assets", name).read_text(encoding="utf-8")
    )


def _header(content: ReportContent) -> str:
    inputs = content.inputs
    kind = "run directory" if inputs.kind == "run" else "authors' release folder"
    notes = ""
    if inputs.notes:
        items = "".join(f"<li>{esc(n)}</li>" for n in inputs.notes)
        notes = f'<details class="notes"><summary>Notes on the source ({len(inputs.notes)})</summary><ul>{items}</ul></details>'
    return (
        '<header class="page">'
        f"<h1>Polistemics report: {esc(inputs.title)}</h1>"
        f"<p>Source: {esc(kind)} <code>{esc(inputs.source)}</code></p>"
        f"<p>Generated {esc(content.generated)} by polistemics {esc(__version__)}. "
        "Scores in %; figures are also saved as SVG in <code>figures/</code> and every table as "
        "CSV in <code>tables/</code>.</p>"
        f"{notes}</header>"
    )


def render_page(content: ReportContent) -> str:
    nav = "".join(f'<a href="#{esc(sid)}">{esc(title)}</a>' for sid, title in SECTIONS)
    sections = "\n".join(render(content) for render in ALL_SECTIONS)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Polistemics report: {esc(content.inputs.title)}</title>"
        f"<style>{asset('report.css')}</style></head><body>"
        f"{_header(content)}"
        f'<nav class="toc">{nav}</nav>'
        f"<main>{sections}</main>"
        f'<script type="application/json" id="browser-data">{embed_json(content.browser)}</script>'
        f"<script>{asset('browser.js')}</script>"
        "</body></html>\n"
    )
