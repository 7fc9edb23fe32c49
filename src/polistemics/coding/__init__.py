"""Stance coding: which stance an answer attributes to the party (issue 16's mechanisms).

``records`` holds the record types every later stage reads; the coder itself (prompt, parsing,
majority) lives beside it.
"""
