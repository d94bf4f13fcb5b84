"""The exceptions polars-rank raises for bad data (parameter errors are ValueError/TypeError)."""

from __future__ import annotations

import os
import sys

__all__ = ["DuplicateRowsError", "InvalidDataError", "TrecFormatError"]


class InvalidDataError(ValueError):
    """The data cannot be evaluated; the message names the problem and the query."""


class DuplicateRowsError(InvalidDataError):
    """A (query, document) pair on two rows of a run or of the qrels.

    The message names the first pair. trec_eval stops on one too ("duplicate docs",
    then "Can't calculate measure", exit status 4), as ``polars-rank eval`` does.
    """


class TrecFormatError(ValueError):
    """A line of a TREC file does not have the expected fields."""


def user_stacklevel() -> int:
    """The ``stacklevel`` of a warning that points at the first caller outside the package.

    For a ``warnings.warn`` in the function calling this: how deep the entry point
    (``evaluate``, ``compare``, ...) is nested does not matter.
    """
    package = os.path.dirname(__file__)
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
