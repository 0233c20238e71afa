"""Hypothesis profiles for the property suite.

* ``ci`` (the default): derandomized, so every run checks the same examples; modest
  ``max_examples`` so the whole suite runs in under three minutes on two cores.
* ``campaign``: random, many more examples, for long local runs.

Choose with ``INDEXALG_HYPOTHESIS_PROFILE=campaign pytest property_tests``.  Tests that need
more or fewer examples than the profile's scale it with ``prop_support.examples(n)``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_QUIET_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=_QUIET_CHECKS,
    print_blob=True,
)
settings.register_profile(
    "campaign",
    max_examples=5000,
    deadline=None,
    suppress_health_check=_QUIET_CHECKS,
    print_blob=True,
)
settings.load_profile(os.environ.get("INDEXALG_HYPOTHESIS_PROFILE", "ci"))
