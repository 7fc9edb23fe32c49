"""Batch execution: the calls of an endpoint with ``execution = "batch"`` sent through the
provider's batch API instead of one request each.

The client layer (``llm.client.LLMClient``) still carries every call: for a batch endpoint its
transport step hands the request to a ``BatchCollector`` and awaits the result, then stores it
as it stores an online call. The modules here each do one job:

- ``wire``: the batch input lines and the reading of output and error files (OpenAI's format);
- ``api``: the HTTP calls (``/files``, ``/batches``);
- ``ledger``: the batches of a run, in its store, from the moment each is created;
- ``collector``: gathers requests into batches, sends them, polls them, hands results back.
"""
