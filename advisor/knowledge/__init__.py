"""The YAML knowledge base: schema, loader and overlay packs."""

from advisor.knowledge.base import KnowledgeBase, PackInfo
from advisor.knowledge.loader import load_knowledge, validate_dirs

__all__ = ["KnowledgeBase", "PackInfo", "load_knowledge", "validate_dirs"]
