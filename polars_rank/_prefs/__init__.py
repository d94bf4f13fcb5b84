"""The parts of trec_eval's preference measures behind ``polars_rank.preferences``."""
