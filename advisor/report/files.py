"""Reading saved reports: validation against the shipped schema, one-line errors; regenerating the schema files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from advisor.errors import ReportError, validation_words
from advisor.jsonio import read_json
from advisor.report.models import READABLE_VERSIONS, SCHEMA_VERSION, Report, schema_text

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "report.schema.json"


def validate_report(data: Any, source: str = "<report>") -> None:
    """Check `data` against the shipped schema; `ReportError` names the first failing field."""
    import jsonschema  # deferred: only reading/validating reports needs it

    if not isinstance(data, dict):
        raise ReportError("a report must be a JSON object", file=source)
    version = data.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise ReportError(
            f"unsupported report schema_version {version!r} (expected one of {', '.join(READABLE_VERSIONS)}; "
            f"this fwadvisor writes {SCHEMA_VERSION})",
            file=source,
            field="schema_version",
        )
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in error.absolute_path).replace(".[", "[")
        raise ReportError(f"does not match the report schema: {error.message[:200]}", file=source, field=path or None)


def report_from_json(data: Any, source: str = "<report>") -> Report:
    """Parsed report JSON, checked against the shipped schema, as the typed `Report`; errors name file and field."""
    validate_report(data, source)
    try:
        return Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        words = validation_words(first)
        raise ReportError(f"not a report this fwadvisor reads: {words}", file=source, field=field) from None


def load_report(path: str | Path) -> Report:
    """Read and validate a saved report (`--from-json`, `compare`): a regular file, size- and depth-limited."""
    return report_from_json(read_json(path, ReportError), str(path))


def write_schema_files(root: Path | None = None) -> list[Path]:
    """Regenerate the committed schema files (the package copy and the one published in docs/)."""
    root = root or Path(__file__).resolve().parent.parent.parent
    text = schema_text()
    targets = [SCHEMA_PATH, root / "docs" / "report.schema.json"]
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return targets
