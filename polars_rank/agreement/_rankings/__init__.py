"""Similarity of two rankings of one query: RBO, Kendall's tau_b, tau_AP, Spearman's rho, overlap."""
