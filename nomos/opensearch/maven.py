"""Fetch artifacts from Maven Central with the ordinary ``mvn`` client.

Maven is the one route to OpenSearch's pieces on machines that reach package registries only. ``mvn`` keeps its own
cache (``~/.m2/repository``), so a second install downloads nothing. Every call runs in a fresh temporary folder so
that no ``pom.xml`` of the caller's working directory is picked up.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from nomos.errors import NomosError
from nomos.opensearch.tool import run_tool

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"


class MavenError(NomosError):
    """``mvn`` is missing or could not resolve an artifact; the message names the coordinates and Maven's words."""


@dataclass(frozen=True)
class Artifact:
    """Maven coordinates ``group:artifact:version[:type]``, plus exclusions for a dependency of a throwaway pom."""

    group: str
    artifact: str
    version: str
    type: str = "jar"
    exclusions: tuple[tuple[str, str], ...] = ()

    @property
    def coords(self) -> str:
        """The ``G:A:V:T`` form that ``dependency:copy -Dartifact=`` takes."""
        return f"{self.group}:{self.artifact}:{self.version}:{self.type}"

    @property
    def file_name(self) -> str:
        """The name Maven gives the copied file (no classifier, no version stripping)."""
        return f"{self.artifact}-{self.version}.{self.type}"


def mvn_executable() -> str:
    """Path of ``mvn``; fails with an install hint since nothing else here can reach Maven Central."""
    found = shutil.which("mvn")
    if found is None:
        raise MavenError("`mvn` is not on PATH: install it (Debian: `apt-get install maven`)")
    return found


def copy_artifact(artifact: Artifact, dest: Path, java_home: Path) -> Path:
    """Download one artifact (no dependencies) into ``dest`` and return the file's path."""
    dest.mkdir(parents=True, exist_ok=True)
    _run_mvn(
        [f"{DEPENDENCY_PLUGIN}:copy", f"-Dartifact={artifact.coords}", f"-DoutputDirectory={dest}"],
        java_home,
        what=artifact.coords,
    )
    path = dest / artifact.file_name
    if not path.is_file():
        raise MavenError(f"mvn reported success for {artifact.coords} but {path} is missing")
    return path


def copy_runtime_dependencies(artifacts: list[Artifact], dest: Path, java_home: Path) -> list[Path]:
    """Download ``artifacts`` with their runtime dependencies (transitively) into ``dest``; return the jars.

    A throwaway pom lists the artifacts; ``dependency:copy-dependencies -DincludeScope=runtime`` resolves them
    the way Maven would for a consumer, honouring each artifact's exclusions.
    """
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="nomos-pom-") as tmp:
        pom = Path(tmp) / "pom.xml"
        pom.write_text(render_pom(artifacts), encoding="utf-8")
        _run_mvn(
            ["-f", str(pom), f"{DEPENDENCY_PLUGIN}:copy-dependencies", "-DincludeScope=runtime",
             f"-DoutputDirectory={dest}"],
            java_home,
            what=", ".join(a.coords for a in artifacts),
        )
    return sorted(dest.glob("*.jar"))


def render_pom(artifacts: list[Artifact]) -> str:
    """A minimal ``pom``-packaged project whose only content is ``artifacts`` as compile dependencies."""
    deps = "\n".join(_dependency_xml(a) for a in artifacts)
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        "  <modelVersion>4.0.0</modelVersion>\n"
        "  <groupId>nomos.local</groupId><artifactId>throwaway</artifactId><version>0</version>\n"
        "  <packaging>pom</packaging>\n"
        f"  <dependencies>\n{deps}\n  </dependencies>\n"
        "</project>\n"
    )


def _dependency_xml(artifact: Artifact) -> str:
    """One ``<dependency>`` element, with ``<exclusions>`` when the artifact has any."""
    exclusions = "".join(
        f"<exclusion><groupId>{escape(g)}</groupId><artifactId>{escape(a)}</artifactId></exclusion>"
        for g, a in artifact.exclusions
    )
    return (
        f"    <dependency><groupId>{escape(artifact.group)}</groupId>"
        f"<artifactId>{escape(artifact.artifact)}</artifactId><version>{escape(artifact.version)}</version>"
        f"<type>{escape(artifact.type)}</type>"
        + (f"<exclusions>{exclusions}</exclusions>" if exclusions else "")
        + "</dependency>"
    )


def _run_mvn(args: list[str], java_home: Path, what: str) -> None:
    """Run ``mvn -B`` in an empty temporary folder; on failure raise MavenError with the tail of Maven's output."""
    env = {**os.environ, "JAVA_HOME": str(java_home)}
    with tempfile.TemporaryDirectory(prefix="nomos-mvn-") as cwd:
        run_tool([mvn_executable(), "-B", "-q", *args], env=env, cwd=cwd, error=MavenError, what=f"mvn could not fetch {what}")
