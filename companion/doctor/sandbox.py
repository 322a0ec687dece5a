"""The service's sandbox as the pins see it: the /proc that the unit's ``ProtectProc=`` and ``ProcSubset=`` give
the daemon, tried in a private mount namespace with the same options.

gpiozero reads the board's revision for every ``LED()`` and ``Button()`` (gpiozero/pins/local.py,
``get_pi_revision``: ``/proc/device-tree/system/linux,revision``, then ``/proc/cpuinfo``), and RPi.GPIO, the
``mfrc522`` package's GPIO library, reads the same files. ``ProcSubset=pid`` mounts a /proc with only the processes'
folders (the kernel's tools/testing/selftests/proc/proc-subset-pid.c), so on a Pi every pin then fails inside the
service while doctor, run from a shell, sees them::

    >>> proc_options({"ProtectProc": "invisible", "ProcSubset": "pid"})
    ['hidepid=invisible', 'subset=pid']
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence

__all__ = ["BOARD_FILES", "PROC_OPTIONS", "hidden_in_sandbox", "proc_options"]

# The proc mount options systemd gives a unit for each setting (systemd.exec(5), "ProtectProc=", "ProcSubset=";
# src/core/namespace.c mounts the unit's /proc with hidepid= and subset=).
PROC_OPTIONS = {
    "ProtectProc": {
        "noaccess": "hidepid=noaccess",
        "invisible": "hidepid=invisible",
        "ptraceable": "hidepid=ptraceable",
    },
    "ProcSubset": {"pid": "subset=pid"},
}
# What the pin libraries read to know the board (gpiozero's get_pi_revision and board model; RPi.GPIO's the same).
BOARD_FILES = ("/proc/cpuinfo", "/proc/device-tree/system/linux,revision", "/proc/device-tree/model")


def proc_options(settings: Mapping[str, str]) -> list[str]:
    """The proc mount options of a unit's settings (each key's value as systemd keeps it: the last one)."""
    return [
        PROC_OPTIONS[key][value.strip()]
        for key, value in settings.items()
        if key in PROC_OPTIONS and value.strip() in PROC_OPTIONS[key]
    ]


def hidden_in_sandbox(settings: Mapping[str, str], files: Sequence[str] = BOARD_FILES) -> list[str] | None:
    """Which of ``files`` (those this machine's /proc has) a /proc mounted with the unit's options hides; None when
    it cannot be tried here (it needs root and unshare, from util-linux)."""
    present = [path for path in files if os.path.exists(path)]
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        return None
    options = ",".join(proc_options(settings)) or "defaults"
    script = f'mount -t proc -o {options} proc /proc || exit 3; for p; do test -e "$p" || echo "$p"; done'
    command = [unshare, "--mount", "--pid", "--fork", "--propagation", "private", "sh", "-c", script, "sh"]
    try:
        result = subprocess.run([*command, *present], capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if result.returncode != 0:  # a container that may not mount /proc: nothing was learnt
        return None
    return result.stdout.split()
