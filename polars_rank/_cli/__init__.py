"""The ``polars-rank`` command line's subcommands.

A front end over :func:`polars_rank.evaluate`, :func:`polars_rank.compare` and
:func:`polars_rank.fuse`; the entry point is :mod:`polars_rank.__main__`.
"""
