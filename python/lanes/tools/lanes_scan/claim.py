"""A scan claims its directory as `lanes run` claims the files it writes (core/include/lanes/core/PathClaim.h, whose
format this follows): an exclusive lock (flock) on DIR/manifest.json.lanes-claim, held while the scan runs and gone
with it; the file names the holder, so that a second scan into the directory is refused, naming the first."""

import atexit
import errno
import fcntl
import os
import socket
import time

from .grid import ScanError

HEADER = "lanes-claim 1"
HOLDER_LOOKS = 1000  # the holder writes its line just after it takes the lock: look again meanwhile
HOLDER_PAUSE = 0.002


def _live_writer(fd, host):
    """The holder's line (pid, host, started) of a held claim file, or None while it names none that runs."""
    lines = os.pread(fd, 1 << 16, 0).decode(errors="replace").splitlines()
    if not lines or lines[0] != HEADER:
        return None
    for line in reversed(lines[1:]):
        fields = line.split()
        if len(fields) != 5 or fields[0] != "writing":
            continue
        pid, writer_host, started = int(fields[1]), fields[2], int(fields[3])
        if writer_host != host:
            return pid, writer_host, started
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return pid, writer_host, started
    return None


def _still_at(fd, path):
    try:
        named, opened = os.lstat(path), os.fstat(fd)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def claim(path, what):
    """Claims `path` for this process until it exits; raises ScanError naming the live job that holds it."""
    file = f"{path}.lanes-claim"
    host = socket.gethostname()
    for look in range(HOLDER_LOOKS + 1):
        fd = os.open(file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _live_writer(fd, host)
            os.close(fd)
            if holder or look == HOLDER_LOOKS:
                who = (f"pid {holder[0]} on host {holder[1]}, started "
                       f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(holder[2]))}" if holder
                       else f"its claim file {file} names none that runs here")
                raise ScanError(f"{what} is being written by another lanes job ({who}): wait for it to end, "
                                "or give another -o")
            time.sleep(HOLDER_PAUSE)
            continue
        if _still_at(fd, file):
            break
        os.close(fd)  # its holder removed it between our open and our lock: open the path again
    text = f"{HEADER}\nwriting {os.getpid()} {host} {int(time.time())} 0\n".encode()
    os.ftruncate(fd, 0)
    if os.pwrite(fd, text, 0) != len(text):
        raise OSError(errno.EIO, "a short write", file)
    atexit.register(_release, fd, file, os.getpid())


def _release(fd, file, owner):
    """Removes the claim file (still locked: a job that opened it meanwhile opens the path again)."""
    if os.getpid() == owner and _still_at(fd, file):
        os.unlink(file)
    os.close(fd)
