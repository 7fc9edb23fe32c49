"""The files a finished run leaves in its directory: their names (``layout``), how the run writes
them (``write``) and how ``score`` and ``report`` read them back (``read``).

Below both ``run/`` (which writes a run) and ``report/`` (which reads one): neither imports the
other to find a file.
"""
