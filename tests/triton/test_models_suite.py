"""The GPU models suite (bench.gpu_models) at its small size in Triton's interpreter: every
function traces, generates and matches torch eager, with its default config and with the
pointer-only config of its tuning space."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")
pytest.importorskip("torch")
pytest.importorskip("triton")

from bench.gpu_models import MODELS, tuning_space
from indexalg_triton import from_torch
from indexalg_triton.runtime import verify


def test_suite_has_at_least_25_functions() -> None:
    assert len(MODELS) >= 25


@pytest.mark.parametrize("name", list(MODELS))
def test_model_matches_eager(name: str) -> None:
    m = MODELS[name]
    xs = m.inputs("small", "cpu", seed=3)
    spec = from_torch(m.fn, *xs, name=name)
    for cfg in [None, replace(tuning_space(spec)[0], structured=False)]:
        v = verify(name, m.fn, xs, spec, cfg)
        assert v.ok, v.line()
