"""Batch execution: the calls of an endpoint with ``execution = "batch"`` sent through the
provider's batch API instead of one request each.

The client layer (``llm.client.LLMClient``) still carries every call: for a batch endpoint it
hands the request to a ``BatchCollector`` and writes what it needs of the call to a journal on
disk; when the batch's line comes it stores the result as it stores an online call and hands it
on (to an awaiting ``complete``, or to the waiter of a call handed over as data with ``defer``).
The modules here each do one job:

- ``wire``: the batch input lines and the reading of output and error files (OpenAI's format);
- ``api``: the HTTP calls (``/files``, ``/batches``);
- ``ledger``: the batches of a run, in its store, from the moment each is created;
- ``collector``: gathers requests into batches, sends them, polls them, hands results back;
- ``spool``: a batch's input and output files on disk;
- ``journal``: the records of the calls waiting for their batches, on disk;
- ``deferred``: who goes on from a result (``BatchWaiter``), and what is kept of a waiting call.
"""
