"""Standardised evidence (Sec. 4.2, App. D): validation, standardisation, rhetorical fidelity.

- ``validation.validate(text, language)``: the three App. D.2 checks (``sentences``, ``pronouns``).
- ``standardise.standardise(observations, completer, endpoint, ...)``: the D.1 prompt with
  retries, returning evidence passages and the Table 5 statistics.
- ``fidelity``: intensifier density, length growth and expansion versus I4 (App. D.4).
"""
