"""The HTML report of a run or an authors' release: the paper's figures and tables, judge
reliability, data and cost, and an item browser for auditing judges.

- ``build``: ``build_report(run_dir)``, ``build_release_report(folder, out_dir)``, ``build_any``.
- ``run_inputs`` / ``release_inputs`` -> ``inputs.ReportInputs``; ``content`` computes
  everything once; ``page`` and ``sections`` render the HTML; ``figures`` draws the (matplotlib)
  heatmaps; ``tables``, ``reliability`` and ``datasets`` build the tables; ``browser`` the item
  browser's JSON (``assets/browser.js`` shows it).
- ``formatting`` writes every number the pages show; ``comparison_views`` the delta and rank
  tables the comparison page (``compare_page``) and the cross-election section share.
- The analysis tables of ``polistemics.analyses`` are written to ``tables/`` and read back
  before the page is drawn (docs/analysis-tables.md).
"""
