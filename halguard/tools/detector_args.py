"""The ``--detector`` and ``--detector-option`` arguments every ``halguard`` command takes: checked by name before
anything loads (:func:`halguard.detectors.check_detector_name`, :func:`~halguard.detectors.check_detector_options`).
"""

from __future__ import annotations

import argparse
from typing import Any

from halguard.detectors import DETECTORS, check_detector_name, check_detector_options, parse_detector_option
from halguard.errors import HalguardError, InvalidInputError

__all__ = ["DETECTOR_HELP", "OPTION_HELP", "add_option_argument", "detector_name", "options"]

DETECTOR_HELP = (f"one of {', '.join(DETECTORS)}, or nli:<model> (an entailment model), hhem:<model> "
                 "(HHEM-2.1-open), minicheck:<model> (MiniCheck) or spans:<model> (a span model such as "
                 "LettuceDetect's), <model> a Hugging Face id (pin it with @<revision>) or a folder")
OPTION_HELP = ("an option of the --detector model by name, KEY=VALUE (repeatable; JSON values are read as JSON): "
               "reading=reference|evidence, labels, revision, max_length, trust_remote_code=true, ...")


def detector_name(value: str) -> str:
    """argparse type of a detector name: checked without loading anything."""
    try:
        return check_detector_name(value)
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _detector_option(value: str) -> tuple[str, Any]:
    """argparse type of ``--detector-option key=value``."""
    try:
        return parse_detector_option(value)
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    """``--detector-option KEY=VALUE`` (repeatable) on ``parser``."""
    parser.add_argument("--detector-option", action="append", default=[], type=_detector_option, metavar="KEY=VALUE",
                        help=OPTION_HELP)


def options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--detector-option`` values, checked against the ``--detector`` before anything loads.

    Raises:
        HalguardError: An option given twice, or one the detector does not take.
    """
    given: dict[str, Any] = {}
    for key, value in args.detector_option:
        if key in given:
            msg = f"--detector-option {key} is given twice"
            raise HalguardError(msg)
        given[key] = value
    try:
        return check_detector_options(args.detector, given)
    except InvalidInputError as exc:
        raise HalguardError(str(exc)) from exc
