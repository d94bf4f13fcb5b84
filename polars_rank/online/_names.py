"""Key columns (slices, queries, impressions) may not be named like a result's columns.

A slice column named ``estimate`` would be overwritten by the estimate (or make
Polars raise a DuplicateError): the functions refuse such names up front, as
:func:`polars_rank.compare` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["check_result_names"]


def check_result_names(what: str, columns: Iterable[str], result: Iterable[str]) -> None:
    """ValueError when one of ``columns`` (``what``: their parameters) is a result column.

    >>> check_result_names("group_by", ["day"], ["estimate"])
    >>> check_result_names("group_by", ["estimate"], ["estimate", "ci_low"])
    Traceback (most recent call last):
    ...
    ValueError: group_by columns may not be named like result columns: ['estimate']
    """
    clash = sorted(set(columns) & set(result))
    if clash:
        msg = f"{what} columns may not be named like result columns: {clash}"
        raise ValueError(msg)
