"""Issue 47: the file operations root uses on the node's folders never act through a link, a FIFO or a hard link
another account put there (nomos/opensearch/host_files.py), and the per-node account names. The node-level proof
(links planted by a real service account, a real secured node started, stopped and restarted as root) is
tests/test_host_links.py; these run without a node. Those that hand a file to another uid need root (CI is)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from nomos.opensearch.host_files import (
    UnsafePath,
    check_private_folder,
    make_folder,
    own_tree,
    read_bytes,
    set_mode,
    unlink_in,
    write_file,
)
from nomos.opensearch.node_config import NodeConfig, node_lock
from nomos.opensearch.node_host import OPEN_ACCOUNT, account_name

NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="handing a file to another uid needs root (CI runs as root)")


def victim(tmp_path: Path) -> tuple[Path, tuple[bytes, int, int, int]]:
    """A file outside the folder under test, and what must stay as it is: content, owner, group, mode."""
    path = tmp_path / "victim"
    path.write_bytes(b"root's own\n")
    path.chmod(0o600)
    return path, snapshot(path)


def snapshot(path: Path) -> tuple[bytes, int, int, int]:
    st = os.lstat(path)
    return path.read_bytes(), st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


def test_write_file_replaces_a_link_and_never_writes_through_it(tmp_path: Path) -> None:
    target, before = victim(tmp_path)
    folder = tmp_path / "conf"
    folder.mkdir(mode=0o750)
    (folder / "opensearch.yml").symlink_to(target)
    (folder / "dangling.yml").symlink_to(tmp_path / "made-through-the-link")
    write_file(folder / "opensearch.yml", "cluster.name: x\n", 0o640)
    write_file(folder / "dangling.yml", "x", 0o640)
    assert snapshot(target) == before and not (tmp_path / "made-through-the-link").exists()
    written = folder / "opensearch.yml"
    assert not written.is_symlink() and written.read_text() == "cluster.name: x\n"
    assert stat.S_IMODE(written.stat().st_mode) == 0o640
    assert sorted(p.name for p in folder.iterdir()) == ["dangling.yml", "opensearch.yml"]  # no temporary left


def test_write_file_refuses_a_folder_others_may_write_or_a_link_for_a_folder(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(UnsafePath, match="a folder others may write"):
        write_file(shared / "f", "x", 0o600)
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "swapped").symlink_to(tmp_path / "real")
    with pytest.raises(UnsafePath, match="a link or a file where a folder was expected"):
        check_private_folder(tmp_path / "swapped")
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    check_private_folder(sticky)  # as /tmp: others may add names, not rename or remove ours


@needs_root
def test_a_folder_of_another_uid_is_not_ours_to_write_in(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match=f"owned by uid {NOBODY}"):
        write_file(theirs / "opensearch.yml", "x", 0o640)


def test_set_mode_and_reads_refuse_links_fifos_and_foreign_owners(tmp_path: Path) -> None:
    target, before = victim(tmp_path)
    link = tmp_path / "security"
    link.symlink_to(target)
    with pytest.raises(UnsafePath, match="a link"):
        set_mode(link, 0o644)
    with pytest.raises(UnsafePath, match="a link"):
        read_bytes(link)
    fifo = tmp_path / "console.log"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePath, match="not a regular file"):
        read_bytes(fifo)  # returns at once: a FIFO planted for root does not hang it
    with pytest.raises(UnsafePath, match="neither a file nor a folder"):
        set_mode(fifo, 0o600)
    folder = tmp_path / "dir-link"
    folder.symlink_to(tmp_path)
    with pytest.raises(UnsafePath, match="a link"):
        make_folder(folder, 0o700)
    with pytest.raises(UnsafePath, match=f"not uid {os.geteuid() + 1}"):
        set_mode(target, 0o644, owner=os.geteuid() + 1)
    assert snapshot(target) == before


@needs_root
def test_own_tree_reowns_links_themselves_and_refuses_a_hard_link_to_roots_file(tmp_path: Path) -> None:
    """The data tree handed to the account: a link in it is lchowned (its target untouched), a folder link is not
    walked into, and a root-owned file with a second name in the tree (a hard link, where the kernel lets one be
    made) is refused rather than given away."""
    target, before = victim(tmp_path)
    data = tmp_path / "data"
    (data / "nodes").mkdir(parents=True)
    (data / "nodes" / "segment").write_text("x")
    (data / "to-victim").symlink_to(target)
    (data / "to-folder").symlink_to(tmp_path)
    own_tree(data, uid=NOBODY, gid=NOBODY, strip=0o027)
    assert snapshot(target) == before and os.stat(tmp_path).st_uid == 0
    assert os.lstat(data / "to-victim").st_uid == NOBODY and (data / "nodes" / "segment").stat().st_uid == NOBODY
    assert stat.S_IMODE((data / "nodes" / "segment").stat().st_mode) & 0o027 == 0
    os.link(target, data / "nodes" / "hard")
    with pytest.raises(UnsafePath, match="root-owned file with 2 hard links"):
        own_tree(data, uid=NOBODY, gid=NOBODY)
    assert snapshot(target) == before


def test_unlink_in_and_the_lock_never_follow_a_link(tmp_path: Path) -> None:
    target, before = victim(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    (run / "opensearch.pid").symlink_to(target)
    unlink_in(run, "opensearch.pid")
    assert not (run / "opensearch.pid").is_symlink() and snapshot(target) == before
    unlink_in(tmp_path / "missing", "opensearch.pid")  # nothing there: nothing to do
    lock = tmp_path / ".lock"
    lock.symlink_to(target)
    with node_lock(lock):
        assert not lock.is_symlink() and lock.is_file()
    os.unlink(lock)
    os.mkfifo(lock)
    with node_lock(lock):
        assert lock.is_file()
    assert snapshot(target) == before


def test_each_secured_node_has_an_account_of_its_own(tmp_path: Path) -> None:
    """Open nodes keep the one ``opensearch`` account (their files hold no secret); a secured node gets
    ``opensearch-<name>``, a valid user name (lower case, at most 32) that two node names never share."""
    def name(node: str, secure: bool = True, **kw: object) -> str:
        return account_name(NodeConfig(root=tmp_path, name=node, secure=secure, **kw))

    assert name("node-1", secure=False) == name("dev", secure=False) == OPEN_ACCOUNT
    assert name("node-1") == "opensearch-node-1" and name("pytest-secure") == "opensearch-pytest-secure"
    odd = {name(n) for n in ("Node.A", "node.a", "node-a", "a-very-long-node-name-indeed-1", "a-very-long-node-name-indeed-2")}
    assert len(odd) == 5 and all(len(n) <= 32 and n == n.lower() and n.isascii() for n in odd), odd
    assert name("x", service_user="svc") == "svc"
