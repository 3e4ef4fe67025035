"""One module per ``bench`` command (``add_arguments`` and ``main``); shared flag types here."""

from __future__ import annotations

import argparse


def positive_whole_number(text: str) -> int:
    """An argparse type: a whole number of at least 1 (argparse turns the error into one
    line and exit 2)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value
