"""Testing tools for indexalg and for people who write their own rules.

* :mod:`indexalg.testing.strategies`: Hypothesis strategies for expressions, ranges, points
  and claims;
* :mod:`indexalg.testing.oracles`: the checks the property suite and ``indexalg fuzz`` use
  (value preservation, bounds and congruence soundness, prover soundness), exhaustive
  enumeration of small ranges and Inductor's ``simplify_with_ranges`` as a second opinion;
* :mod:`indexalg.testing.fuzz`: the campaign runner behind ``indexalg fuzz``.

Importing this package imports nothing: hypothesis is needed only by the submodules that
use it (``strategies`` and ``fuzz``).
"""

from __future__ import annotations

__all__: list[str] = []
