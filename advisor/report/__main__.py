"""`python -m advisor.report` regenerates the committed schema files after a model change."""

from advisor.report.files import write_schema_files

for written in write_schema_files():
    print(f"wrote {written}")
