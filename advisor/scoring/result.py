"""The base of every scoring result the report carries: one pydantic model is both the result and its JSON."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Result(BaseModel):
    """A scoring result: strict on read (a report file read back), written under its fields' JSON names.

    The report embeds these models as they are, so the published schema and every saved report are generated
    from them and cannot drift from what scoring made. A field's JSON name differs from its attribute where the
    attribute reads better in code (`from` is a keyword; `effort` is `effort_engineer_months` in the file):
    declared with `validation_alias` and `serialization_alias`, which type checkers, unlike `alias`, keep out
    of the constructor.
    """

    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)


class FrozenResult(Result):
    """A result nobody changes once made."""

    model_config = ConfigDict(frozen=True)


#: A warning's or note's parameter: words and figures, never a sentence to read out as it is.
Param = str | int | float
