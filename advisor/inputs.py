"""The one reader of input files (profiles, reports, pack files): kind and size checked before anything is read.

A FIFO or a device given as a profile or report would block the reader forever or stream without end, so
only regular files are opened, and only after `stat` has said how big they are. The file is opened
non-blocking and checked again on its descriptor, so a path swapped for a FIFO in between cannot hang it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from advisor.errors import AdvisorError


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _refusal(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop"
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "cannot read: permission denied"
    return f"cannot read: {exc.strerror or exc}"


def check_input_file(
    path: str | Path, error: type[AdvisorError], *, limit: int, follow_links: bool = True
) -> os.stat_result:
    """`stat` of a regular file no larger than `limit` bytes; anything else raises `error` naming the file.

    `follow_links=False` is for the folders fwadvisor owns (the probe cache): a symbolic link planted there
    is refused instead of read.
    """
    if str(path) == "":
        raise error("the file name is empty")
    try:
        st = os.stat(path) if follow_links else os.lstat(path)
    except OSError as exc:
        raise error(_refusal(exc), file=path) from None
    if stat.S_ISLNK(st.st_mode):
        raise error("is a symbolic link, not a regular file", file=path)
    if not stat.S_ISREG(st.st_mode):
        raise error(f"is {_kind(st.st_mode)}, not a regular file", file=path)
    if st.st_size > limit:
        raise error(f"file is too large ({st.st_size} bytes; the limit is {limit})", file=path)
    return st


def read_input_bytes(path: str | Path, error: type[AdvisorError], *, limit: int, follow_links: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; refusals and OS errors raise `error`."""
    check_input_file(path, error, limit=limit, follow_links=follow_links)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)  # a link swapped in after the lstat is refused too (ELOOP)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(_refusal(exc), file=path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"is {_kind(st.st_mode)}, not a regular file", file=path)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # a file growing while it is read is still cut off at the limit
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise error(_refusal(exc), file=path) from None
    finally:
        os.close(fd)
    if size > limit:
        raise error(f"file is too large (over {limit} bytes)", file=path)
    return b"".join(chunks)


def read_input_text(path: str | Path, error: type[AdvisorError], *, limit: int, follow_links: bool = True) -> str:
    """`read_input_bytes` decoded as UTF-8 (a BOM is accepted); undecodable text raises `error`."""
    data = read_input_bytes(path, error, limit=limit, follow_links=follow_links)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})", file=path) from None
