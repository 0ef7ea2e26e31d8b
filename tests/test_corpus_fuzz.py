"""Issue 47: every line the JSON parser refuses, at any nesting depth and any number size, is one located
``corpus.jsonl:N: …`` DatasetError (a NomosError) from the Python API and one line from the CLI, never the
parser's traceback (a 2,000-deep line was a RecursionError, a 4,400-digit number a ValueError)."""

from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner

import nomos
from nomos.cli import cli
from nomos.errors import DataError, NomosError
from nomos.eval.graph_judging import JudgmentError, read_jsonl
from nomos.eval.runs import RunFormatError, read_json_run
from nomos.ingest.beir import load_beir
from nomos.ingest.records import DatasetError
from nomos.json_input import nesting_depth, parse_json
from tests.beir_files import ARTICLES, write_beir

GOOD = [json.dumps(a, ensure_ascii=False) for a in ARTICLES]


def deep(rng: random.Random) -> str:
    """An article whose field holds lists or objects nested far past the recursion limit."""
    depth = rng.choice([1_100, 2_000, 5_000, 50_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return '{"_id": "X::1", "text": ' + opener * depth + "1" + closer * depth + "}"


def huge_number(rng: random.Random) -> str:
    """A number of more digits than Python converts (4,300 by default), as id, text or an extra field."""
    digits = "".join(rng.choice("123456789") for _ in range(rng.choice([4_301, 4_400, 20_000])))
    number = rng.choice(["", "-"]) + digits
    return rng.choice([f'{{"_id": {number}, "text": "α"}}', f'{{"_id": "X::1", "text": {number}}}',
                       f'{{"_id": "X::1", "text": "α", "extra": [{number}]}}'])


def broken(rng: random.Random) -> str:
    """A good article with a stray character put in at a random place (where that keeps it valid JSON, inside a
    string, it is cut short instead: a prefix of an object is never one)."""
    good = rng.choice(GOOD)
    at = rng.randrange(0, len(good))
    line = good[:at] + rng.choice(["\x00", "}", "]", ",,", "'", "\\x", "NaN NaN"]) + good[at:]
    try:
        json.loads(line)
    except ValueError:
        return line
    return good[: rng.randrange(1, len(good) - 1)]


def not_an_object(rng: random.Random) -> str:
    return rng.choice(["[]", "1", '"text"', "null", "true", "[" * 3000 + "]" * 3000])


KINDS = [deep, huge_number, broken, not_an_object]


def bad_lines(seed: int, count: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(kind.__name__, kind(rng)) for kind in (rng.choice(KINDS) for _ in range(count))]


@pytest.mark.parametrize("seed", range(6))
def test_every_bad_line_is_a_located_dataset_error(tmp_path, seed):
    """Seeded random bad lines at a random line of the corpus: load_beir raises a DatasetError starting with
    ``corpus.jsonl:N: `` for exactly that N, with a message of one line and of bounded length."""
    rng = random.Random(1000 + seed)
    for n, (kind, line) in enumerate(bad_lines(seed, 30)):
        lineno = rng.randrange(1, len(GOOD) + 1)
        lines = GOOD[: lineno - 1] + [line] + GOOD[lineno - 1:]
        folder = write_beir(tmp_path / f"c{n}", corpus_text="\n".join(lines) + "\n")
        with pytest.raises(DatasetError) as err:
            load_beir(folder)
        message = str(err.value)
        assert isinstance(err.value, NomosError)
        assert message.startswith(f"{folder / 'corpus.jsonl'}:{lineno}: "), (kind, message[:300])
        assert "\n" not in message and len(message) < 600, (kind, message[:300])


@pytest.mark.parametrize(("line", "expected"), [
    ("[" * 2000 + "]" * 2000, "nested deeper than the reader allows, 2,000 levels"),
    ('{"_id": "X::1", "text": ' + "1" * 4400 + "}", "a number of more than 4,300 digits"),
    ('{"_id": "X::1", "text": "α"', "malformed JSON (Expecting ',' delimiter at column"),
])
def test_the_python_api_and_the_cli_say_which_line(tmp_path, line, expected):
    """As the issue found them: ``nomos.load_dataset`` raises a DataError naming file:line, and ``index`` prints
    one line and exits 1 (no traceback), for the deep line, the long number and a plain syntax error."""
    folder = write_beir(tmp_path / "bad", corpus_text=GOOD[0] + "\n" + line + "\n")
    with pytest.raises(DataError, match=rf"corpus.jsonl:2: .*{re.escape(expected)}"):
        nomos.load_dataset(folder)
    res = CliRunner().invoke(cli, ["--url", "http://127.0.0.1:9", "index", "--dataset", str(folder)])
    assert res.exit_code == 1 and "Traceback" not in res.output, res.output[-2000:]
    errors = [ln for ln in res.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "corpus.jsonl:2: " in errors[0] and expected in errors[0], res.output[-2000:]


def test_queries_qrels_runs_and_judgments_files_name_the_line_too(tmp_path):
    """The sibling readers: queries.jsonl (same reader), a qrels score of 5,000 digits (clipped in the message),
    a ranx JSON run and a graph judgments file nested past the limit."""
    folder = write_beir(tmp_path / "q")
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": ' + "[" * 3000 + "]" * 3000 + "}\n")
    with pytest.raises(DatasetError, match=r"queries.jsonl:1: malformed JSON \(nested deeper"):
        load_beir(folder)
    folder = write_beir(tmp_path / "r", qrels=[("q1", "PK::372", "9" * 5000)])
    with pytest.raises(DatasetError, match=r"test.tsv:2: score '9{40}… \(5,000 characters\)' is not an integer"):
        load_beir(folder)
    run = tmp_path / "run.json"
    run.write_text('{"q1": ' + '{"a":' * 3000 + "1" + "}" * 3000 + "}")
    with pytest.raises(RunFormatError, match=r"run.json: malformed JSON \(nested deeper"):
        read_json_run(run)
    run.write_text("{\"q1\": {\"d\": 1},\n}")
    with pytest.raises(RunFormatError, match=r"run.json: malformed JSON \(Expecting property name enclosed in double quotes at line 2, column 1\)"):
        read_json_run(run)
    run.write_text('{"q1": [1]}')
    with pytest.raises(RunFormatError, match=r"run.json: expected an object of queries"):
        read_json_run(run)
    judged = tmp_path / "judged.jsonl"
    judged.write_text('{"id": "a"}\n{"id": ' + "9" * 5000 + "}\n")
    with pytest.raises(JudgmentError, match=r"judged.jsonl:2: not JSON \(malformed JSON \(a number of more"):
        read_jsonl(judged)


def test_nesting_depth_ignores_brackets_inside_strings():
    assert nesting_depth('{"a": "[[[[\\"{{", "b": [[1]]}') == 3
    with pytest.raises(DataError, match=r"^f:1: malformed JSON \(nested deeper than the reader allows, 100,000 levels"):
        parse_json("[" * 100_000, "f:1")
