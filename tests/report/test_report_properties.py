"""Property: every small or degenerate study ends with a report that opens in Chromium (issue 27,
item 5).

Hypothesis draws a study on the project's test server: one to four parties, one to three
statements (a party may have no observation at all), any non-empty set of environments and
ablations, one or two samples, one or two targets (a target may refuse every call), a panel of
one to three judges (distinct endpoints, or one endpoint repeated), judges that all say Yes, all
say No, agree on mixed verdicts or split, seats that are missing (an endpoint that refuses every
call, or whose replies cannot be read), the three judge output modes and both judge prompts, and
the optional stages (``run.stages.STAGES``: repeat judging, stance coder (which may reply
unreadably), closed-book probe; the Environments stage's swapped Contradictory order). Each set
of optional stages also runs once as an explicit case, with its report built a second time from
the run directory's files. Each study runs in process (``Study.execute`` + ``finish_run``, as
``polistemics run`` does) and must end with its report; the report must open in headless
Chromium with no console or page error, no dialog and no network request.

Cost is bounded for CI: a fixed number of examples, derandomised (the same studies on every
run, no example database), one pair of test servers and one Chromium for the module. Without
Chromium (or Playwright) the studies still run and the tests then skip, saying so.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polistemics.conditions import ALL_ENVIRONMENTS
from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.runlog import RunDir
from polistemics.testing import FakeOpenAIServer, Fault, Rule
from polistemics.testing.completions import content_text
from polistemics.testing.responders import JUDGE_MARKER, judge_reply, polistemic_responder
from polistemics.testing.responders import verdicts as hashed_verdicts
from polistemics.testing.stance_coder import STANCE_CODER_MARKER

try:
    from .test_page_in_chromium import CHROMIUM_ARGS, Opened, chromium_path, sync_api
except pytest.skip.Exception:  # Playwright is not installed: the studies run, unopened
    sync_api = None

DEMO_PARTIES = ("Harbour Party", "Highland Alliance", "Lantern Movement", "Riverside Union")
JUDGES = ("judge-a", "judge-b", "judge-c")
UNREADABLE_REPLY = "I would rather not say."
EXAMPLES = 16  # generated studies, besides the explicit ones (one per set of optional stages)
REPORT_OPTIONS = ReportOptions(bootstrap_resamples=40, figure_formats=("svg",))
Seat = str  # how a judge endpoint behaves: "" (answers), "refused" (HTTP 400), "unreadable"


@dataclass(frozen=True)
class StudyShape:
    parties: int  # the first N demo parties
    statements: tuple[int, ...]
    environments: tuple[str, ...]
    ablations: tuple[str, ...]
    targets: tuple[Seat, ...]  # per target: "" (answers) or "refused"
    samples: int
    panel: tuple[str, ...]  # the config's judges: distinct endpoints, or one repeated
    seats: tuple[Seat, ...]  # per judge endpoint of JUDGES
    verdicts: str  # "yes" | "no" | "hashed" (seats agree) | "split" (seats differ)
    judge_mode: str  # structured_output of every judge
    judge_prompt: str
    overlap_judging: bool
    stance_coder: Seat | None  # None: no coder; else how the coder behaves
    prior_probe: bool
    judge_repeats: bool
    contradictory_swapped: str


def _verdict_choice(shape_verdicts: str, judge: str):
    if shape_verdicts == "yes":
        return lambda text, n: [True] * n
    if shape_verdicts == "no":
        return lambda text, n: [False] * n
    if shape_verdicts == "split":
        return lambda text, n: hashed_verdicts(f"{judge}\n{text}", n)
    return hashed_verdicts


class ScriptedStudy:
    """The test server's responder: ``polistemic_responder``, except that judges and the coder
    answer as the current study's script says (a request's ``model`` is the endpoint's name)."""

    def __init__(self) -> None:
        self.shape: StudyShape | None = None

    def __call__(self, request_json: dict) -> str:
        messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
        system = "\n".join(
            content_text(m.get("content")) for m in messages if m.get("role") == "system"
        )
        user = "\n".join(
            content_text(m.get("content")) for m in messages if m.get("role") == "user"
        )
        full = f"{system}\n{user}" if system else user
        model, shape = request_json.get("model"), self.shape
        if shape is None:
            return polistemic_responder(request_json)
        if model == "coder" and STANCE_CODER_MARKER in full and shape.stance_coder:
            return UNREADABLE_REPLY
        if model in JUDGES and JUDGE_MARKER in full:
            if shape.seats[JUDGES.index(model)] == "unreadable":
                return UNREADABLE_REPLY
            choose = _verdict_choice(shape.verdicts, model)
            return judge_reply(request_json, full, system or user, choose)
        return polistemic_responder(request_json)


@st.composite
def study_shapes(draw) -> StudyShape:
    environments = draw(
        st.lists(st.sampled_from([e.value for e in ALL_ENVIRONMENTS]), min_size=1, unique=True)
    )
    size = draw(st.integers(1, 3))
    panel = draw(st.sampled_from([JUDGES[:size], (JUDGES[0],) * size]))
    seat = st.sampled_from(["", "", "refused", "unreadable"])
    coder = draw(st.sampled_from([None, "", "unreadable"]))
    return StudyShape(
        parties=draw(st.integers(1, len(DEMO_PARTIES))),
        statements=tuple(
            sorted(draw(st.lists(st.integers(1, 8), min_size=1, max_size=3, unique=True)))
        ),
        environments=tuple(environments),
        ablations=tuple(draw(st.lists(st.sampled_from(["anon", "en"]), unique=True))),
        targets=tuple(draw(st.lists(st.sampled_from(["", "", "refused"]), min_size=1, max_size=2))),
        samples=draw(st.integers(1, 2)),
        panel=panel,
        seats=tuple(draw(st.lists(seat, min_size=3, max_size=3))),
        verdicts=draw(st.sampled_from(["yes", "no", "hashed", "split"])),
        judge_mode=draw(st.sampled_from(["none", "json_schema", "tool"])),
        judge_prompt=draw(st.sampled_from(["paper", "rubric-last"])),
        overlap_judging=draw(st.booleans()),
        stance_coder=coder,
        prior_probe=coder is not None and draw(st.booleans()),
        judge_repeats=draw(st.booleans()),
        contradictory_swapped=draw(st.sampled_from(["none", "all", "half"])),
    )


def _stage_set(coder: bool, probe: bool, repeats: bool, swapped: str, **data) -> StudyShape:
    """A small study with the given optional stages (for the explicit examples)."""
    fields = dict(
        parties=2,
        statements=(1,),
        environments=tuple(e.value for e in ALL_ENVIRONMENTS),
        ablations=(),
        targets=("",),
        samples=1,
        panel=JUDGES,
        seats=("", "", ""),
        verdicts="hashed",
        judge_mode="none",
        judge_prompt="paper",
        overlap_judging=True,
    )
    fields.update(data)
    return StudyShape(
        **fields,
        stance_coder="" if coder else None,
        prior_probe=probe,
        judge_repeats=repeats,
        contradictory_swapped=swapped,
    )


# Every set of the optional stages (the probe needs the coder), once each, on a degenerate study.
STAGE_SETS = [
    _stage_set(False, False, False, "none", parties=1, panel=JUDGES[:1]),
    _stage_set(False, False, True, "all", verdicts="yes", panel=JUDGES[:2]),
    _stage_set(True, False, False, "half", verdicts="no", statements=(2,)),
    _stage_set(True, False, True, "none", seats=("", "refused", "unreadable")),
    _stage_set(True, True, False, "all", verdicts="split", ablations=("anon", "en")),
    _stage_set(True, True, True, "half", parties=1, seats=("refused", "unreadable", "refused")),
]


def write_config(folder: Path, shape: StudyShape, good_url: str, refusing_url: str) -> Path:
    """The study's models file, party scope and config in ``folder``."""
    targets = {f"target-{i}": state for i, state in enumerate(shape.targets)}
    models = {name: (state, "none", 0.0, "paper") for name, state in targets.items()}
    for judge, state in zip(JUDGES, shape.seats, strict=True):
        models[judge] = (state, shape.judge_mode, 0.0, shape.judge_prompt)
    models["writer"] = ("", "none", 0.3, "paper")
    models["coder"] = ("", "none", 0.0, "paper")
    (folder / "models.toml").write_text(
        "".join(
            f"[models.{name}]\n"
            f'base_url = "{refusing_url if state == "refused" else good_url}"\n'
            f'model = "{name}"\ntemperature = {temperature}\nstructured_output = "{mode}"\n'
            f'judge_prompt = "{prompt}"\nmax_concurrency = 8\n\n'
            for name, (state, mode, temperature, prompt) in models.items()
        )
    )
    (folder / "scope.toml").write_text(
        'name = "property"\n'
        + "".join(f'[[parties]]\nname = "{p}"\n' for p in DEMO_PARTIES[: shape.parties])
    )
    fields = {
        "name": '"property-study"',
        "targets": json.dumps(list(targets)),
        "judges": json.dumps(list(shape.panel)),
        "standardiser": '"writer"',
        "vague_generator": '"writer"',
        "vague_auditor": '"coder"',
        "vague_max_tries": "1",
        "environments": json.dumps(list(shape.environments)),
        "ablations": json.dumps(list(shape.ablations)),
        "samples": str(shape.samples),
        "overlap_judging": json.dumps(shape.overlap_judging),
        "embeddings": '"tfidf"',
        "models_file": json.dumps(str(folder / "models.toml")),
        "output_dir": json.dumps(str(folder / "run")),
        "stance_coder": '"coder"' if shape.stance_coder is not None else "[]",
        "prior_probe": json.dumps(shape.prior_probe),
        "contradictory_swapped": json.dumps(shape.contradictory_swapped),
    }
    if shape.judge_repeats:
        fields["judge_repeats"] = "{ items = 1, repeats = 1 }"
    body = "\n".join(f"{key} = {value}" for key, value in fields.items())
    election = (
        '[[elections]]\nsource = "demo"\n'
        f"scope = {json.dumps(str(folder / 'scope.toml'))}\n"
        f"statements = {json.dumps(list(shape.statements))}\n"
    )
    config = folder / "study.toml"
    config.write_text(f"{body}\n\n{election}")
    return config


def run_study(config_path: Path) -> dict[str, Path]:
    """``polistemics run CONFIG`` in this process: the model stages, then every result file.

    In a thread of its own: Playwright's sync API keeps an event loop running in this one."""

    def run() -> dict[str, Path]:
        config = load_config(config_path)
        study = Study(config, config.run_dir(), log=lambda message: None)
        result = asyncio.run(study.execute(quiet=True))
        return finish_run(study, result, REPORT_OPTIONS)

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[ScriptedStudy, str, str]]:
    """The scripted test server, and one that refuses every call (HTTP 400, not retried)."""
    responder = ScriptedStudy()
    with (
        FakeOpenAIServer(responder=responder) as good,
        FakeOpenAIServer([Rule(".", always=Fault("status", status=400))]) as refusing,
    ):
        yield responder, good.base_url, refusing.base_url


@pytest.fixture(scope="module")
def chromium() -> Iterator[object | None]:
    """One headless Chromium for the module, or None (the reports are then not opened)."""
    try:
        executable = chromium_path() if sync_api is not None else None
    except pytest.skip.Exception:  # Chromium is not installed
        executable = None
    if executable is None:
        yield None
        return
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def check_study(shape: StudyShape, servers, chromium, *, again: bool = False) -> None:
    """The study ends with its report, which opens in Chromium; ``again``: the report is also
    built again from the run directory's files (``polistemics report RUN_DIR``)."""
    responder, good_url, refusing_url = servers
    responder.shape = shape
    with tempfile.TemporaryDirectory(prefix="property-study-") as tmp:
        folder = Path(tmp)
        paths = run_study(write_config(folder, shape, good_url, refusing_url))
        report = paths["report"]
        assert report.is_file() and report.stat().st_size > 0
        check_the_script_took_effect(RunDir(folder / "run"), shape)
        if again:
            report = build_report(folder / "run", folder / "again", REPORT_OPTIONS)
        if chromium is not None:
            opened = Opened(chromium, report)
            try:
                assert opened.errors == [], opened.errors
                assert opened.dialogs == []
            finally:
                opened.page.close()


def check_the_script_took_effect(run: RunDir, shape: StudyShape) -> None:
    """The study is as degenerate as drawn (else the property would test something easier)."""
    records = run.read_judge_records() or []
    for judge, state in zip(JUDGES, shape.seats, strict=True):
        said = [
            v for r in records if r.judge == judge for v in r.says_yes.values() if v is not None
        ]
        if state:
            assert not said, judge  # a missing seat gave no verdict
        elif shape.verdicts in ("yes", "no") and said:
            assert set(said) == {shape.verdicts == "yes"}, judge
    panel_states = {shape.seats[JUDGES.index(judge)] for judge in shape.panel}
    if all(panel_states) or all(shape.targets):
        assert run.read_cells().empty  # no seat or no target answered: nothing is scored


@pytest.mark.parametrize("shape", STAGE_SETS, ids=lambda s: _stage_id(s))
def test_each_set_of_optional_stages_ends_with_a_report(shape, servers, chromium) -> None:
    check_study(shape, servers, chromium, again=True)
    if chromium is None:
        pytest.skip(
            "the study ended with its report; Chromium or Playwright is absent, so it was not opened"
        )


def _stage_id(shape: StudyShape) -> str:
    parts = [
        f"judges-{len(shape.panel)}",
        "coder" if shape.stance_coder is not None else "",
        "probe" if shape.prior_probe else "",
        "repeats" if shape.judge_repeats else "",
        f"swapped-{shape.contradictory_swapped}",
    ]
    return "+".join(p for p in parts if p)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same studies on every run: CI is reproducible
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(shape=study_shapes())
def _any_small_study(shape: StudyShape, servers, chromium) -> None:
    check_study(shape, servers, chromium)


def test_any_small_study_ends_with_a_report_that_opens(servers, chromium) -> None:
    _any_small_study(servers=servers, chromium=chromium)
    if chromium is None:
        pytest.skip(
            "every study ended with its report; Chromium or Playwright is absent, so none was opened"
        )


def test_a_one_judge_panel_says_why_it_shows_no_agreement(servers) -> None:
    """A one-judge panel (a valid config) showed four empty agreement tables captioned "panel of
    1" with no word of why."""
    responder, good_url, refusing_url = servers
    shape = _stage_set(False, False, False, "none", parties=1, panel=JUDGES[:1])
    responder.shape = shape
    with tempfile.TemporaryDirectory(prefix="one-judge-") as tmp:
        paths = run_study(write_config(Path(tmp), shape, good_url, refusing_url))
        page = paths["report"].read_text(encoding="utf-8")
    assert 'id="agreement-needs-two-judges"' in page
    assert "this panel has 1, so there is no agreement to show" in page
    assert 'id="agreement-rubric"' not in page
