"""bench.zoo's report of the exceptions the plug-in's fallback wrapper caught (each a bug
in the plug-in, invisible in the outputs, since Inductor's own answer is used)."""

from __future__ import annotations

from bench import zoo


def _row(model: str, plugin: dict) -> dict:
    return {"model": model, "shape": "dynamic", "plugin": plugin}


def test_errors_caught_lists_each_entry_and_type_with_models_and_places():
    where = "indexalg/inductor/_entries.py:12 in f: AttributeError: 'X' has no 'y'"
    rows = [
        _row(
            "vit",
            {
                "simplify_with_ranges": {
                    "fallbacks": {"error:AttributeError": 3, "undecided": 9},
                    "errors": {"error:AttributeError": [where]},
                }
            },
        ),
        _row("llama", {"simplify_with_ranges": {"fallbacks": {"error:AttributeError": 2}}}),
        _row("bert", {"maybe_evaluate_static": {"fallbacks": {"undecided": 4}}}),
    ]
    text = zoo._errors_caught(rows)
    assert text.splitlines() == [
        "errors caught by the fallback wrapper (Inductor's answer used; each a bug):",
        "  simplify_with_ranges error:AttributeError: 5 (vit/dynamic, llama/dynamic)",
        f"    raised at {where}",
    ]


def test_no_error_says_none():
    rows = [_row("bert", {"maybe_evaluate_static": {"fallbacks": {"undecided": 4}}})]
    assert zoo._errors_caught(rows) == "errors caught by the fallback wrapper: none"
