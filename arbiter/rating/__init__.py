"""Ratings and statistics: standings and ratings, mean ± standard error, the sequential test."""
