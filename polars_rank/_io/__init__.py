"""The TREC file readers and writers behind ``polars_rank.io`` (its public API)."""
