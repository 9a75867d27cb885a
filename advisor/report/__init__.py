"""The report: an assessment as versioned JSON (schema in advisor/schemas/) and as Markdown.

The JSON Schema is generated from the pydantic models (`models`); `advisor/schemas/report.schema.json`
and `docs/report.schema.json` are committed copies and a test fails when they drift (`python -m
advisor.report` regenerates them). The report holds no secrets (`build`): the probe's environment is its
own allow-list, and the host name (and any home directory path, which names the user) appears only with
`identify=True`. Saved reports are read and validated in `files`; `markdown` renders one.
"""

from advisor.report.build import anonymise, build_report, to_json_text
from advisor.report.files import SCHEMA_PATH, load_report, report_from_json, validate_report, write_schema_files
from advisor.report.markdown import to_markdown
from advisor.report.models import READABLE_VERSIONS, SCHEMA_ID, SCHEMA_VERSION, Report, report_schema, schema_text

__all__ = [
    "READABLE_VERSIONS",
    "SCHEMA_ID",
    "SCHEMA_PATH",
    "SCHEMA_VERSION",
    "Report",
    "anonymise",
    "build_report",
    "load_report",
    "report_from_json",
    "report_schema",
    "schema_text",
    "to_json_text",
    "to_markdown",
    "validate_report",
    "write_schema_files",
]
