"""Polistemics: audit how LLMs mediate political information (party positions) before elections."""

__version__ = "0.1.0"
