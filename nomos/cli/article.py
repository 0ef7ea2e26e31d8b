"""``article``: an article as it stood after a given law, its versions, and the words a law changed (issue 49)."""

from __future__ import annotations

import click

from nomos.cli.main import cli
from nomos.cli.options import emit_json, json_option
from nomos.settings import Settings


@cli.command("article")
@click.argument("article_id")
@click.option("--after", "after", default=None, metavar="LAW",
              help="The article as it stood after this law: its source (N_4855_2021), its name («ν. 4855/2021», "
                   "4855/2021), one of its amending articles (N_4855_2021::86), or «original» (default: the text in "
                   "force, the last version).")
@click.option("--versions", "list_versions", is_flag=True,
              help="List every version (the original, then one per amending law) instead of printing one.")
@click.option("--diff", "diff_from", default=None, metavar="LAW",
              help="Print the words changed since the version after LAW: deletions in [-…-], insertions in [+…+].")
@json_option
@click.pass_obj
def article_cmd(settings: Settings, article_id: str, after: str | None, list_versions: bool, diff_from: str | None,
                as_json: bool) -> None:
    """Print ARTICLE_ID's text as it stood after a given law (--after), as ingest consolidated it from the
    amending laws the index holds: with the instructions that made that version and when its law says it takes
    effect. `article PK::372 --after "ν. 4855/2021"`, `article PK::372 --versions`, `article PK::372 --diff original`."""
    from nomos.legal.inforce.diff import marked, word_diff
    from nomos.stages.versions import version_after, versions_of

    found = versions_of(settings, article_id)
    if list_versions:
        rows = [{"law": v.law, "law_name": v.law_name, "amending": list(v.amending), "exact": v.exact,
                 "effective": v.effective} for v in found.versions]
        if as_json:
            emit_json({"id": found.id, "versions": rows})
            return
        for n, v in enumerate(found.versions):
            name = "original" if not n else f"after {v.law_name} ({', '.join(v.amending)})"
            click.echo(f"{n}. {name}{'' if v.exact else ' [partly consolidated]'}")
            if v.effective:
                click.echo(f"   in force: {v.effective}")
        return
    version = version_after(found, after) if after else found.versions[-1]
    text = version.text
    if diff_from is not None:
        text = marked(word_diff(version_after(found, diff_from).text, version.text))
    if as_json:
        emit_json({"id": found.id, **version.to_doc(), "text": text, "diff_from": diff_from})
        return
    title = version.title or found.title
    where = "original" if not version.amending else f"after {version.law_name} ({', '.join(version.amending)})"
    click.echo(f"{found.id} {title}: {where}" + ("" if version.exact else " [partly consolidated]"))
    for a in version.applied:
        click.echo(f"  {a.source} {a.action}{' ' + a.paragraph if a.paragraph else ''}: {a.instruction[:160]}")
    if version.effective:
        click.echo(f"  in force: {version.effective}")
    click.echo("")
    click.echo(text)
