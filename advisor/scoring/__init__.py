"""Scoring: hard constraints, measured evidence, MCDA (weighted sum + TOPSIS), explanations and sensitivity."""

from advisor.scoring.engine import Assessment, AssessmentWarning, Recommendation, assess

__all__ = ["Assessment", "Recommendation", "AssessmentWarning", "assess"]
