"""File operations that never act through a path another account controls (issue 47).

Root installs, starts and stops the node, which runs as a service account; that account owns the node's data and
log folders. Anything root opens, writes, chmods or chowns by path could be a link the service account planted
(``logs/console.log`` -> ``/etc/shadow``, and root's next start made that file the account's). So here:

* a file is written to a new temporary file beside it (``O_EXCL | O_NOFOLLOW``) and renamed over the old name, and
  only in a folder no other account may write (checked: a real folder, owned by us or root, no write bit for group
  or others unless sticky); a rename replaces a link, it never follows it;
* a file or folder is opened with ``O_NOFOLLOW`` (and ``O_NONBLOCK``: a FIFO planted for root does not hang it)
  and changed through that descriptor (``fchmod``, ``fchown``) after ``fstat`` says what it is;
* a tree another account owns is walked with ``os.fwalk`` (directory descriptors, links never followed), and a
  root-owned file with several hard links in it is refused rather than changed (where ``fs.protected_hardlinks`` is
  off, a hard link is how another account would aim root at a file of its own).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from nomos.errors import NomosError

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class UnsafePath(NomosError):
    """A path root was to act on is a link, not the kind of file expected, or in a folder another account may
    write; the message names it and what to do."""


def _refuse(path: Path | str, what: str) -> UnsafePath:
    return UnsafePath(f"{path}: {what}; refusing to act on it as {'root' if os.geteuid() == 0 else 'this user'}",
                      hint="someone replaced it (the node's service account?): inspect it, remove it, and run again")


def open_nofollow(path: Path, *, directory: bool = False) -> int:
    """A read-only descriptor of ``path`` itself (a link is refused, a FIFO never blocks); ``directory``: it must
    be a folder. The caller closes it."""
    flags = _OPEN_FLAGS | (os.O_DIRECTORY if directory else 0)
    try:
        return os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # with O_DIRECTORY a link is ENOTDIR too
            link = exc.errno == errno.ELOOP or os.path.islink(path)
            raise _refuse(path, "a link" if link else "not a folder") from None
        raise


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (not through a link, not a FIFO or device), at most ``limit``."""
    fd = open_nofollow(path)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refuse(path, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read() if limit is None else handle.read(limit)
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """:func:`read_bytes` as UTF-8."""
    return read_bytes(path).decode("utf-8")


def check_private_folder(folder: Path) -> os.stat_result:
    """``folder`` must be a real folder (not a link) owned by us or root that neither its group nor others may
    write (unless sticky, as /tmp): only then is a name in it ours to replace."""
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse(folder, "a link or a file where a folder was expected")
    if st.st_uid not in (os.geteuid(), 0):
        raise _refuse(folder, f"a folder owned by uid {st.st_uid}, not by this user or root")
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        raise _refuse(folder, f"a folder others may write (mode {stat.S_IMODE(st.st_mode):o})")
    return st


def write_file(path: Path, data: bytes | str, mode: int, *, uid: int = -1, gid: int = -1) -> None:
    """Write ``data`` to ``path`` with ``mode`` (and owner ``uid``:``gid`` where given) as a new file renamed over
    the old name: whatever was at ``path`` (a link included) is replaced, never written through."""
    folder = path.parent
    check_private_folder(folder)
    if isinstance(data, str):
        data = data.encode("utf-8")
    temp = folder / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb", closefd=False) as handle:
            handle.write(data)
            handle.flush()
            if uid != -1 or gid != -1:
                os.fchown(fd, uid, gid)
            os.fchmod(fd, mode)
            os.fsync(fd)
        os.rename(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def make_folder(path: Path, mode: int, *, uid: int = -1, gid: int = -1, owner: int | None = None) -> None:
    """``path`` a folder with ``mode`` and owner ``uid``:``gid`` (made when missing; a link or a file there is
    refused). ``owner``: it must already belong to that uid (else refused) before anything is changed."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    set_mode(path, mode, uid=uid, gid=gid, owner=owner, directory=True)


def set_mode(path: Path, mode: int | None, *, uid: int = -1, gid: int = -1, owner: int | None = None,
             directory: bool = False) -> None:
    """chmod/chown ``path`` itself through a descriptor opened without following links; ``owner``: refused
    unless it belongs to that uid (a file of root's that another account swapped for its own is not handed on)."""
    fd = open_nofollow(path, directory=directory)
    try:
        st = os.fstat(fd)
        if owner is not None and st.st_uid != owner:
            raise _refuse(path, f"owned by uid {st.st_uid}, not uid {owner}")
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            raise _refuse(path, "neither a file nor a folder")
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and st.st_uid == 0:
            raise _refuse(path, f"a root-owned file with {st.st_nlink} hard links")
        if uid != -1 or gid != -1:
            os.fchown(fd, uid, gid)
        if mode is not None:
            os.fchmod(fd, mode)
    finally:
        os.close(fd)


def own_tree(top: Path, *, uid: int = -1, gid: int = -1, strip: int = 0) -> None:
    """Give every folder and file under ``top`` (``top`` included) to ``uid``:``gid`` and take the ``strip`` bits
    off their modes, walking by descriptors (``os.fwalk``): a link is re-owned itself (``lchown``), never followed;
    a FIFO, socket or device is left as it is; a root-owned file with several hard links is refused."""
    set_mode(top, None, directory=True)  # top itself: a folder, not a link (fwalk would follow a link at the top)
    for _, _, files, dir_fd in os.fwalk(top, follow_symlinks=False):
        _own_fd(dir_fd, uid, gid, strip)
        for name in files:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                if uid != -1 or gid != -1:
                    os.chown(name, uid, gid, dir_fd=dir_fd, follow_symlinks=False)
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            fd = os.open(name, _OPEN_FLAGS, dir_fd=dir_fd)
            try:
                seen = os.fstat(fd)
                if seen.st_nlink > 1 and seen.st_uid == 0:
                    raise _refuse(Path(top) / name, f"a root-owned file with {seen.st_nlink} hard links")
                _own_fd(fd, uid, gid, strip)
            finally:
                os.close(fd)


def _own_fd(fd: int, uid: int, gid: int, strip: int) -> None:
    st = os.fstat(fd)
    if (uid != -1 and st.st_uid != uid) or (gid != -1 and st.st_gid != gid):
        os.fchown(fd, uid, gid)
    if strip and st.st_mode & strip:
        os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~strip)


def unlink_in(folder: Path, name: str) -> None:
    """Remove ``folder/name`` (missing is fine) through a descriptor of ``folder`` opened without following links,
    so a link put where ``folder`` was cannot aim the removal elsewhere."""
    try:
        fd = open_nofollow(folder, directory=True)
    except FileNotFoundError:
        return
    try:
        os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        pass
    finally:
        os.close(fd)
