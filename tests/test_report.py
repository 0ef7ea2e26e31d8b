"""The HTML report: self-contained (no external resource), autoescaped, every section present, charts embedded;
and rendered in headless Chromium to check it draws (skips with a message where /usr/bin/chromium is absent;
``make install`` installs it)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from nomos.eval.compare import compare, gold_sources, load_run
from nomos.eval.metrics import METRICS, evaluate
from nomos.eval.report import recall_curve, render_report
from nomos.eval.results import write_results
from tests.beir_files import write_beir

QRELS = {"q1": {"PK::372": 1}, "q2": {"AK::914": 1, "AK::932": 1}}


def _runs(tmp_path):
    root = tmp_path / "runs" / "mini"
    rankings = {
        "bm25": {"q1": [("PK::375", 2.0), ("PK::372", 1.0)], "q2": [("AK::914", 3.0), ("PK::308", 2.0)]},
        "react": {"q1": [("PK::372", 5.0)], "q2": [("AK::932", 4.0), ("AK::914", 3.0)]},
    }
    for name, run in rankings.items():
        manifest = {"dataset": {"name": "mini", "revision": "t"}, "method": {"method": name}, "code": {"commit": "0123456789abcdef", "dirty": False},
                    "queries": 2, "query_phase_seconds": 0.02}
        if name == "react":
            manifest["method"]["llm"] = {"model": "scripted"}
        write_results(root / name, run, evaluate(run, QRELS, METRICS), manifest, tag=name)
    (root / "react" / "rounds.json").write_text(json.dumps({
        "1": {"metrics": {"recall@100": 0.5, "ndcg@10": 0.4}, "pool_recall": 0.8, "mean_kept": 1.0},
        "2": {"metrics": {"recall@100": 1.0, "ndcg@10": 0.9}, "pool_recall": 1.0, "mean_kept": 1.5}}))
    (root / "react" / "cost.json").write_text(json.dumps({"mean_per_query": {"calls": 4, "input_tokens": 9000, "output_tokens": 300, "seconds": 1.5}}))
    return [load_run(root / n) for n in rankings]


def test_recall_curve_hand_worked():
    run = {"q1": [("x", 2.0), ("PK::372", 1.0)], "q2": [("AK::914", 1.0)]}
    curve = recall_curve(run, QRELS, ["q1", "q2"], max_k=3)
    assert curve == pytest.approx([0.25, 0.75, 0.75])  # k=1: (0 + 1/2)/2; k=2: (1 + 1/2)/2


def _html(tmp_path):
    runs = _runs(tmp_path)
    c = compare(runs, n_permutations=1000, sources=gold_sources(QRELS))
    texts = {"q1": "Ο Νίκος <b>έκλεψε</b> ένα ρολόι", "q2": "υπόθεση"}
    return render_report(c, QRELS, {"name": "mini", "revision": "t"}, texts, {"PK::372": "Κλοπή"}, command="cli.py report")


def test_report_is_self_contained_and_escaped(tmp_path):
    html = _html(tmp_path)
    assert "&lt;b&gt;έκλεψε&lt;/b&gt;" in html and "<b>έκλεψε</b>" not in html  # autoescape on
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing fetched from elsewhere
    assert html.count('src="data:image/png;base64,') == 3  # Recall@k, cost, ReAct rounds
    for section in ("Comparison", "Recall@k", "Cost against quality", "ReAct: quality after each round", "By legal area",
                    "By source of the gold articles", "Per query", "Provenance"):
        assert section in html, section
    assert "Scripted oracle, not an LLM" in html and "PK::372 · Κλοπή" in html and "0123456789" in html


def test_cli_report(tmp_path):
    from nomos.cli import cli

    _runs(tmp_path)
    folder = write_beir(tmp_path / "data")
    out = tmp_path / "r.html"
    # the data folder is named "data", the runs "mini": pass the run folders by path
    res = CliRunner().invoke(cli, ["report", str(tmp_path / "runs/mini/bm25"), str(tmp_path / "runs/mini/react"), "--dataset", str(folder),
                                   "--out", str(out), "--permutations", "500"])
    assert res.exit_code == 0, res.output
    assert out.is_file() and "written" in res.output
    # without --out, the report goes to the runs folder, never the current directory (the checkout)
    res = CliRunner().invoke(cli, ["report", str(tmp_path / "runs/mini/bm25"), "--runs-dir", str(tmp_path / "runs"),
                                   "--dataset", str(folder), "--permutations", "500"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "runs" / "report.html").is_file() and not Path("report.html").exists()
    res = CliRunner().invoke(cli, ["report", "bm25", "--runs-dir", str(tmp_path / "runs")])
    assert res.exit_code == 2 and "needs --dataset" in res.output


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_report_renders_in_headless_chromium(tmp_path):
    if not shutil.which("chromium"):
        pytest.skip("chromium not installed (Debian: apt-get install -y chromium; `make install` does it)")
    from PIL import Image

    page = tmp_path / "report.html"
    page.write_text(_html(tmp_path), encoding="utf-8")
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1000,1400",
                    page.as_uri()], check=True, capture_output=True, timeout=120)
    img = Image.open(shot).convert("L")
    assert img.size == (1000, 1400)
    dark = sum(1 for p in img.getdata() if p < 128)
    assert dark > 0.01 * img.size[0] * img.size[1]  # text and charts drawn, not a blank page


def test_report_shows_llm_issue_counts_with_those_above_the_threshold_in_bold(tmp_path):
    from nomos.retrieval.llm import Cost, Reply, cost_table, issue_report

    cost = Cost()
    for i in range(10):
        cost.add(Reply("PK::372" if i else "", 10, 2, 0.1, cached=i < 3), "observer")
    cost.note("unknown_ids")
    cost.note("fallbacks", 0)
    table = cost_table({"q1": cost.to_dict()}, 1.0)
    table["llm_issues"] = issue_report(table, 0.05)
    assert table["llm_issues"]["warnings"] == ["unknown_ids: 1 of 10 LLM calls (10.0%)", "empty_replies: 1 of 10 LLM calls (10.0%)"]
    runs = _runs(tmp_path)
    (tmp_path / "runs" / "mini" / "react" / "cost.json").write_text(json.dumps(table))
    runs = [load_run(r.folder) for r in runs]
    html = render_report(compare(runs, n_permutations=100, sources=gold_sources(QRELS)), QRELS, {"name": "mini", "revision": "t"})
    section = html[html.index("<h2>LLM issues</h2>"):html.index("<h2>ReAct: quality after each round</h2>")]
    assert "<td>react</td><td>10</td>" in section and "<td>bm25</td>" not in section  # only runs with LLM calls
    assert "<th>format errors</th>" in section and "<td>0 (0.0%)</td>" in section
    assert section.count("<strong>1 (10.0%)</strong>") == 2  # unknown ids, empty replies
    assert "<td>3 (30.0%)</td>" in section  # cache hits: informational, never bold


def test_cost_panels_of_runs_without_an_llm_show_one_tick_not_a_smear(tmp_path, monkeypatch):
    """Only runs that spent no LLM call: the calls and tokens panels showed 0.0000, 0.0002… written over each other."""
    import nomos.eval.report as report

    runs = [r for r in _runs(tmp_path) if r.name == "bm25"]
    figures = []
    monkeypatch.setattr(report, "_png", lambda fig: figures.append(fig) or "")
    report.cost_chart(compare(runs, n_permutations=100, sources=gold_sources(QRELS)))
    calls, tokens, seconds = figures[0].axes[:3]
    for ax in (calls, tokens):
        assert list(ax.get_xticks()) == [0] and any(t.get_text() == "0 for every run" for t in ax.texts)
    assert 2 <= len(seconds.get_xticks()) <= 6  # a real axis where there is something to show
