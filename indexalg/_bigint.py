"""Integer <-> decimal text for integers of any size.

Python refuses ``int(text)`` and ``str(n)`` beyond ``sys.get_int_max_str_digits()`` digits
(4,300 by default) to bound their quadratic cost.  indexalg's integers are unbounded, so the
parser, the printers, the CLI and the interop layers convert through these two functions
instead: small values take the built-in path, longer ones are split in halves by a power of
ten (divide and conquer: every piece stays under the limit, and the cost is that of the
big-integer multiplications and divisions, sub-quadratic).  The global setting is never
changed.
"""

from __future__ import annotations

__all__ = ["int_from_digits", "int_summary", "int_to_str"]

# Below the default limit (4,300 digits) and any limit Python accepts (>= 640), with room.
_CHUNK = 600
# 600 decimal digits need at most 600 * log2(10) < 1,994 bits.
_CHUNK_BITS = 1_990


def int_from_digits(digits: str) -> int:
    """The value of a string of ASCII decimal digits (no sign, no spaces), of any length."""
    if len(digits) <= _CHUNK:
        return int(digits)
    half = len(digits) // 2
    high = int_from_digits(digits[:-half])
    low = int_from_digits(digits[-half:])
    scale: int = 10**half
    return high * scale + low


def int_to_str(value: int) -> str:
    """``str(value)`` for an int of any size."""
    if value < 0:
        return "-" + int_to_str(-value)
    if value.bit_length() <= _CHUNK_BITS:
        return str(value)
    # value < 10**n with n an upper estimate of its digit count; split at 10**(n//2).
    n = value.bit_length() * 30103 // 100000 + 1
    half = n // 2
    scale: int = 10**half
    high, low = divmod(value, scale)
    if high == 0:
        return int_to_str(low)
    return int_to_str(high) + int_to_str(low).rjust(half, "0")


def int_summary(value: int) -> str:
    """``value`` for an error message: in full up to 60 digits, else its first and last
    digits and its length (a message must not be 5,000 digits long, nor fail to format)."""
    text = int_to_str(value)
    digits = len(text.lstrip("-"))
    if digits <= 60:
        return text
    sign = "-" if value < 0 else ""
    body = text.lstrip("-")
    return f"{sign}{body[:12]}...{body[-12:]} ({digits} digits)"
