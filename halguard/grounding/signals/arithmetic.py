"""Arithmetic inside claims: "12 + 30 = 42", "25% of 80 is 20", "from 40 to 50, a 25% rise".

Similarity cannot tell 42 from 43; arithmetic can. Each finding is (span, ok, explanation); the verifier
turns a wrong calculation into a CONTRADICTION.

Bounded on any input: an expression is read from at most :data:`MAX_EXPRESSION` characters before its "=", with
at most :data:`MAX_OPERANDS` numbers, and evaluated by a small interpreter of ``+ - * /`` and parentheses
(no powers, no names), at most :data:`MAX_EQUATIONS` per claim. A longer calculation is not checked.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from halguard.grounding.signals.compared import comparison_errors
from halguard.grounding.signals.direction import direction_errors

__all__ = ["ArithmeticFinding", "check_arithmetic", "is_math_claim"]

_MATH_HINT = re.compile(r"\d\s*[-+*/×÷x]\s*\d|(?<![<>=!])=(?!=)|\d\s*(?:%|percent\b)", re.IGNORECASE)
_NUM = r"-?\d+(?:,\d{3})*(?:\.\d+)?"
MAX_EXPRESSION = 200
MAX_OPERANDS = 40
MAX_EQUATIONS = 50
# The "= 42" part; the expression is then matched, anchored, in the MAX_EXPRESSION characters before it.
_RESULT = re.compile(rf"(?:=|\bequals\b|\bis\b)\s*({_NUM})", re.IGNORECASE)
# Tokens of an expression; anything else ends it. Read backwards from the "=", token by token (a regex over the
# whole expression backtracked exponentially on "1 + 1 + ... + =": whitespace could go to either side of +).
_TOKEN = re.compile(rf"{_NUM}|[-+*/×÷()]|(?<=\d)\s*x(?=\s*\d)|\s+|.", re.DOTALL)
_OPERATOR = frozenset("-+*/×÷x")
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


_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
              ast.Div: lambda a, b: a / b}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    msg = "not plain arithmetic"
    raise ValueError(msg)


def _eval_expression(expr: str) -> float | None:
    """The value of a ``+ - * /`` expression, or None (anything else, too long, or not computable)."""
    cleaned = expr.replace(",", "").replace("×", "*").replace("÷", "/")
    cleaned = re.sub(r"(?<=\d)\s*x\s*(?=\d)", "*", cleaned)
    if (len(cleaned) > MAX_EXPRESSION or not re.fullmatch(r"[\d\s.+\-*/()]+", cleaned) or "**" in cleaned
            or "//" in cleaned or len(re.findall(r"\d+(?:\.\d+)?", cleaned)) > MAX_OPERANDS):
        return None
    try:
        value = _evaluate(ast.parse(cleaned, mode="eval"))
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError, MemoryError):
        return None
    return value if value == value and abs(value) != float("inf") else None


def _is_number(token: str) -> bool:
    return token[:1].isdigit() or (token[:1] == "-" and token[1:2].isdigit())


def _expression_before(text: str, end: int) -> tuple[int, str] | None:
    """The arithmetic expression ending just before ``end`` (within MAX_EXPRESSION characters), or None."""
    window_start = max(0, end - MAX_EXPRESSION)
    tokens = [(m.start(), m.group()) for m in _TOKEN.finditer(text, window_start, end)]
    start = len(tokens)
    while start > 0:  # the longest run of numbers, operators, parentheses and spaces before the "="
        token = tokens[start - 1][1]
        if not (token.strip() == "" or _is_number(token) or token.strip() in _OPERATOR or token in "()"):
            break
        start -= 1
    run = [t for t in tokens[start:] if t[1].strip()]
    while run and (run[0][1].strip() in _OPERATOR or run[0][1] == ")"):  # it cannot start with an operator
        run = run[1:]
    numbers = sum(1 for _, t in run if _is_number(t))
    operators = sum(1 for _, t in run if t.strip() in _OPERATOR)
    if numbers < 2 or operators < 1 or not (_is_number(run[-1][1]) or run[-1][1] == ")"):
        return None
    first = run[0][0]
    return first, text[first:end].rstrip()


def _equations(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, expression, stated result)`` for each "expression = result", bounded per claim."""
    found = []
    for m in _RESULT.finditer(text):
        if len(found) >= MAX_EQUATIONS:
            break
        before = _expression_before(text, m.start())
        if before is not None:
            found.append((before[0], m.end(), before[1], m.group(1)))
    return found


def check_arithmetic(text: str) -> list[ArithmeticFinding]:
    """Check every calculation stated in ``text``; calculations we cannot parse are not reported. A movement whose
    own numbers go the other way ("rose to 12 million from 15 million", :mod:`.direction`) is a wrong one, and so
    is a comparison its own numbers deny ("61%, slightly below the national average of 48%", :mod:`.compared`)."""
    findings = [ArithmeticFinding(start, end, False, why)
                for start, end, why in direction_errors(text) + comparison_errors(text)]
    if not is_math_claim(text):
        return findings
    for start, end, expression, stated in _equations(text):
        lhs = _eval_expression(expression)
        if lhs is None:
            continue
        ok = _close(lhs, _num(stated), stated)
        findings.append(ArithmeticFinding(start, end, ok, f"{expression.strip()} = {lhs:g}"))
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
