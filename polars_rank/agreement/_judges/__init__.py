"""Agreement between judges on the same (query, document) pairs: kappas, alpha, tables."""
