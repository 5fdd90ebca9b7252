"""Operating points and calibrated probabilities per answer shape.

The local verifier's ``score`` is a rule output (a logistic combination of signals): it ranks answers well, but
0.8 does not mean "8 in 10 answers like this are wrong", and one threshold does not suit every shape of answer
(short answers to questions want a low one, long summaries a high one). A :class:`Calibration` holds, per answer
shape (:mod:`halguard.grounding.profile`), the threshold that flags an answer, the weak-support threshold, and a
monotone map from score to the probability that the answer is hallucinated (isotonic regression on labelled rows).

The shipped calibration (``calibration.json`` beside this module, :meth:`Calibration.default`) was fitted on the
three development files with ``halguard calibrate``; the file records what it was fitted on and its
cross-validated figures. Its probabilities hold for data like those files: recalibrate on your own labelled rows
with ``halguard calibrate FILE.jsonl --out profile.json`` and pass ``LocalVerifier(calibration="profile.json")``.

The fitting helpers (:func:`fit_shape`, :func:`isotonic_knots`, :func:`choose_threshold`) are what
``halguard calibrate`` runs; they are here so the fitted numbers and the code that reads them live together.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from halguard.errors import CalibrationError, InvalidInputError
from halguard.util.files import read_text_limited, write_private
from halguard.util.safejson import loads

__all__ = [
    "BUDGETED_SHAPES",
    "CALIBRATION_FORMAT",
    "CONTRADICTION_THRESHOLD",
    "DEFAULT_FALSE_ALARM_BUDGET",
    "DEFAULT_FALSE_ALARM_BUDGETS",
    "MIN_ROWS_PER_SHAPE",
    "PROBABILITY_FLOOR",
    "THRESHOLD_FLOOR",
    "WEAK_FRACTION",
    "Calibration",
    "CalibrationError",
    "ShapeCalibration",
    "choose_threshold",
    "fit_shape",
    "isotonic_knots",
]

CALIBRATION_FORMAT = "halguard-calibration/1"
# No shape's fitted threshold is below the logistic model's even odds (0.5): under it, the fit flags claims that the
# signals themselves score as more likely supported than not. On the dev files the F1-best thresholds of short
# answers and short summaries were 0.27, the risk of a claim with no signal at all: HaluEval's right answers are
# copied spans that score exactly that, so the fit learned the dataset's construction (accuracy 0.93 out of fold), and
# every grounded paraphrase of a short answer was flagged. With the floor HaluEval's accuracy is 0.85.
THRESHOLD_FLOOR = 0.5
# A claim the evidence contradicts is flagged from this risk on, whatever its shape's threshold: the long shapes' high
# thresholds (0.75-0.82) absorb the paraphrase noise of long answers, and a changed year in a long copied answer
# (risk 0.69) or a negated sentence (0.55) must not hide under them. Costs 0.007 F1 on ragtruth_dev out of fold.
CONTRADICTION_THRESHOLD = 0.5
# A probability is never reported as certain: the isotonic map is clipped to [0.01, 0.99] (a handful of rows at the
# end of the score range cannot support "never" or "always").
PROBABILITY_FLOOR = 0.01
# Fewer labelled rows than this (or fewer than MIN_CLASS_ROWS of either label) for a shape: that shape is not
# fitted, it keeps the base calibration's entry. 40 rows put a fitted threshold within about 0.1 of the full-data one
# in the grouped folds of the dev files; fewer moved it by up to 0.3.
MIN_ROWS_PER_SHAPE = 40
MIN_CLASS_ROWS = 8
# The isotonic map is fitted on score bins of at least this many rows (at most MAX_BINS bins): unbinned, the pool-
# adjacent-violators fit follows single rows at the ends of the range. Out-of-fold ECE on ragtruth_dev with bins of
# 10 / 20 / 30 / 40 / 60 rows: 0.071 / 0.065 / 0.061 / 0.055 / 0.068 (HaluEval 0.012 and SummEdits 0.035-0.045
# throughout; Platt scaling: RAGTruth 0.059 but HaluEval 0.056). The differences are within the sampling noise of an
# ECE on 525 rows (docs/evaluation.md), so this is a choice, not a fit.
MIN_BIN_ROWS = 40
MAX_BINS = 40
# The long shapes' thresholds are the F1-best among those that flag at most this share of their faithful answers (a
# false-alarm budget; issue 45: a guard that flags most faithful long answers gets switched off). Out of fold on the
# dev files (grouped 5-fold, 2026-11-28, the predictions of commit 82dfb6e), against the plain F1-best threshold:
# RAGTruth faithful answers flagged 22.7% -> 17.3%, recall 0.697 -> 0.668, F1 0.682 -> 0.692 (the records shape's
# F1-best threshold did not hold out of fold); budgets of 0.3 / 0.2 / 0.15 flagged 17.7% / 15.8% / 13.2% at F1
# 0.690 / 0.684 / 0.649. A contradicting claim flags its answer whatever the threshold, so no budget lets a blocking
# finding pass.
DEFAULT_FALSE_ALARM_BUDGET = 0.25
# The shapes the default budget applies to. Not the short ones (one or two claims, no many-claims correction): there
# one unsupported fact must flag, and short answers are within it anyway (0.8%). Short summaries (answers checked
# without a question; SummEdits' 1,341 rows, where the verifier is near chance: AUROC 0.57) were budgeted and measured
# twice. The first time (2026-11-28) the threshold went to 0.91 and "The Eiffel Tower was completed in 1925." passed
# against "... completed in 1889". The second (2026-11-29, within 30%, with the short answers' floors of
# halguard.grounding.blocking.SHORT_ANSWER_FLOORS, which keep a name or number the passages lack or give otherwise
# flagged): out of fold SummEdits' faithful answers flagged 86.1% -> 31.4% for a recall of 0.881 -> 0.503, but the
# hand-written set checked without its questions went from 9 to 30 of 72 fabrications supported (units, antonyms,
# invented clauses: word-level findings below 0.90), so it stays the caller's choice (`--false-alarm-budget`).
BUDGETED_SHAPES = ("long_answer", "long_summary", "records")
DEFAULT_FALSE_ALARM_BUDGETS: Mapping[str, float] = MappingProxyType(
    {shape: DEFAULT_FALSE_ALARM_BUDGET for shape in BUDGETED_SHAPES})
# The weak-support threshold is this fraction of the flag threshold: the ratio of the hand-set defaults (0.4 / 0.5).
# WEAK_SUPPORT is a reading aid (claims a reader should look at), not a decision, so it is not fitted: a recall-based
# rule put it at the flag threshold itself for three of the five shapes (no band) and at 0.23 for long answers.
WEAK_FRACTION = 0.8
# The largest calibration file read. The shipped one is 6 KB: five shapes of at most MAX_BINS knots each, and the
# cross-validated figures of three files, about 1 KB per input file with its tasks, so a fit on a thousand files
# stays near 1 MB. A file over this is refused from its size, unread (--calibration /dev/zero once read 3 GB).
MAX_CALIBRATION_BYTES = 4 * 2**20


_KNOT_LINES = re.compile(r"\[\n *(-?[0-9.eE+-]+),\n *(-?[0-9.eE+-]+)\n *\]")


@dataclass(frozen=True)
class ShapeCalibration:
    """One answer shape's operating point and probability map.

    Attributes:
        threshold: Answer risk at or above which the answer (and a claim) is flagged.
        weak_threshold: Claim risk at or above which an unflagged claim is WEAK_SUPPORT.
        knots: ``(score, probability)`` points, both non-decreasing; the probability of a score is interpolated
            linearly between them and is flat past the ends.
        rows: Labelled rows the entry was fitted on (0: not fitted, e.g. the built-in fallback).
        positives: Hallucinated rows among them.
    """

    threshold: float
    weak_threshold: float
    knots: tuple[tuple[float, float], ...]
    rows: int = 0
    positives: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.weak_threshold <= self.threshold <= 1.0:
            msg = f"need 0 <= weak_threshold <= threshold <= 1, got {self.weak_threshold} and {self.threshold}"
            raise CalibrationError(msg)
        if not self.knots:
            msg = "a shape calibration needs at least one (score, probability) knot"
            raise CalibrationError(msg)
        previous = (-math.inf, -math.inf)
        for knot in self.knots:
            if len(knot) != 2 or not all(isinstance(v, (int, float)) and 0.0 <= v <= 1.0 for v in knot):
                msg = f"each knot is a (score, probability) pair in [0, 1], got {knot!r}"
                raise CalibrationError(msg)
            if knot[0] < previous[0] or knot[1] < previous[1]:
                msg = "knots must be non-decreasing in both score and probability"
                raise CalibrationError(msg)
            previous = knot

    def probability(self, score: float) -> float:
        """The calibrated probability that an answer with this risk ``score`` is hallucinated."""
        xs = self.knots
        if score <= xs[0][0]:
            return xs[0][1]
        if score >= xs[-1][0]:
            return xs[-1][1]
        # A binary search: a calibration file is user input, and its knot count is not bounded.
        i = bisect.bisect_left(xs, score, key=lambda knot: knot[0])
        (x0, y0), (x1, y1) = xs[i - 1], xs[i]
        return y1 if x1 == x0 else y0 + (y1 - y0) * (score - x0) / (x1 - x0)

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "weak_threshold": self.weak_threshold,
                "knots": [list(k) for k in self.knots], "rows": self.rows, "positives": self.positives}

    @classmethod
    def from_dict(cls, data: Any, *, where: str) -> ShapeCalibration:
        if not isinstance(data, Mapping):
            msg = f"{where}: expected an object, got {type(data).__name__}"
            raise CalibrationError(msg)
        try:
            knots = tuple((float(x), float(y)) for x, y in data["knots"])
            return cls(threshold=float(data["threshold"]), weak_threshold=float(data["weak_threshold"]),
                       knots=knots, rows=int(data.get("rows", 0)), positives=int(data.get("positives", 0)))
        except CalibrationError as exc:
            msg = f"{where}: {exc}"
            raise CalibrationError(msg) from exc
        except (KeyError, TypeError, ValueError) as exc:
            msg = f"{where}: needs threshold, weak_threshold and knots [[score, probability], ...] ({exc!r})"
            raise CalibrationError(msg) from exc


@dataclass(frozen=True)
class Calibration:
    """Per-shape operating points and probability maps (see the module docstring).

    Attributes:
        shapes: ``records`` / ``short`` / ``long`` (see :mod:`halguard.grounding.profile`) to their entry.
        fallback: The entry for an answer whose shape has none (all shapes' rows pooled).
        provenance: What the calibration was fitted on and how it scored out of fold (free-form, recorded as is).
    """

    shapes: Mapping[str, ShapeCalibration]
    fallback: ShapeCalibration
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def for_profile(self, profile: str | None) -> ShapeCalibration:
        """The entry for an answer shape (the fallback when the shape has none)."""
        return self.shapes.get(profile or "", self.fallback)

    def to_dict(self) -> dict[str, Any]:
        return {"format": CALIBRATION_FORMAT, "shapes": {k: v.to_dict() for k, v in sorted(self.shapes.items())},
                "fallback": self.fallback.to_dict(), "provenance": dict(self.provenance)}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the calibration as JSON (atomically: a reader never sees half a file)."""
        text = json.dumps(self.to_dict(), indent=1)
        # One knot per line: [score, probability] pairs (numbers only, written above) are joined back up.
        text = _KNOT_LINES.sub(lambda m: f"[{m.group(1)}, {m.group(2)}]", text)
        write_private(Path(path), text + "\n")

    @classmethod
    def from_dict(cls, data: Any) -> Calibration:
        """Read the mapping :meth:`to_dict` writes.

        Raises:
            CalibrationError: not a halguard calibration, or a field is missing or out of range.
        """
        if not isinstance(data, Mapping) or data.get("format") != CALIBRATION_FORMAT:
            msg = f"not a halguard calibration (expected an object with format {CALIBRATION_FORMAT!r})"
            raise CalibrationError(msg)
        shapes = data.get("shapes")
        if not isinstance(shapes, Mapping):
            msg = "a calibration needs a 'shapes' object"
            raise CalibrationError(msg)
        provenance = data.get("provenance", {})
        return cls(shapes={str(k): ShapeCalibration.from_dict(v, where=f"shape {k!r}") for k, v in shapes.items()},
                   fallback=ShapeCalibration.from_dict(data.get("fallback"), where="fallback"),
                   provenance=provenance if isinstance(provenance, Mapping) else {})

    @classmethod
    def load(cls, source: str | os.PathLike[str] | Mapping[str, Any] | Calibration) -> Calibration:
        """A calibration from a JSON file path, a mapping, or a :class:`Calibration` (returned as is).

        Raises:
            CalibrationError: the file cannot be read, is not JSON, or is not a halguard calibration.
        """
        if isinstance(source, Calibration):
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        if not isinstance(source, (str, os.PathLike)):
            msg = f"calibration must be a path, a mapping or a Calibration, got {type(source).__name__}"
            raise CalibrationError(msg)
        try:  # a regular file only (a FIFO or /dev/zero is refused unread), bounded in size and nesting
            data = loads(read_text_limited(source, MAX_CALIBRATION_BYTES, what="calibration file"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONTooDeep and InvalidInputError included
            msg = f"cannot read calibration {os.fspath(source)!r}: {exc}"
            raise CalibrationError(msg) from exc
        return cls.from_dict(data)

    @classmethod
    def default(cls, *, meaning: bool = False) -> Calibration:
        """The shipped calibration, fitted on the development files (its ``provenance`` says how): the one for the
        verifier with its claim checker (``meaning``), or for the rules alone."""
        return _shipped("calibration-meaning.json" if meaning else "calibration.json")


@lru_cache(maxsize=2)
def _shipped(name: str) -> Calibration:
    return Calibration.load(Path(__file__).with_name(name))


# -- fitting (what ``halguard calibrate`` runs) -----------------------------------------------------------------------


def isotonic_knots(scores: Sequence[float], labels: Sequence[bool]) -> tuple[tuple[float, float], ...]:
    """A monotone map from score to the rate of hallucinated rows: pool-adjacent-violators over score bins.

    Rows are sorted by score and cut into at most :data:`MAX_BINS` bins of at least :data:`MIN_BIN_ROWS` rows
    (rows with equal scores stay together); each pooled block becomes a knot at its rows' mean score, its rate
    clipped to ``[PROBABILITY_FLOOR, 1 - PROBABILITY_FLOOR]``.
    """
    if len(scores) != len(labels) or not scores:
        msg = "isotonic_knots needs as many labels as scores, and at least one row"
        raise CalibrationError(msg)
    pairs = sorted(zip((float(s) for s in scores), (bool(y) for y in labels)))
    size = max(MIN_BIN_ROWS, math.ceil(len(pairs) / MAX_BINS))
    bins: list[list[float]] = []  # [sum of scores, sum of labels, rows]
    i = 0
    while i < len(pairs):
        j = min(i + size, len(pairs))
        while j < len(pairs) and pairs[j][0] == pairs[j - 1][0]:
            j += 1
        if len(pairs) - j < size // 2:  # a short tail joins the last bin
            j = len(pairs)
        chunk = pairs[i:j]
        bins.append([sum(s for s, _ in chunk), float(sum(y for _, y in chunk)), float(len(chunk))])
        i = j
    blocks: list[list[float]] = []
    for b in bins:
        blocks.append(list(b))
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] > blocks[-1][1] / blocks[-1][2]:
            s, y, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += y
            blocks[-1][2] += n
    hi = 1.0 - PROBABILITY_FLOOR
    return tuple((round(s / n, 6), round(min(hi, max(PROBABILITY_FLOOR, y / n)), 6)) for s, y, n in blocks)


def choose_threshold(scores: Sequence[float], labels: Sequence[bool], *, floor: float = THRESHOLD_FLOOR,
                     forced: Sequence[bool] | None = None, false_alarm_budget: float | None = None) -> float:
    """The score threshold at or above ``floor`` with the best F1 (flag at or above it); ties go to the higher one.

    ``forced``: rows flagged whatever the threshold (a contradicting claim at or above
    :data:`CONTRADICTION_THRESHOLD`), so the threshold is chosen for the rows it actually decides.
    ``false_alarm_budget``: the best F1 among the thresholds that flag at most this share of the faithful rows
    (forced rows included; where they alone exceed it, 1.0: only they are flagged).
    """
    forced = [False] * len(scores) if forced is None else list(forced)
    if false_alarm_budget is not None and not 0.0 <= false_alarm_budget <= 1.0:
        msg = f"false_alarm_budget must be within [0, 1], got {false_alarm_budget}"
        raise InvalidInputError(msg)
    positives = sum(1 for y in labels if y)
    if not positives:
        return 1.0
    negatives = len(labels) - positives
    allowed = negatives if false_alarm_budget is None else false_alarm_budget * negatives
    # Rows forced in count as flagged at every threshold; the others are swept from the highest score down.
    tp = sum(1 for y, f in zip(labels, forced) if f and y)
    fp = sum(1 for y, f in zip(labels, forced) if f and not y)
    pairs = sorted(((s, y) for s, y, f in zip(scores, labels, forced) if not f), reverse=True)
    best, best_t = 2 * tp / (tp + fp + positives), 1.0  # flag only the forced rows
    for k, (s, y) in enumerate(pairs):
        if s < floor:
            break
        tp, fp = tp + y, fp + (not y)
        if k + 1 < len(pairs) and pairs[k + 1][0] == s:
            continue  # a threshold sits between distinct scores
        if fp > allowed:
            break  # past the false-alarm budget: every lower threshold flags more faithful rows
        f1 = 2 * tp / (tp + fp + positives)
        if f1 > best:
            best, best_t = f1, float(s)
    return round(best_t, 4)


def fit_shape(scores: Sequence[float], labels: Sequence[bool], *, floor: float = THRESHOLD_FLOOR,
              forced: Sequence[bool] | None = None, false_alarm_budget: float | None = None) -> ShapeCalibration:
    """One shape's entry from its labelled rows: the F1-best threshold (at or above ``floor``; ``forced`` and
    ``false_alarm_budget`` as in :func:`choose_threshold`), the weak threshold at :data:`WEAK_FRACTION` of it, and
    the isotonic probability map."""
    threshold = choose_threshold(scores, labels, floor=floor, forced=forced, false_alarm_budget=false_alarm_budget)
    return ShapeCalibration(threshold=threshold, weak_threshold=round(WEAK_FRACTION * threshold, 4),
                            knots=isotonic_knots(scores, labels), rows=len(scores),
                            positives=sum(1 for y in labels if y))


def enough_rows(labels: Sequence[bool]) -> bool:
    """Whether a shape has enough labelled rows of both kinds to be fitted."""
    positives = sum(1 for y in labels if y)
    return len(labels) >= MIN_ROWS_PER_SHAPE and min(positives, len(labels) - positives) >= MIN_CLASS_ROWS
