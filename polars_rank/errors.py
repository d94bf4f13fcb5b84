"""The exceptions polars-rank raises for bad data (parameter errors are ValueError/TypeError)."""

from __future__ import annotations

__all__ = ["InvalidDataError", "TrecFormatError"]


class InvalidDataError(ValueError):
    """The data cannot be evaluated; the message names the problem and the query."""


class TrecFormatError(ValueError):
    """A line of a TREC file does not have the expected fields."""
