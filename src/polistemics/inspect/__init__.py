"""The Polistemics party-position task for inspect_ai (``pip install 'polistemics[inspect]'``).

``task.party_positions`` reads a dataset written by ``polistemics export dataset``: each item
becomes a sample whose input is the task prompt the study's answerer got. Any inspect_ai model
answers; the answers are judged by the Polistemics judge panel through this package's client
layer (``polistemics.llm``), with the judging package's prompts and parsers and the panel's
strict-majority vote (``polistemics.scoring``). docs/guides/sharing-a-dataset.md shows its use.

- ``samples``: the dataset's items as inspect_ai samples;
- ``scorer``: the judge panel as an inspect_ai scorer;
- ``task``: the task;
- ``_registry``: what the ``inspect_ai`` entry point registers (``polistemics/party_positions``).

Importing this package does not import inspect_ai; its modules do.
"""
