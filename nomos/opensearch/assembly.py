"""Assemble an OpenSearch home from Maven Central pieces (the integ-test zip, module jars, plugin zips).

The official distribution is not reachable here, but its parts are: the ``integ-test-zip`` server (with only the
``transport-netty4`` module), the ``lang-painless`` and ``analysis-common`` module jars (their descriptors are not
published, so they are written here), and the k-NN and neural-search plugin zips
(``org.opensearch.plugin:opensearch-knn`` and ``org.opensearch.plugin:neural-search``).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from nomos.errors import NomosError
from nomos.opensearch.maven import Artifact, copy_artifact, copy_runtime_dependencies
from nomos.opensearch.tool import run_tool

PACKAGE_DIR = Path(__file__).resolve().parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
PLUGIN_JAVA_VERSION = "11"  # what OpenSearch 2.19's own descriptors say
_JAR_BASE = re.compile(r"^(?P<base>.+?)-\d[^/]*\.jar$")

Log = Callable[[str], None]


class AssemblyError(NomosError):
    """A step of assembling the home failed; the message says which and why."""


@dataclass(frozen=True)
class ModuleSpec:
    """A module that the integ-test zip lacks: built from its published jar and a descriptor written here."""

    name: str
    description: str
    classnames: tuple[str, ...]  # candidates, in order; the first one present in the module's jar is used
    extended: tuple[str, ...] = ()
    policy_template: str | None = None


MODULES: tuple[ModuleSpec, ...] = (
    ModuleSpec(
        name="lang-painless",
        description="An easy, safe and fast scripting language for OpenSearch",
        # 2.19.1 ships PainlessPlugin; PainlessModulePlugin is the 3.x name.
        classnames=("org.opensearch.painless.PainlessPlugin", "org.opensearch.painless.PainlessModulePlugin"),
        policy_template="lang-painless.policy",
    ),
    ModuleSpec(
        name="analysis-common",
        description='Adds "built in" analyzers to OpenSearch.',
        classnames=(
            "org.opensearch.analysis.common.CommonAnalysisPlugin",
            "org.opensearch.analysis.common.CommonAnalysisModulePlugin",
        ),
        extended=("lang-painless",),
    ),
)
BUNDLED_MODULES: tuple[str, ...] = ("transport-netty4",)
KNN_PLUGIN = "opensearch-knn"
NEURAL_PLUGIN = "opensearch-neural-search"
# Published on Maven Central under this artifact id (the plugin inside is named opensearch-neural-search).
NEURAL_ARTIFACT = "neural-search"
SECURITY_PLUGIN = "opensearch-security"  # also its Maven Central artifact id


def template_env() -> Environment:
    """Jinja environment over ``templates/``; undefined variables fail loudly rather than render empty."""
    return Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def assemble_home(staging: Path, version: str, plugin_version: str, java_home: Path, log: Log) -> None:
    """Build a complete home in ``staging`` (which must not exist yet)."""
    with tempfile.TemporaryDirectory(prefix=".download-", dir=staging.parent) as tmp:
        downloads = Path(tmp)
        log(f"fetching OpenSearch {version} (integ-test zip) from Maven Central")
        server_zip = copy_artifact(
            Artifact("org.opensearch.distribution.integ-test-zip", "opensearch", version, "zip"),
            downloads,
            java_home,
        )
        unpack_server(server_zip, staging)
        for spec in MODULES:
            log(f"adding module {spec.name}")
            install_module(staging, spec, version, downloads / spec.name, java_home)
        log(f"installing plugin {KNN_PLUGIN} {plugin_version}")
        knn_zip = copy_artifact(Artifact("org.opensearch.plugin", KNN_PLUGIN, plugin_version, "zip"), downloads, java_home)
        plugin_cli(staging, java_home, "install", "--batch", knn_zip.as_uri())
        log(f"installing plugin {NEURAL_PLUGIN} {plugin_version}")
        neural_zip = copy_artifact(
            Artifact("org.opensearch.plugin", NEURAL_ARTIFACT, plugin_version, "zip"), downloads, java_home
        )
        plugin_cli(staging, java_home, "install", "--batch", neural_zip.as_uri())
    make_world_readable(staging)


def assemble_secure_home(staging: Path, plain_home: Path, plugin_version: str, java_home: Path, log: Log) -> None:
    """Build the secured home in ``staging``: a copy of the complete plain home plus the security plugin
    (``org.opensearch.plugin:opensearch-security`` from Maven Central). A home of its own, so open nodes keep
    running without the plugin (a node with it installed refuses to start without TLS certificates)."""
    log(f"copying {plain_home} for the secured home")
    shutil.copytree(plain_home, staging, symlinks=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=staging.parent) as tmp:
        log(f"installing plugin {SECURITY_PLUGIN} {plugin_version}")
        zip_path = copy_artifact(Artifact("org.opensearch.plugin", SECURITY_PLUGIN, plugin_version, "zip"), Path(tmp),
                                 java_home)
        plugin_cli(staging, java_home, "install", "--batch", zip_path.as_uri())
    make_world_readable(staging)


def unpack_server(server_zip: Path, staging: Path) -> None:
    """Unzip the server's single top folder as ``staging`` and restore the executable bits zipfile drops."""
    scratch = staging.parent / f"{staging.name}.unzip"
    shutil.rmtree(scratch, ignore_errors=True)
    with zipfile.ZipFile(server_zip) as zf:
        zf.extractall(scratch)
    tops = [p for p in scratch.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise AssemblyError(f"{server_zip.name}: expected one top folder, found {[p.name for p in tops]}")
    tops[0].rename(staging)
    scratch.rmdir()
    for script in (staging / "bin").iterdir():
        if script.is_file() and script.suffix not in (".bat", ".exe"):
            script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def install_module(home: Path, spec: ModuleSpec, version: str, downloads: Path, java_home: Path) -> Path:
    """Create ``modules/<name>`` from the module jar and its runtime jars that core (or a parent) does not hold."""
    jars = copy_runtime_dependencies([Artifact("org.opensearch.plugin", spec.name, version)], downloads, java_home)
    parents = [home / "lib", *(home / "modules" / p for p in spec.extended)]
    target = home / "modules" / spec.name
    target.mkdir(parents=True)
    for jar in bundle_jars(jars, provided_jar_bases(parents)):
        shutil.copy2(jar, target / jar.name)
    main_jar = target / f"{spec.name}-{version}.jar"
    if not main_jar.is_file():
        raise AssemblyError(f"module {spec.name}: {main_jar.name} was not among the resolved jars")
    descriptor = render_descriptor(
        name=spec.name,
        description=spec.description,
        version=version,
        opensearch_version=version,
        classname=find_plugin_class(main_jar, spec.classnames),
        extended=spec.extended,
    )
    (target / "plugin-descriptor.properties").write_text(descriptor, encoding="utf-8")
    if spec.policy_template:
        shutil.copyfile(TEMPLATES_DIR / spec.policy_template, target / "plugin-security.policy")
    return target


def jar_base(name: str) -> str:
    """Artifact name of a jar file name without its version (``log4j-api-2.21.0.jar`` -> ``log4j-api``)."""
    match = _JAR_BASE.match(name)
    return match.group("base") if match else name.removesuffix(".jar")


def provided_jar_bases(folders: Iterable[Path]) -> set[str]:
    """Artifact names already on a parent class loader: bundling them again is jar hell at startup."""
    return {jar_base(j.name) for folder in folders for j in folder.glob("*.jar")}


def bundle_jars(jars: Iterable[Path], provided: set[str]) -> list[Path]:
    """The jars a module or plugin must carry itself: those whose artifact no parent provides."""
    return [j for j in jars if jar_base(j.name) not in provided]


def find_plugin_class(jar: Path, candidates: tuple[str, ...]) -> str:
    """The first candidate class present in ``jar``; checked rather than trusted since names moved across versions."""
    with zipfile.ZipFile(jar) as zf:
        names = set(zf.namelist())
    for classname in candidates:
        if classname.replace(".", "/") + ".class" in names:
            return classname
    raise AssemblyError(f"{jar.name} holds none of the plugin classes {', '.join(candidates)}")


def render_descriptor(
    name: str, description: str, version: str, opensearch_version: str, classname: str, extended: tuple[str, ...]
) -> str:
    """``plugin-descriptor.properties`` in the form OpenSearch's own build writes it."""
    return template_env().get_template("plugin-descriptor.properties.j2").render(
        name=name,
        description=description,
        version=version,
        opensearch_version=opensearch_version,
        java_version=PLUGIN_JAVA_VERSION,
        classname=classname,
        extended=",".join(extended),
    )


def plugin_cli(home: Path, java_home: Path, *args: str) -> str:
    """Run ``bin/opensearch-plugin`` of ``home``; it checks descriptors, permissions and jar hell for us."""
    env = {
        **os.environ,
        "JAVA_HOME": str(java_home),
        "OPENSEARCH_JAVA_HOME": str(java_home),
        "OPENSEARCH_PATH_CONF": str(home / "config"),
    }
    return run_tool([str(home / "bin" / "opensearch-plugin"), *args], env=env, error=AssemblyError,
                    what=f"opensearch-plugin {' '.join(args)} failed")


def make_world_readable(home: Path) -> None:
    """``a+rX,go-w`` over the home: the service user runs it, and a root umask of 077 would lock it out; nobody
    but its owner may change it (the security plugin's zip holds 0666 files that root copies into every secured
    node's config)."""
    for path in [home, *home.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        extra = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
        if path.is_dir() or mode & stat.S_IXUSR:
            extra |= stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
        path.chmod((mode | extra) & ~0o022)
