"""``polistemics annotate serve``: the annotation web app (aiohttp) over a run's sample.

One page (``templates/app.html`` with ``static/app.js`` and ``static/app.css``, no CDN) and a
small JSON API:

- ``GET /api/next?annotator=NAME[&after=ID][&task=TASK]``: the annotator's next item (the first
  one in draw order they have not finished, after ``after`` when skipping, wrapping round; only
  items of ``task`` when given, issue 29), blind;
- ``GET /api/item/ID?annotator=NAME``: one item, blind;
- ``POST /api/label`` (JSON ``annotator, sample_id, sub_question, says_yes, note``): one label,
  committed to the run's store before the answer; a refusal comes back as 400 with its reason;
- ``GET /api/reveals?annotator=NAME``: the panel's verdicts on the annotator's items, only when
  the server runs with ``reveal`` and the annotator's whole assignment is done.

The panel's verdicts are never shown unless the server is started with ``reveal``; then an
annotator sees them only once every item open to them is done (``AnnotationStore.revealable``),
each reveal is recorded before it is sent, and from then on the store takes no label from that
annotator nor on that item (docs/annotation-app.md, "Blind").

Every label is written by ``AnnotationStore.add_label`` (one committed transaction), so killing the
server loses no given label and a restart continues where each annotator stopped. The server binds
127.0.0.1 unless told otherwise with ``allow_remote``; on loopback it answers only requests whose
Host header names the loopback (a web page elsewhere cannot reach it through DNS rebinding), and
a POST must be JSON (a cross-site form cannot send that). The Content-Security-Policy lets the
page run only its own script file and talk only to its own server.

aiohttp does all the serving. The one use of ``socket`` is ``bound_socket``, which binds the
listening socket before ``web.run_app`` gets it. With ``--port 0`` the real port is then known
before the server starts, so the URL that is printed, and the Host check, can name it. aiohttp's
public API reports the port only after the server has started.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Callable
from functools import cache
from pathlib import Path

import jinja2
from aiohttp import web
from pydantic import BaseModel, ConfigDict, ValidationError

from polistemics.annotate.item_view import ItemView, item_view, run_views
from polistemics.annotate.run_data import RunDataError
from polistemics.annotate.store import (
    AnnotationStore,
    LabelNotBlind,
    LabelRefused,
    SampleItem,
    clean_annotator,
)
from polistemics.annotate.views import blind_item, is_complete, reveal_verdicts
from polistemics.html_templates import page_environment
from polistemics.tasks import PARTY_POSITION, TASKS

STATIC = Path(__file__).parent / "static"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
MAX_BODY_BYTES = 64 * 1024

STORE = web.AppKey("store", AnnotationStore)
RUN_DIR = web.AppKey("run_dir", Path)
ALLOWED_HOSTS = web.AppKey("allowed_hosts", object)  # frozenset[str] | None (None: any)
REVEAL = web.AppKey("reveal", bool)  # show verdicts once an annotator's assignment is done


class HostRefused(ValueError):
    """A bind address the server will not use without ``--allow-remote``."""


class NoSample(ValueError):
    """The run has no annotation sample to serve."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> str | None:
    """None for a loopback host; a warning for another host with ``allow_remote``; else
    ``HostRefused``."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise HostRefused(
            f"--host {host} is not the loopback: anyone who can reach it could read the items "
            "and label under any name (there is no authentication); pass --allow-remote to "
            "serve it anyway"
        )
    return (
        f"warning: serving on {host}, reachable from other machines; annotator names are not "
        "authentication, so anyone who reaches this address can read the items and add labels"
    )


@cache
def _templates() -> jinja2.Environment:
    return page_environment("polistemics.annotate")


class LabelBody(BaseModel):
    """A POSTed label; the store checks everything else (item, sub-question, name, note)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    annotator: str
    sample_id: str
    sub_question: str
    says_yes: bool
    note: str | None = None


def _refused(reason: str, status: int = 400) -> web.Response:
    return web.json_response({"error": reason}, status=status)


def _annotator(request: web.Request) -> str:
    try:
        return clean_annotator(request.query.get("annotator", ""))
    except LabelRefused as exc:
        raise web.HTTPBadRequest(
            text=json.dumps({"error": exc.reason}), content_type="application/json"
        ) from None


def _state(app: web.Application, annotator: str) -> dict:
    """What every answer carries about the annotator: progress, and whether their assignment is
    done and the verdicts may be shown (``shows_verdicts`` says whether they ever will be)."""
    open_items = app[STORE].available_for(annotator)  # read once for both figures
    done = sum(finished for _, finished in open_items)
    return {
        "progress": {"done": done, "available": len(open_items)},
        "assignment_done": done == len(open_items),
        "shows_verdicts": app[REVEAL],
    }


def _reveal_of(
    app: web.Application, item: SampleItem, annotator: str, allowed: set[str] | None = None
) -> dict | None:
    """The panel's verdicts on ``item`` for ``annotator``, recorded as seen; None unless the
    policy allows it now (``reveal`` on, the whole assignment done, the item closed).
    ``allowed``: the ids of ``store.revealable(annotator)``, when the caller has them."""
    store = app[STORE]
    if not app[REVEAL]:
        return None
    if allowed is None:
        allowed = {i.sample_id for i in store.revealable(annotator)}
    if item.sample_id not in allowed:
        return None
    own = store.labels(annotator=annotator, sample_id=item.sample_id)
    shown = reveal_verdicts(_view(app, item), own)
    store.record_reveal(annotator, item.sample_id)  # committed before it is sent
    return shown


def _item_payload(app: web.Application, item: SampleItem | None, annotator: str) -> dict:
    store = app[STORE]
    payload: dict = {"item": None, **_state(app, annotator)}
    if item is None:
        return payload
    own = store.labels(annotator=annotator, sample_id=item.sample_id)
    payload["item"] = blind_item(_view(app, item), own)
    shown = _reveal_of(app, item, annotator)
    if shown is not None:
        payload["reveal"] = shown
    return payload


def _view(app: web.Application, item: SampleItem) -> ItemView:
    return item_view(app[RUN_DIR], item)


def _task_choices(store: AnnotationStore) -> list[tuple[str, str, int]]:
    """(task, label, items) of each task in the sample; the page offers a filter when the
    sample holds an item of a task beyond the paper's (issue 29)."""
    counts = store.task_counts()
    if set(counts) <= {PARTY_POSITION}:
        return []
    return [(task, TASKS[task].label if task in TASKS else task, n) for task, n in counts.items()]


def _task_filter(request: web.Request) -> str | None:
    task = request.query.get("task") or None
    if task is not None and task not in TASKS:
        raise web.HTTPBadRequest(
            text=json.dumps({"error": f"unknown task {task!r}"}), content_type="application/json"
        )
    return task


async def page(request: web.Request) -> web.Response:
    store = request.app[STORE]
    html = (
        _templates()
        .get_template("app.html")
        .render(
            csp=None,  # sent as a header by ``guard``, not in the page
            run_name=request.app[RUN_DIR].name,
            shows_verdicts=request.app[REVEAL],
            sample_size=len(store.sample()),
            tasks=_task_choices(store),
        )
    )
    return web.Response(text=html, content_type="text/html")


async def next_item(request: web.Request) -> web.Response:
    store = request.app[STORE]
    annotator = _annotator(request)
    after = request.query.get("after") or None
    task = _task_filter(request)
    item = store.next_for(annotator, after=after, task=task)
    if item is None and after is not None:  # wrap round to the items skipped before
        item = store.next_for(annotator, task=task)
    return web.json_response(_item_payload(request.app, item, annotator))


async def one_item(request: web.Request) -> web.Response:
    store = request.app[STORE]
    annotator = _annotator(request)
    item = store.sample_item(request.match_info["sample_id"])
    if item is None:
        return _refused("this item is not in the run's annotation sample", status=404)
    return web.json_response(_item_payload(request.app, item, annotator))


async def add_label(request: web.Request) -> web.Response:
    if request.content_type != "application/json":
        return _refused("a label must be sent as JSON", status=415)
    try:
        body = LabelBody.model_validate_json(await request.read())
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        return _refused(f"not a label ({problems})")
    store = request.app[STORE]
    try:
        label = store.add_label(
            body.annotator, body.sample_id, body.sub_question, body.says_yes, note=body.note
        )
    except LabelRefused as exc:
        conflict = isinstance(exc, LabelNotBlind) or "already labelled" in exc.reason
        return _refused(exc.reason, status=409 if conflict else 400)
    item = store.sample_item(label.sample_id)
    own = store.labels(annotator=label.annotator, sample_id=label.sample_id)
    answer = {
        "label": label.model_dump(mode="json"),
        "complete": is_complete(_view(request.app, item), own),
        **_state(request.app, label.annotator),
    }
    return web.json_response(answer)


async def reveals(request: web.Request) -> web.Response:
    """The panel's verdicts on every item of the annotator's that may be shown now; ``waiting``
    counts their finished items still open to another annotator (shown once those are done)."""
    app = request.app
    store = app[STORE]
    annotator = _annotator(request)
    payload: dict = {**_state(app, annotator), "items": [], "waiting": 0}
    if not app[REVEAL] or not payload["assignment_done"]:
        return web.json_response(payload)
    shown = store.revealable(annotator)
    allowed = {item.sample_id for item in shown}
    for item in shown:
        content = _view(app, item).content
        payload["items"].append(
            {
                "sample_id": item.sample_id,
                "rubric_label": content.rubric_label,
                "environment_label": content.environment_label,
                "task_label": content.task_label,
                "reveal": _reveal_of(app, item, annotator, allowed),
            }
        )
    finished = sum(done for _, done in store.available_for(annotator))
    payload["waiting"] = finished - len(shown)
    return web.json_response(payload)


@web.middleware
async def guard(request: web.Request, handler: Callable) -> web.StreamResponse:
    allowed = request.app[ALLOWED_HOSTS]
    if allowed is not None and request.host not in allowed:
        return _refused(f"unexpected Host header {request.host!r}", status=421)
    try:
        response = await handler(request)
    except RunDataError as exc:  # the run's files lack what an item needs: say which
        response = _refused(str(exc), status=500)
    except web.HTTPException as exc:
        response = web.Response(status=exc.status, text=exc.text, content_type=exc.content_type)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def loopback_hosts(port: int, host: str = "127.0.0.1") -> frozenset[str]:
    """The Host headers a loopback server accepts: the usual loopback names and ``host``, the
    address it serves on (``127.0.0.2`` is the loopback too, and is the URL it prints)."""
    names = {"127.0.0.1", "localhost", "[::1]", _shown_host(host)}
    return frozenset(f"{name}:{port}" for name in names)


def _shown_host(host: str) -> str:
    """``host`` as a URL names it (an IPv6 address in brackets)."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def build_app(
    run_dir: Path, *, allowed_hosts: frozenset[str] | None = None, reveal: bool = False
) -> web.Application:
    """The app over ``run_dir``'s sample, its items read once now (``run_views``);
    ``allowed_hosts`` None accepts any Host header; ``reveal`` shows the panel's verdicts to an
    annotator whose whole assignment is done (never, by default)."""
    app = web.Application(middlewares=[guard], client_max_size=MAX_BODY_BYTES)
    store = AnnotationStore.open(run_dir)
    app[STORE] = store
    app[RUN_DIR] = Path(run_dir).resolve()
    run_views(run_dir)
    app[ALLOWED_HOSTS] = allowed_hosts
    app[REVEAL] = reveal

    async def close_store(app: web.Application) -> None:
        store.close()

    app.on_cleanup.append(close_store)
    app.router.add_get("/", page)
    app.router.add_get("/api/next", next_item)
    app.router.add_get("/api/item/{sample_id}", one_item)
    app.router.add_post("/api/label", add_label)
    app.router.add_get("/api/reveals", reveals)
    app.router.add_static("/static/", STATIC, show_index=False, follow_symlinks=False)
    return app


def bound_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one), so the URL can be printed
    with the real port before serving."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    return sock


def serve(
    run_dir: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    allow_remote: bool = False,
    reveal: bool = False,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until interrupted. Refuses a non-loopback host without ``allow_remote``."""
    warning = check_host(host, allow_remote)
    with AnnotationStore.open(run_dir) as store:
        if not store.sample():
            raise NoSample(
                f"{run_dir} has no annotation sample: draw one first with "
                f"'polistemics annotate sample {run_dir}'"
            )
    if warning:
        announce(warning)
    sock = bound_socket(host, port)
    real_port = sock.getsockname()[1]
    allowed = loopback_hosts(real_port, host) if is_loopback(host) else None
    app = build_app(run_dir, allowed_hosts=allowed, reveal=reveal)
    shown = _shown_host(host)
    announce(f"serving {len(app[STORE].sample())} sample items at http://{shown}:{real_port}/")
    web.run_app(app, sock=sock, print=None, handle_signals=True)
