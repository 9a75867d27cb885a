"""Scoring: hard constraints, measured evidence, MCDA (weighted sum + TOPSIS), explanations and sensitivity."""

from advisor.scoring.engine import Assessment, Recommendation, Warning_, assess

__all__ = ["Assessment", "Recommendation", "Warning_", "assess"]
