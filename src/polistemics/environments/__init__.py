"""Information environments (paper Table 1, App. E): the contexts each observation is asked under.

One module per job: ``baseline``, ``absent``, ``vague``, ``conflict`` (Contradictory and
Counterfactual, with ``distance``), ``noisy`` (with ``embeddings``), ``ablations``; ``build``
runs the requested ones; ``task_prompt`` renders what the answerer sees; ``release_io``
exchanges items with the authors' release format. ``items`` holds the shared row model.
"""
