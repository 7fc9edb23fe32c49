"""``python -m polistemics ...``: the same command line as the ``polistemics`` script."""

from polistemics.cli import main

main()
