"""Shared by the scripts that need Debian's Python packages (python3-torch and friends)."""
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"


def rerun_or_exit(tool, missing, install):
    """Called where an import of `missing` failed: re-runs the script with Debian's
    /usr/bin/python3 where that is another interpreter (once: the environment marks the
    re-run), else exits saying what to install (`install`, e.g. "python3-torch")."""
    mark = tool.upper() + "_REEXEC"
    if os.path.exists(DEBIAN_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON) \
            and not os.environ.get(mark):
        print(f"{tool}: {sys.executable} has no {missing}; re-running with {DEBIAN_PYTHON}", file=sys.stderr, flush=True)
        os.environ[mark] = "1"
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)
    sys.exit(f"{tool}: {sys.executable} cannot import {missing}: install Debian's {install} "
             "(apt-get install) or run the script with an interpreter that has it")
