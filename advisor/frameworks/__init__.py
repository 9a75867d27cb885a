"""Framework adapters: what the advisor knows about running each framework in a child process."""

from advisor.frameworks.base import FrameworkAdapter
from advisor.frameworks.registry import adapters, get_adapter

__all__ = ["FrameworkAdapter", "adapters", "get_adapter"]
