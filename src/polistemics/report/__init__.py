"""The HTML report of a run or an authors' release: the paper's figures and tables, judge
reliability, data and cost, and an item browser for auditing judges.

- ``build``: ``build_report(run_dir)``, ``build_release_report(folder, out_dir)``, ``build_any``.
- ``run_inputs`` / ``release_inputs`` -> ``inputs.ReportInputs``; ``content`` computes
  everything once; ``page`` and ``sections`` render the HTML; ``figures`` draws the (matplotlib)
  heatmaps; ``tables``, ``reliability`` and ``datasets`` build the tables; ``browser`` the item
  browser's JSON (``assets/browser.js`` shows it).
"""
