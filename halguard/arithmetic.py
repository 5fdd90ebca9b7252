"""Arithmetic inside claims, checked with sympy: "12 + 30 = 42", "25% of 80 is 20", "from 40 to 50, a 25% rise".

Similarity cannot tell 42 from 43; arithmetic can. Each finding is (span, ok, explanation); the verifier
turns a wrong calculation into a CONTRADICTION.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ArithmeticFinding", "check_arithmetic", "is_math_claim"]

_MATH_HINT = re.compile(r"\d\s*[-+*/×÷x]\s*\d|(?<![<>=!])=(?!=)|\d\s*(?:%|percent\b)", re.IGNORECASE)
_NUM = r"-?\d+(?:,\d{3})*(?:\.\d+)?"
_EQUATION = re.compile(rf"((?:\(?\s*{_NUM}\s*\)?\s*[-+*/×÷x]\s*)+\(?\s*{_NUM}\s*\)?)\s*(?:=|equals|is)\s*({_NUM})")
_PERCENT_OF = re.compile(rf"({_NUM})\s*(?:%|percent)\s+of\s+\$?({_NUM})\s+(?:is|=|equals|was)\s+\$?({_NUM})", re.I)
_CHANGE = re.compile(
    rf"from\s+\$?({_NUM})\s*%?\s+to\s+\$?({_NUM})\s*%?[^.;]{{0,40}}?\b({_NUM})\s*(?:%|percent)\s*"
    r"(increase|rise|growth|gain|jump|decrease|decline|drop|fall|reduction)?",
    re.IGNORECASE,
)


_DOWN = frozenset(("decrease", "decline", "drop", "fall", "reduction"))


@dataclass(frozen=True)
class ArithmeticFinding:
    start: int
    end: int
    ok: bool
    explanation: str


def is_math_claim(text: str) -> bool:
    """Whether the claim contains an operator, an equals sign or a percentage."""
    return bool(_MATH_HINT.search(text))


def _num(s: str) -> float:
    return float(s.replace(",", ""))


def _close(actual: float, stated: float, stated_text: str) -> bool:
    """Equal up to the rounding the stated number shows (e.g. 33.3 for 33.333...)."""
    decimals = len(stated_text.split(".")[1]) if "." in stated_text else 0
    tolerance = max(0.5 * 10 ** (-decimals), abs(actual) * 0.005)
    return abs(actual - stated) <= tolerance + 1e-9


def _eval_expression(expr: str) -> float | None:
    import sympy

    cleaned = expr.replace(",", "").replace("×", "*").replace("÷", "/")
    cleaned = re.sub(r"(?<=\d)\s*x\s*(?=\d)", "*", cleaned)
    if not re.fullmatch(r"[\d\s.+\-*/()]+", cleaned):
        return None
    try:
        value = sympy.sympify(cleaned, evaluate=True)
        return float(value) if value.is_number else None
    except (sympy.SympifyError, TypeError, ValueError, ZeroDivisionError, SyntaxError):
        return None


def check_arithmetic(text: str) -> list[ArithmeticFinding]:
    """Check every calculation stated in ``text``; calculations we cannot parse are not reported."""
    if not is_math_claim(text):
        return []
    findings: list[ArithmeticFinding] = []
    for m in _EQUATION.finditer(text):
        lhs = _eval_expression(m.group(1))
        if lhs is None:
            continue
        ok = _close(lhs, _num(m.group(2)), m.group(2))
        findings.append(ArithmeticFinding(m.start(), m.end(), ok, f"{m.group(1).strip()} = {lhs:g}"))
    for m in _PERCENT_OF.finditer(text):
        actual = _num(m.group(1)) / 100 * _num(m.group(2))
        ok = _close(actual, _num(m.group(3)), m.group(3))
        findings.append(ArithmeticFinding(m.start(), m.end(), ok, f"{m.group(1)}% of {m.group(2)} = {actual:g}"))
    for m in _CHANGE.finditer(text):
        before, after, stated = _num(m.group(1)), _num(m.group(2)), _num(m.group(3))
        if before == 0:
            continue
        change = (after - before) / abs(before) * 100
        word = (m.group(4) or "").lower()
        # The direction word must agree with the sign: "a 25% increase" from 200 to 150 is wrong.
        direction_ok = not word or (change < 0) == (word in _DOWN)
        ok = _close(abs(change), stated, m.group(3)) and direction_ok
        findings.append(
            ArithmeticFinding(m.start(), m.end(), ok, f"{before:g} -> {after:g} is a {change:+.1f}% change")
        )
    return findings
