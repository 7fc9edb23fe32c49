"""Scoring: judge verdicts -> scored cells -> Rubric Scores, Adherence Indices, EMI and analyses.

- ``verdicts``: judge verdict records and the panel's strict-majority vote.
- ``cells``: the scored-cells table every source produces and every index consumes.
- ``indices``: pass rates, Rubric Scores, Adherence Indices, EMI at any grain.
- ``summary``: ``score_cells`` -> per-model ``ModelScores`` (what ``polistemics score`` prints).
- ``analyses``: environment difficulty, dispersion, party spread, leave-one-out, ablations,
  vague modes.
- ``agreement``: the judge panel's agreement tables; ``flips``: the judge flip rate;
  ``bootstrap``: percentile CIs of the indices (the formulas and the engine are ``stats``').
- ``release``: read and write the authors' release score files.
"""
