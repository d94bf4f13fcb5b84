"""Uncertain labels (issue 40, item 4): expected metrics, bounds and comparisons."""
