"""The report's options and the run report's file names, in a module without pandas, matplotlib
or jinja2: a run's finish needs them to know whether its report is current (a rerun with
nothing to redo draws nothing, so it loads none of those; issue 26)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from polistemics.report.defaults import DEFAULT_MAX_ANSWERS
from polistemics.report.figures.formats import RUN_FIGURE_FORMATS
from polistemics.stats.defaults import DEFAULT_RESAMPLES

if TYPE_CHECKING:
    from polistemics.report.labels import ModelLabels
    from polistemics.runlog import RunManifest

REPORT_FILE = "report.html"
RUN_REPORT_FOLDER = "report"


@dataclass(frozen=True)
class ReportOptions:
    model_labels: dict[str, str] = field(default_factory=dict)  # --label: models and elections
    display_names: dict[str, str] = field(default_factory=dict)  # model -> registry display_name
    election_titles: dict[str, str] = field(default_factory=dict)  # election id -> source title
    bootstrap_resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    max_browser_answers: int = DEFAULT_MAX_ANSWERS
    figure_formats: tuple[str, ...] = RUN_FIGURE_FORMATS  # files per figure (svg, pdf, png)
    loo_min_items: int | None = None  # LOO flags' minimum-items gate; None: off (the paper)

    def labels(self) -> ModelLabels:
        """The names the page, figures and tables give models and elections."""
        from polistemics.report.labels import ModelLabels  # pandas: only where a report is drawn

        return ModelLabels(self.model_labels, self.election_titles, self.display_names)

    def with_recorded_names(self, manifest: RunManifest | None) -> ReportOptions:
        """These options with the models' display names and the elections' titles that
        ``manifest`` (run.json) records, where these options name none."""
        if manifest is None:
            return self
        return replace(
            self,
            display_names={**manifest.display_names, **self.display_names},
            election_titles={**manifest.election_titles, **self.election_titles},
        )
