"""`kb verify`: check the knowledge's package claims and facts against the package indexes through pip."""

from advisor.knowledge.verify.check import verify_knowledge
from advisor.knowledge.verify.pip import Pip
from advisor.knowledge.verify.results import Drift, FrameworkVerdict, VerifyEvent, VerifyResult

__all__ = ["Drift", "FrameworkVerdict", "Pip", "VerifyEvent", "VerifyResult", "verify_knowledge"]
