"""An article's versions read from the index, for ``cli.py article`` and ``search --after/--before`` (issue 49):
the stored versions (:func:`~nomos.pages.in_force.article_versions`), the one after a law, and for a list of
hits the wording each had after (or before) a given law."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from nomos.errors import NomosError
from nomos.legal.inforce.versions import ORIGINAL, Version, find_version, law_key_of, version_as_of
from nomos.opensearch.client import make_client
from nomos.opensearch.transport import Transport, make_transport
from nomos.pages.in_force import ArticleVersions, article_versions, versions_of_many
from nomos.stages.settings import StageSettings


class NoSuchVersion(NomosError):
    """An unknown article, or no version of it after the law asked for: the message names what there is."""


@contextmanager
def _transport(settings: StageSettings) -> Iterator[Transport]:
    """A transport over a client of its own (the settings' retries, hint and identity), closed after the block."""
    client = make_client(settings.cluster)
    try:
        yield make_transport(settings.cluster, client)
    finally:
        client.close()


def versions_of(settings: StageSettings, article_id: str) -> ArticleVersions:
    """Every stored version of ``article_id`` in the settings' index (one ``mget``)."""
    with _transport(settings) as transport:
        found = article_versions(transport, settings.index_alias, article_id)
    if found is None:
        raise NoSuchVersion(f"no article {article_id!r} in index {settings.index_alias!r}")
    return found


def version_after(found: ArticleVersions, law: str) -> Version:
    """The version after ``law`` (its source id, «ν. 4855/2021», «4855/2021», an amending article, «original»)."""
    v = find_version(found.versions, law)
    if v is None:
        raise NoSuchVersion(f"{found.id} has no version after {law!r}; its versions: "
                            + ", ".join(x.law for x in found.versions))
    return v


@dataclass(frozen=True)
class AsOf:
    """A hit's wording as it stood after (or before) a given law: the version (its law; «original»), its text,
    whether it is today's text in force, and the laws that changed it since."""

    law: str
    label: str
    text: str
    today: bool
    later: tuple[str, ...]


def as_of_law(law: str) -> tuple[int, int]:
    key = law_key_of(law)
    if key is None:
        raise NoSuchVersion(f"{law!r} names no law: write it as «ν. 4855/2021», «4855/2021» or N_4855_2021")
    return key


def wording_as_of(settings: StageSettings, ids: list[str], law: str, before: bool = False) -> dict[str, AsOf]:
    """For each amended article of ``ids``, its wording after ``law`` (``before``: on the eve of it); articles
    nothing amends are left out (their text is the same at every date the corpus knows)."""
    key = as_of_law(law)
    with _transport(settings) as transport:
        stored = versions_of_many(transport, settings.index_alias, ids)
    out = {}
    for article_id, versions in stored.items():
        v = version_as_of(versions, key, before)
        at = versions.index(v)
        out[article_id] = AsOf(v.law, "the original text" if v.law == ORIGINAL else f"after {v.law_name}", v.text,
                               at == len(versions) - 1, tuple(x.law_name for x in versions[at + 1:]))
    return out
