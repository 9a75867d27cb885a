"""The sourced-fact building blocks every knowledge model shares: ids, text, sources with quotes, basis."""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AnyHttpUrl, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, model_validator

Id = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=48)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=4000)]
#: A package is cited as a Package URL (`pkg:pypi/torch`, optionally `@version`), so that `kb verify` can
#: check it against whatever index pip is configured for, and no registry host is written into the base.
Purl = Annotated[
    str, StringConstraints(pattern=r"^pkg:pypi/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:@[A-Za-z0-9._+!-]+)?$")
]
Url = AnyHttpUrl | Purl
#: The longest quote a source may carry: an excerpt that supports the fact, not a copy of the page.
MAX_QUOTE_CHARS = 300
Quote = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUOTE_CHARS)]
#: pip's `NAME (VERSION)` line, alone or followed by its `Available versions: ...` list: it names its release.
PIP_NEWEST = re.compile(r"(\S+) \(([^()\s]+)\)(?:\s+Available versions:.*)?", re.DOTALL)


class Model(BaseModel):
    """Base: unknown keys are errors, values are immutable once loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Basis(StrEnum):
    """Whether a fact rests on what its sources say, or on the base's own reasoning from them."""

    SOURCED = "sourced"  # each source carries a quote that states the fact
    JUDGEMENT = "judgement"  # inferred: the reasoning is in the fact's rationale or notes; no quote required


class Source(Model):
    """Where a fact comes from: the URL, the verbatim excerpt that supports the fact, and the source's date."""

    url: Url
    quote: Quote | None = None  # None: not quoted yet (`kb validate` lists it)
    date: dt.date | None = None  # the source's own date (release date, page date), where it has one

    @model_validator(mode="after")
    def _names_its_release(self) -> Source:
        # A quote from a package's metadata is true of one release; without it a reader cannot check the quote
        # or its date, and `kb verify --source-dates` cannot either.
        url = str(self.url)
        if url.startswith("pkg:pypi/") and "@" not in url and self.quote and not PIP_NEWEST.fullmatch(self.quote):
            raise ValueError(f"a quote from a package names the release it was read from: {url}@VERSION")
        return self

    def __str__(self) -> str:
        """The URL, so that a source prints and links as it did when sources were bare URLs."""
        return str(self.url)


def _bare_source(value: Any) -> Any:
    # A bare string is a source without a quote yet: the base written before quotes loads unchanged.
    return {"url": value} if isinstance(value, str) else value


Sources = Annotated[
    list[Annotated[Source, BeforeValidator(_bare_source, json_schema_input_type=Url | Source)]],
    Field(min_length=1),
]
