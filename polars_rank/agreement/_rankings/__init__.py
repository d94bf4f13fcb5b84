"""Similarity of two rankings of one query: RBO, tau_b, tau_AP, Spearman's rho, overlap."""
