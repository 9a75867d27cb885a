"""The one file writer: the user's file is either the old one or the complete new one, never half of each.

Only a regular file (or a path that does not exist yet) is replaced, through a temporary file in the same
folder and an atomic rename. A character device (`/dev/null`, `/dev/stdout`, a terminal) or a FIFO is
written in place: renaming over it would replace the device with a regular file (as root, `-o /dev/null`
once did exactly that). Anything else (a folder, a socket, a block device) is refused, as is an empty
path; every refusal and every OS error is an `OutputError`, one line and exit code 2 in the CLI.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from advisor.errors import OutputError

#: A FIFO with no reader would block the writer forever, so it is opened non-blocking.
_FIFO_FLAGS = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)


def _umask() -> int:
    # Read without changing it where the OS allows: os.umask() sets it process-wide, racing other threads.
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _write_in_place(target: Path, data: bytes, *, fifo: bool) -> None:
    """Write to a character device or FIFO as it is (no temp file, no rename)."""
    try:
        fd = os.open(target, _FIFO_FLAGS if fifo else os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError("a FIFO with no reader: start the reader first", file=target) from None
        raise OutputError(f"cannot write: {_why(exc)}", file=target) from None
    try:
        if fifo:
            os.set_blocking(fd, True)  # a reader is there now; let the pipe apply back-pressure
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as exc:
        raise OutputError(f"cannot write: {_why(exc)}", file=target) from None
    finally:
        os.close(fd)


def _write_replacing(target: Path, data: bytes, mode: int | None) -> None:
    """Write a temp file beside `target` and rename it over; the temp file never outlives a failure."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write: {_why(exc)}", file=target) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; a new file gets the usual 0666 less the umask (reports are shared).
        os.chmod(tmp, mode & 0o777 if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write: {_why(exc)}", file=target) from None
    except BaseException:
        # KeyboardInterrupt, SystemExit (SIGTERM), an encoding error: the old file stays and no temp is left.
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | Path, data: bytes, *, owned: bool = False) -> Path:
    """Write `data` to `path`: atomically onto a regular file or a new path, in place onto a device or FIFO.

    `owned=True` is for the folders fwadvisor owns (the probe cache, `unsaved/`): whatever is at `path` (a
    symbolic link, a FIFO, a device) is replaced by the new file, never followed or written through, so a link
    planted in a shared cache folder cannot make fwadvisor overwrite the file it points to.
    """
    if str(path) == "":
        raise OutputError("the output path is empty")
    target = Path(path)
    if owned:
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise OutputError(f"cannot write: {_why(exc)}", file=target) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(f"is {_kind(st.st_mode)}; give a file path", file=target)
        _write_replacing(target, data, None)  # os.replace swaps the link or FIFO itself, not what it names
        return target
    try:
        st = os.stat(target)  # follows symlinks: a link to a report replaces the report, not the link
    except FileNotFoundError:
        st = None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputError("a symbolic link loop", file=target) from None
        if exc.errno not in (errno.ENOTDIR,):
            raise OutputError(f"cannot write: {_why(exc)}", file=target) from None
        raise OutputError("a parent of this path is not a folder", file=target) from None
    if st is None:
        _write_replacing(target, data, None)
    elif stat.S_ISREG(st.st_mode):
        _write_replacing(Path(os.path.realpath(target)), data, st.st_mode)
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        _write_in_place(target, data, fifo=stat.S_ISFIFO(st.st_mode))
    else:
        raise OutputError(f"is {_kind(st.st_mode)}; give a file path", file=target)
    return target


def atomic_write_text(path: str | Path, text: str, encoding: str = "utf-8", *, owned: bool = False) -> Path:
    """Write `text` to `path` (see `atomic_write_bytes`); encoding errors leave the old file untouched."""
    return atomic_write_bytes(path, text.encode(encoding), owned=owned)


def check_writable(path: str | Path, field: str | None = None) -> None:
    """Refuse, before any work, a path `atomic_write_bytes` would refuse (or could not write): one `OutputError`."""
    if str(path) == "":
        raise OutputError("the output path is empty", field=field)
    target = Path(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"cannot write: {_why(exc)}", file=target, field=field) from None
    if st is not None:
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise OutputError(f"is {_kind(st.st_mode)}; give a file path", file=target, field=field)
        if not os.access(target, os.W_OK):
            raise OutputError("cannot write: permission denied", file=target, field=field)
        if not stat.S_ISREG(st.st_mode):
            return  # a device or FIFO is written in place: its folder (/dev) need not be writable
        target = Path(os.path.realpath(target))
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the writer creates missing folders under the nearest existing one
    if not folder.is_dir():
        raise OutputError("a parent of this path is not a folder", file=target, field=field)
    # os.access says yes to root everywhere (even in /proc): creating the writer's temp file is the real test.
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".check", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write in {folder}: {_why(exc)}", file=target, field=field) from None
    os.close(fd)
    os.unlink(probe)
