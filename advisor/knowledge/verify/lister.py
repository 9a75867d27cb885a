"""Run inside pip's Python (`python -c`): list a project's files on pip's indexes, or read a wheel's METADATA.

Stdlib and pip only (the Python whose pip answers may not have fwadvisor). pip parses its own
configuration, environment and index options and builds its own session (certificates, proxies,
credentials, retries), so the indexes are exactly the ones `pip install` would ask. Nothing is
installed and no wheel is downloaded to list files: one index page per index and project.

    list NAME [pip index options...]   ->  {"files": [...], "pages": {"reached", "absent", "failed"}, "errors"}
    meta URL [METADATA-URL]            ->  {"requires_dist": [...], "requires_python": ...}
"""

import io
import json
import os
import re
import sys
import urllib.parse
import urllib.request
import zipfile
from html.parser import HTMLParser
from typing import Any

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
ACCEPT = f"{JSON_TYPE}, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"


class _Anchors(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base
        self.files: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "base" and a.get("href"):
            self.base = urllib.parse.urljoin(self.base, a["href"])
        if tag != "a" or not a.get("href"):
            return
        url = urllib.parse.urljoin(self.base, a["href"])
        meta = a.get("data-core-metadata") or a.get("data-dist-info-metadata")
        self.files.append({
            "filename": urllib.parse.unquote(url.split("#", 1)[0].rsplit("/", 1)[-1]),
            "url": url.split("#", 1)[0],
            "requires_python": a.get("data-requires-python") or None,
            "yanked": "data-yanked" in a,
            "uploaded": None,
            "metadata": bool(meta) and meta != "false",
        })


def _from_json(data: dict[str, Any], url: str) -> list[dict[str, Any]]:
    out = []
    for f in data.get("files", []):
        meta = f.get("core-metadata", f.get("dist-info-metadata", False))
        out.append({
            "filename": f.get("filename"), "url": urllib.parse.urljoin(url, f.get("url", "")),
            "requires_python": f.get("requires-python") or None, "yanked": bool(f.get("yanked")),
            "uploaded": f.get("upload-time"), "metadata": bool(meta),
        })
    return out


def _session(pip_args: list[str]) -> Any:
    from pip._internal.commands import create_command

    cmd = create_command("index")
    options, _ = cmd.parse_args(["versions", *pip_args])  # pip's config files and PIP_* variables apply here
    return options, cmd._build_session(options)  # type: ignore[attr-defined]


def _local(path: str) -> str:
    return urllib.request.url2pathname(urllib.parse.urlparse(path).path) if path.startswith("file:") else path


def _page(session: Any, url: str, out: dict[str, Any]) -> None:
    """Fetch one index page into out["files"]; count it as reached, absent (the index has no such project), failed."""
    page = url
    out["failed_at"].append(page)  # taken back below once the page answered
    if url.startswith("file:"):
        path = _local(url)
        if not os.path.isdir(os.path.dirname(path.rstrip("/"))):
            out["pages"]["failed"] += 1
            out["errors"].append("an index folder does not exist")
            return
        out["failed_at"].pop()
        if not os.path.exists(path):
            out["pages"]["absent"] += 1
            return
        if os.path.isdir(path):
            url = url.rstrip("/") + "/index.html"
    try:
        resp = session.get(url, headers={"Accept": ACCEPT, "Cache-Control": "max-age=0"})
    except Exception as exc:  # noqa: BLE001 - pip's session raises requests', urllib3's and OS errors
        out["pages"]["failed"] += 1
        out["errors"].append(type(exc).__name__)  # its text names the host: the parent prints this
        return
    if (resp.status_code < 400 or resp.status_code == 404) and page in out["failed_at"]:
        out["failed_at"].remove(page)
    if resp.status_code == 404:
        out["pages"]["absent"] += 1
        return
    if resp.status_code >= 400:
        out["pages"]["failed"] += 1
        out["errors"].append(f"HTTP {resp.status_code}")
        return
    out["pages"]["reached"] += 1
    kind = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if kind == JSON_TYPE:
        out["files"] += _from_json(resp.json(), resp.url)
    else:
        parser = _Anchors(resp.url)
        parser.feed(resp.content.decode(resp.encoding or "utf-8", "replace"))
        out["files"] += parser.files


def _find_links(location: str, name: str, session: Any, out: dict[str, Any]) -> None:
    path = _local(location)
    if not re.match(r"^[a-z][a-z0-9+.-]*://", location) or location.startswith("file:"):
        if os.path.isdir(path):
            out["pages"]["reached"] += 1
            prefix = re.sub(r"[-_.]+", "_", name).lower() + "-"
            for entry in sorted(os.listdir(path)):
                if re.sub(r"[-_.]+", "_", entry.split("-", 1)[0]).lower() + "-" == prefix:
                    out["files"].append({"filename": entry, "url": "file://" + urllib.request.pathname2url(
                        os.path.join(path, entry)), "requires_python": None, "yanked": False, "uploaded": None,
                        "metadata": False, "from_page": False})
            return
        if not os.path.exists(path):
            out["pages"]["failed"] += 1
            out["errors"].append("a find-links location does not exist")
            return
    _page(session, location, out)


def list_files(name: str, pip_args: list[str]) -> dict[str, Any]:
    """Every file of a project on pip's indexes and find-links, with how each index answered."""
    options, session = _session(pip_args)
    out: dict[str, Any] = {"files": [], "pages": {"reached": 0, "absent": 0, "failed": 0}, "errors": [],
                           "failed_at": []}
    norm = re.sub(r"[-_.]+", "-", name).lower()
    indexes = [] if options.no_index else [options.index_url, *options.extra_index_urls]
    for index in indexes:
        _page(session, index.rstrip("/") + "/" + urllib.parse.quote(norm) + "/", out)
    for location in options.find_links:
        _find_links(location, name, session, out)
    out["files"] = [f for f in out["files"] if f["filename"]]
    return out


def metadata(url: str, meta_url: str | None, pip_args: list[str]) -> dict[str, Any]:
    """Requires-Dist and Requires-Python of one wheel (its METADATA file, else range requests, else the wheel)."""
    _, session = _session(pip_args)
    data: Any
    if url.startswith("file:"):
        data = open(_local(url), "rb")  # noqa: SIM115 - closed with the zip
    elif meta_url:
        resp = session.get(meta_url)
        resp.raise_for_status()
        return _fields(resp.content.decode("utf-8", "replace"))
    else:
        try:
            from pip._internal.network.lazy_wheel import LazyZipOverHTTP

            data = LazyZipOverHTTP(url, session)  # range requests: the zip's directory and METADATA only
        except Exception:  # noqa: BLE001 - no range support: the whole wheel
            resp = session.get(url)
            resp.raise_for_status()
            data = io.BytesIO(resp.content)
    with zipfile.ZipFile(data) as zf:
        name = next(n for n in zf.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n))
        return _fields(zf.read(name).decode("utf-8", "replace"))


def _fields(text: str) -> dict[str, Any]:
    import email.parser

    msg = email.parser.HeaderParser().parsestr(text)
    return {"requires_dist": msg.get_all("Requires-Dist") or [], "requires_python": msg.get("Requires-Python")}


def main(argv: list[str]) -> None:
    """Answer one request as JSON on stdout (a failure too: `{"failure": ...}`)."""
    try:
        if argv[0] == "list":
            answer = list_files(argv[1], argv[2:])
        else:
            answer = metadata(argv[1], argv[2] or None, argv[3:])
    except Exception as exc:  # noqa: BLE001 - one answer for every failure, read by the parent
        answer = {"failure": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main(sys.argv[1:])
