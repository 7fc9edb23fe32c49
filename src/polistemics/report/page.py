"""The report document: one self-contained HTML page (inline CSS, JS, SVG and JSON data),
rendered from the Jinja2 templates in ``report/templates/`` (``page.html``, which extends the
skeleton every page shares, ``polistemics/templates/base.html``, and one template per section
under ``sections/``).

Autoescaping is on for every template and undefined names are errors. What the templates insert
unescaped is marked here or in ``macros.html``, never elsewhere: the package's own CSS and script
(``assets/``), the item browser's JSON (``embed_json``, escaped for a script element) and figure
SVG (from the figure code). A Content-Security-Policy forbids every network request and lets only
the page's own script run (by its sha256 hash), so markup smuggled into data could neither load
nor run anything even if it escaped the escaping.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import resources

import jinja2
from markupsafe import Markup

from polistemics import __version__
from polistemics.html_templates import page_environment
from polistemics.report.browser import embed_json
from polistemics.report.browser_files import BrowserData
from polistemics.report.caveats import demo_banner
from polistemics.report.content import ReportContent
from polistemics.report.figures import FIGURE_FORMATS
from polistemics.report.omissions import omitted_sections, release_summary
from polistemics.report.sections import ALL_SECTIONS, NO_CELLS, SECTIONS, TASK_SECTIONS


def asset(name: str) -> str:
    return (
        resources.files("polistemics.report").joinpath("assets", name).read_text(encoding="utf-8")
    )


@cache
def environment() -> jinja2.Environment:
    env = page_environment("polistemics.report")
    env.globals["no_cells"] = NO_CELLS
    return env


def script_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(script: str, *, data_files: bool = False) -> str:
    """Only the page's own script runs; with ``data_files`` (a paged item browser,
    ``report.browser_files``) also scripts of the page's own origin, its data files."""
    own_origin = " 'self'" if data_files else ""
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src {script_hash(script)}{own_origin}; img-src data:"
    )


def _header(content: ReportContent, release: list[str]) -> dict:
    inputs = content.inputs
    return {
        "release": release,
        "title": inputs.title,
        "kind": "run directory" if inputs.kind == "run" else "authors' release folder",
        "source": str(inputs.source),
        "generated": content.generated,
        "version": __version__,
        "notes": list(inputs.notes),
        "banner": demo_banner(inputs.manifest),
        "figure_formats": ", ".join(f.upper() for f in content.options.figure_formats),
        "other_figure_formats": [
            f.upper() for f in FIGURE_FORMATS if f not in content.options.figure_formats
        ],
    }


def render_page(content: ReportContent, browser: BrowserData | None = None) -> str:
    """The page; for a release, the sections it cannot fill are left out and said at the top.
    ``browser``: the item browser's data as ``browser_files.page_browser`` splits it (default:
    the whole payload inline)."""
    browser = browser or BrowserData(content.browser, [])
    script = asset("browser.js")
    views = [(s.section_id, s.title, s.view(content)) for s in ALL_SECTIONS]
    views = [(i, title, view) for i, title, view in views if view is not None]  # a task not asked
    present = {i for i, _, _ in views}
    short_titles = dict((*SECTIONS, *TASK_SECTIONS))
    omitted = omitted_sections(content.inputs, [(i, short_titles[i], v) for i, _, v in views])
    left_out = {o.section_id for o in omitted}
    data = next(v for i, _, v in views if i == "data-cost")
    return (
        environment()
        .get_template("page.html")
        .render(
            csp=content_security_policy(script, data_files=browser.paged),
            css=Markup(asset("report.css")),  # the package's own files, inserted verbatim
            script=Markup(script),
            browser_json=Markup(embed_json(browser.index)),  # escaped for <script> by embed_json
            header=_header(content, release_summary(content.inputs, omitted, data)),
            release=content.inputs.kind == "release",
            nav=[
                (i, title)
                for i, title in (*SECTIONS, *TASK_SECTIONS)
                if i not in left_out and i in present
            ],
            sections=[
                {"id": i, "title": title, "view": view}
                for i, title, view in views
                if i not in left_out
            ],
        )
    )
