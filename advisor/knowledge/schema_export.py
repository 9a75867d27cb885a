"""The knowledge base's JSON Schema, generated from the pydantic models (committed under docs/)."""

from __future__ import annotations

import json
from typing import Any

from advisor.knowledge.loader import PACK_FILES
from advisor.knowledge.schema import Framework

SCHEMA_ID = "https://github.com/fwadvisor/fwadvisor/blob/main/docs/knowledge.schema.json"


def knowledge_json_schema() -> dict[str, Any]:
    """One JSON Schema document with a definition per knowledge file kind."""
    files: dict[str, Any] = {name: model.model_json_schema(by_alias=True) for name, model in PACK_FILES.items()}
    files["frameworks/*.yaml"] = Framework.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "fwadvisor knowledge pack",
        "description": "Each key is a file of a knowledge pack; its value is that file's schema.",
        "files": files,
    }


def knowledge_json_schema_text() -> str:
    """Stable text form (what is committed)."""
    return json.dumps(knowledge_json_schema(), indent=2, sort_keys=True) + "\n"
