"""The companion's errors: every failure a caller can cause raises one of these, with a
message that names what was wrong.

They sit under the core's :class:`~indexalg.errors.InvalidOperationError` (what the companion
raised for all of them before, so ``except InvalidOperationError`` and
``except IndexAlgError`` keep catching them)::

    IndexAlgError
    └── InvalidOperationError
        └── IndexAlgTritonError      any of the companion's own errors
            ├── FrontendError        from_torch cannot trace the function
            │   └── UnsupportedOp    an op (or a form of one) the front end does not convert
            ├── SpecError            a malformed kernel spec, view, dtype or template
            ├── ConfigError          a config, block size, access kind, tiling, split, size or
            │                        option that is invalid or does not apply
            ├── LaunchError          tensors that do not match a kernel's arguments; a
            │                        generated module that cannot be loaded
            └── VerificationError    no kernel ran or matched where one must (autotune)

Errors that the core raises for the core's input (a range, an expression that does not parse)
stay the core's.  This module imports nothing but :mod:`indexalg.errors`.
"""

from __future__ import annotations

from indexalg.errors import InvalidOperationError

__all__ = [
    "ConfigError",
    "FrontendError",
    "IndexAlgTritonError",
    "LaunchError",
    "SpecError",
    "UnsupportedOp",
    "VerificationError",
]


class IndexAlgTritonError(InvalidOperationError):
    """Base class of every error the companion raises on purpose."""


class FrontendError(IndexAlgTritonError):
    """:func:`~indexalg_triton.frontend.from_torch` cannot trace the function: shapes it does
    not follow, results that are not tensors, a bad ``layout``."""


class UnsupportedOp(FrontendError):
    """An op, or a form of one (its arguments, its overload), that the front end does not
    convert.  ``op`` is the op as torch names it (``aten.cumsum.default``); ``detail`` what
    about it is unsupported (the overload, an argument), or ``""``.  The message is
    ``from_torch: unsupported op OP (DETAIL)``."""

    def __init__(self, op: str, detail: str = "") -> None:
        self.op = op
        self.detail = detail
        super().__init__(f"from_torch: unsupported op {op}" + (f" ({detail})" if detail else ""))

    def __reduce__(self) -> tuple[type[UnsupportedOp], tuple[str, str]]:
        return (type(self), (self.op, self.detail))


class SpecError(IndexAlgTritonError):
    """A malformed kernel spec (an op, buffer, store or loop that does not fit the rest), a
    view, a dtype name, or a kernel template used out of order."""


class ConfigError(IndexAlgTritonError):
    """A config, block size, access kind, tiling, split, workload size or option that is
    invalid, or that does not apply to the kernel it is given with."""


class LaunchError(IndexAlgTritonError):
    """A launch whose tensors do not match the kernel's arguments, or a generated module that
    cannot be loaded."""


class VerificationError(IndexAlgTritonError):
    """No kernel ran, or none matched torch eager, where the caller needs one that does (an
    autotuning run in which no config ran)."""
