"""``str(simplify(e, r))`` does not depend on PYTHONHASHSEED: 200 generated expressions with
ranges are simplified in fresh interpreters under three hash seeds, and the outputs must be
byte-identical (Inductor's output changes with the seed; indexalg's may not)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from prop_support import fixed_cases

SEEDS = ("0", "1", "12345")
COUNT = 200

# The cases travel pickled (structurally), not as text, so that the printer and the
# parser are not part of what is compared on the way in.
CHILD = """
import pickle, sys
import indexalg as ia
from indexalg.simplify import simplify

for e, ranges in pickle.load(open(sys.argv[1], "rb")):
    try:
        out = str(simplify(e, ranges))
    except ia.IndexAlgError as err:
        out = "error: " + type(err).__name__
    sys.stdout.write(out + "\\n")
"""


def test_simplified_text_is_the_same_under_every_hash_seed(tmp_path: Path) -> None:
    cases = fixed_cases(COUNT)
    assert len(cases) == COUNT
    (tmp_path / "cases.pickle").write_bytes(pickle.dumps(cases))
    (tmp_path / "child.py").write_text(CHILD)
    outputs = {}
    for seed in SEEDS:
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run(
            [sys.executable, str(tmp_path / "child.py"), str(tmp_path / "cases.pickle")],
            capture_output=True,
            env=env,
            check=True,
        )
        outputs[seed] = run.stdout
    assert outputs["0"].count(b"\n") == COUNT
    for seed in SEEDS[1:]:
        if outputs[seed] != outputs["0"]:
            a, b = outputs["0"].splitlines(), outputs[seed].splitlines()
            diff = [(str(cases[i][0]), x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
            raise AssertionError(f"PYTHONHASHSEED={seed} changes the output: {diff[:5]}")
