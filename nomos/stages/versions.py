"""An article's versions read from the index, for ``cli.py article`` (issue 49): the stored versions
(:func:`~nomos.retrieval.in_force.article_versions`), and the one after a law or the word diff between two, as the
portal's versions page gives them."""

from __future__ import annotations

from nomos.errors import NomosError
from nomos.legal.inforce.versions import Version, find_version
from nomos.opensearch.client import make_client
from nomos.opensearch.transport import Transport
from nomos.retrieval.in_force import ArticleVersions, article_versions
from nomos.settings import Settings
from nomos.stages.searching import unavailable_hint


class NoSuchVersion(NomosError):
    """An unknown article, or no version of it after the law asked for: the message names what there is."""


def versions_of(settings: Settings, article_id: str) -> ArticleVersions:
    """Every stored version of ``article_id`` in the settings' index (one ``mget``)."""
    client = make_client(settings)
    try:
        transport = Transport(client, retry_seconds=settings.retry_seconds, url=settings.url,
                              unavailable_hint=unavailable_hint(settings))
        found = article_versions(transport, settings.index_alias, article_id)
    finally:
        client.close()
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
