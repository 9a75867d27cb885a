"""fwadvisor: choose a deep-learning framework from evidence, not opinion."""

__version__ = "0.1.0"
