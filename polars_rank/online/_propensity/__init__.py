"""Examination propensities from click logs: swaps, intervention harvesting, regression EM."""
