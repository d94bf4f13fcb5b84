"""Agreement between leaderboards: orderings of systems under two conditions, bootstraps."""
