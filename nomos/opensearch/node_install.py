"""Installing the shared OpenSearch home from Maven Central pieces (see ``assembly.py`` and
``docs/opensearch-local.md``), and telling whether an install is complete: a marker written last, the modules and
plugins in place at the expected versions. Also the checks every start needs first (a JDK 17, a root the service
user can reach).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import time
from datetime import datetime, timezone
from pathlib import Path

from nomos.opensearch.assembly import (
    BUNDLED_MODULES,
    KNN_PLUGIN,
    MODULES,
    NEURAL_PLUGIN,
    SECURITY_PLUGIN,
    AssemblyError,
    assemble_home,
    assemble_secure_home,
)
from nomos.opensearch.host_files import write_file
from nomos.opensearch.maven import MavenError
from nomos.opensearch.node_config import Log, NodeConfig, NodeError, node_lock
from nomos.opensearch.node_host import account_name, check_root_folder, harden_home

MARKER_NAME = ".nomos-installed.json"
REQUIRED_MODULES: tuple[str, ...] = (*BUNDLED_MODULES, *(m.name for m in MODULES))
REQUIRED_PLUGINS: tuple[str, ...] = (KNN_PLUGIN, NEURAL_PLUGIN)


def required_plugins(cfg: NodeConfig) -> tuple[str, ...]:
    """The plugins ``cfg``'s home must hold: the secured home has the security plugin too."""
    return (*REQUIRED_PLUGINS, SECURITY_PLUGIN) if cfg.secure else REQUIRED_PLUGINS


def install(cfg: NodeConfig, log: Log = print) -> Path:
    """Assemble the home from Maven Central unless a complete one is there; return the home.

    Idempotent: a home is complete only when its marker (written last) matches and the modules and plugins are in
    place, so an install that died half-way is thrown away and redone. Assembly happens in a staging folder that is
    renamed into place, so a reader never sees a half-built home.
    """
    check_java(cfg)
    _ensure_root(cfg)
    plain = dataclasses.replace(cfg, secure=False)
    if cfg.secure:
        install(plain, log)  # the secured home is the plain one plus a plugin: build (or reuse) that first
    with node_lock(cfg.root / ".install.lock"):
        problems = install_problems(cfg)
        if not problems:
            harden_home(cfg.home)  # a home an earlier version left with files others may write
            log(f"OpenSearch {cfg.version} is already installed at {cfg.home}: nothing to do")
            return cfg.home
        if cfg.home.exists():
            log(f"redoing the incomplete install at {cfg.home} ({problems[0]})")
            shutil.rmtree(cfg.home)
        started = time.monotonic()
        staging = cfg.root / f".{cfg.home.name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(staging.parent / f"{staging.name}.unzip", ignore_errors=True)
        try:
            if cfg.secure:
                assemble_secure_home(staging, plain.home, cfg.plugin_version, cfg.java_home, log)
            else:
                assemble_home(staging, cfg.version, cfg.plugin_version, cfg.java_home, log)
        except (MavenError, AssemblyError, OSError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise NodeError(f"installing OpenSearch {cfg.version} failed: {exc}") from exc
        staging.rename(cfg.home)
        problems = install_problems(cfg, check_marker=False)
        if problems:
            raise NodeError(f"assembled home at {cfg.home} is incomplete: {'; '.join(problems)}")
        elapsed = time.monotonic() - started
        harden_home(cfg.home)
        _write_marker(cfg, elapsed)
        log(f"installed OpenSearch {cfg.version} at {cfg.home} in {elapsed:.0f}s")
        return cfg.home


def is_installed(cfg: NodeConfig) -> bool:
    """Whether the home is complete (see :func:`install_problems`)."""
    return not install_problems(cfg)


def install_problems(cfg: NodeConfig, check_marker: bool = True) -> list[str]:
    """What is missing or wrong in the home (empty when complete)."""
    home = cfg.home
    problems: list[str] = []
    if check_marker:
        marker = _read_marker(cfg)
        expected = {"version": cfg.version, "plugin_version": cfg.plugin_version}
        if marker is None:
            problems.append(f"no install marker {MARKER_NAME}")
        elif {k: marker.get(k) for k in expected} != expected:
            problems.append(f"marker is for {marker.get('version')}/{marker.get('plugin_version')}")
    for path in (home / "bin" / "opensearch", home / "lib" / f"opensearch-{cfg.version}.jar"):
        if not path.is_file():
            problems.append(f"{path} missing")
    for name in REQUIRED_MODULES:
        problems += _descriptor_problems(home / "modules" / name, cfg.version)
    for name in required_plugins(cfg):
        problems += _descriptor_problems(home / "plugins" / name, cfg.plugin_version)
    return problems


def _descriptor_problems(folder: Path, version: str) -> list[str]:
    """A module or plugin folder must hold a descriptor of the expected version and at least one jar."""
    descriptor = folder / "plugin-descriptor.properties"
    if not descriptor.is_file():
        return [f"{descriptor} missing"]
    found = read_properties(descriptor).get("version")
    if found != version:
        return [f"{folder.name} is version {found}, expected {version}"]
    if not any(folder.glob("*.jar")):
        return [f"{folder} holds no jar"]
    return []


def read_properties(path: Path) -> dict[str, str]:
    """A Java .properties file's ``key=value`` lines (enough for plugin descriptors)."""
    props: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")) and "=" in line:
            key, value = line.split("=", 1)
            props[key.strip()] = value.strip()
    return props


def _read_marker(cfg: NodeConfig) -> dict[str, object] | None:
    try:
        data = json.loads((cfg.home / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_marker(cfg: NodeConfig, seconds: float) -> None:
    marker = {
        "version": cfg.version,
        "plugin_version": cfg.plugin_version,
        "modules": list(REQUIRED_MODULES),
        "plugins": list(required_plugins(cfg)),
        "installed_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "install_seconds": round(seconds, 1),
    }
    write_file(cfg.home / MARKER_NAME, json.dumps(marker, indent=2) + "\n", 0o644)


def check_java(cfg: NodeConfig) -> None:
    """Fail early, with the package to install, when ``java_home`` holds no JDK (every install and start needs one)."""
    for tool in ("java",):
        exe = cfg.java_home / "bin" / tool
        if not os.access(exe, os.X_OK):
            raise NodeError(f"{exe} not found: java_home must be a JDK 17 (install openjdk-17-jdk-headless)")


def _ensure_root(cfg: NodeConfig) -> None:
    """Create the root (0755) and, as root, make sure it and every folder above it are root's alone
    (``node_host.check_root_folder``) and that the service account can reach it."""
    check_root_folder(cfg)
    if not cfg.root.exists():
        cfg.root.mkdir(parents=True)
        cfg.root.chmod(0o755)
    if os.geteuid() == 0:
        check_traversable(cfg.root, account_name(cfg))


def check_traversable(path: Path, user: str) -> None:
    """Every folder from / down to ``path`` must be searchable by others, or the service user cannot start."""
    for folder in [*reversed(path.parents), path]:
        if not folder.stat().st_mode & stat.S_IXOTH:
            raise NodeError(f"{folder} is not traversable by user {user}: choose a root outside it (e.g. /opt/nomos)")
