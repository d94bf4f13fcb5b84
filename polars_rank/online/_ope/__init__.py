"""Counterfactual (off-policy) estimators of a target policy's value from a logged policy's log."""
