"""`kb verify`: check the knowledge's package claims against the package index through pip."""

from advisor.knowledge.verify.check import Drift, FrameworkVerdict, VerifyResult, verify_knowledge
from advisor.knowledge.verify.pip import Pip

__all__ = ["Drift", "FrameworkVerdict", "Pip", "VerifyResult", "verify_knowledge"]
