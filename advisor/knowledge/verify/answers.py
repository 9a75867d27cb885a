"""What pip's child answers, as typed models: a project's files on the indexes, or one wheel's dependencies.

The child's stdout is outside text: it is decoded and validated here, and anything else (not UTF-8,
not JSON, `[]`, a field of the wrong type) becomes one `PipAnswerError` line naming the request and
the field, never an AttributeError or UnicodeDecodeError further in.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cached_property
from typing import Annotated, TypeVar

from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.errors import AdvisorError, validation_words

_Short = Annotated[str, Field(max_length=2000)]


class PipAnswerError(AdvisorError):
    """pip's child printed something that is not the answer it was asked for."""


class PipFailed(PipAnswerError):
    """pip's child answered that it could not do what it was asked (an index or a file it could not read)."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class IndexFile(_Answer):
    """One file of a project on an index page or in a find-links folder."""

    filename: Annotated[str, Field(min_length=1, max_length=300)]
    url: _Short
    requires_python: Annotated[str, Field(max_length=200)] | None = None
    yanked: bool = False
    uploaded: dt.datetime | None = None  # PEP 700 upload-time, where the index gives it (JSON pages)
    metadata: bool = False  # the index serves the wheel's METADATA on its own (PEP 658)
    from_page: bool = True  # listed on an index page (False: a file in a find-links folder)

    @cached_property
    def release(self) -> tuple[Version, bool] | None:
        """(version, is a wheel), or None for a file that is neither a wheel nor an sdist."""
        try:
            return parse_wheel_filename(self.filename)[1], True
        except InvalidWheelFilename:
            pass
        try:
            return parse_sdist_filename(self.filename)[1], False
        except InvalidSdistFilename:
            return None

    @cached_property
    def tags(self) -> frozenset[object]:
        """The wheel's tags (empty for an sdist)."""
        try:
            return frozenset(parse_wheel_filename(self.filename)[3])
        except InvalidWheelFilename:
            return frozenset()


class Pages(_Answer):
    """How the indexes answered: a page read, a project the index does not have, an index not reached."""

    reached: Annotated[int, Field(ge=0)]
    absent: Annotated[int, Field(ge=0)]
    failed: Annotated[int, Field(ge=0)]


class FileList(_Answer):
    """Every file of one project on pip's configured indexes and find-links."""

    files: list[IndexFile]
    pages: Pages
    errors: list[_Short] = Field(default_factory=list)
    failed_at: list[_Short] = Field(default_factory=list)  # the index pages that did not answer

    def reached(self, index_url: str) -> bool:
        """Whether the index at `index_url` (a line's own --index-url) answered."""
        base = index_url.rstrip("/") + "/"
        return not any(url.startswith(base) for url in self.failed_at)

    @property
    def unreachable(self) -> bool:
        """No index answered at all (not even "no such project")."""
        return self.pages.reached == 0 and self.pages.absent == 0


class PipVersion(_Answer):
    """`pip --version` of the Python that answers."""

    version: Annotated[str, Field(max_length=64)]


class WheelMetadata(_Answer):
    """The dependency part of one wheel's METADATA."""

    requires_dist: list[_Short] = Field(default_factory=list)
    requires_python: _Short | None = None


_T = TypeVar("_T", bound=BaseModel)


def parse_answer(raw: bytes, model: type[_T], request: str) -> _T:
    """The child's stdout as `model`; raises PipAnswerError (one line) for anything else."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PipAnswerError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", field=request) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PipAnswerError(f"not JSON ({exc.msg} at line {exc.lineno})", field=request) from None
    if isinstance(data, dict) and isinstance(data.get("failure"), str):
        raise PipFailed(f"pip failed: {data['failure'][:300]}", field=request)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(the answer)"
        raise PipAnswerError(f"{where}: {validation_words(err)}", field=request) from None
