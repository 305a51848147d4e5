"""Files written whole or not at all: into a temporary file beside the
target, renamed over it only when complete."""

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_open(path, binary=False):
    """`with atomic_open(path) as f:` — the file appears at `path` only if the
    block ends without an exception; otherwise nothing is left behind."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"newline": ""})) as f:
            yield f
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)     # mkstemp's 0600 is for the temporary name only
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def exclusive(path):
    """`with exclusive(folder):` — one process at a time builds `folder`
    (a lock file beside it); others wait, then find it made."""
    import fcntl
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(os.path.abspath(path).rstrip("/") + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
