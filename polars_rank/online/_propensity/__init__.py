"""Examination propensities from click logs: randomised swaps, intervention harvesting, regression EM."""
