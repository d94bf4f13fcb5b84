"""Interleaving and multileaving: lists from several rankers' runs, credit from clicks."""
