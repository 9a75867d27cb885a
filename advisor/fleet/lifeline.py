"""A node command that `fleet run --ray` started ends, and ends its children, when the Ray worker above it dies."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

#: Set by the Ray task to its own PID: the node command's parent, whose death must end the node command.
PARENT_ENV = "FWADVISOR_FLEET_PARENT"
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent() -> None:
    """Ask the kernel for SIGTERM when the parent named in `PARENT_ENV` dies; SIGTERM now if it already has.

    The node command runs in a session of its own (so a timeout can end its group), which also shields it
    from the process-group kill of a Ray worker that is OOM-killed or cancelled: without this it and its
    probe and bench children would run on. SIGTERM, not SIGKILL, so that the tool's handler ends every
    child (advisor.evidence.children) before it exits. Set in the node command itself rather than in a
    `preexec_fn`, which is unsafe in Ray's threaded worker; the parent check closes the gap between the
    start and the request. Off Linux only that check is made.
    """
    wanted = os.environ.pop(PARENT_ENV, "")
    if not wanted.isdigit():
        return
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != int(wanted):
        os.kill(os.getpid(), signal.SIGTERM)
