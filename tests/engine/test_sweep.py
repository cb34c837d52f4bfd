"""The balance lab's sweeps (issue 28): ``firefight sweep`` over a grid of request fields, its
files (CSV, JSON, a chart), its errors, and the same counts whatever runs it (this process,
local processes, a Dask cluster)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _examples import EXAMPLES, IN_PYODIDE, example

import firefight
from firefight import sim, sweep

pytestmark = pytest.mark.skipif(IN_PYODIDE, reason="the lab's sweeps run on CPython")
DSHK = str(EXAMPLES / "shock_dshk.json")
RIFLE = str(EXAMPLES / "percentile_rifleman.json")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from firefight.cli import main

    code = main(["sweep", *args])
    return code, capsys.readouterr().out


def test_a_range_sweeps_every_value_and_each_point_is_its_own_sim() -> None:
    request = example("percentile_rifleman.json")
    out = sweep.sweep(request, ["range.value=10:50:20"], 3_000, seed=4)
    assert [p["values"] for p in out["points"]] == [{"range.value": v} for v in (10, 30, 50)]
    for point in out["points"]:
        alone = firefight.simulate({**request, "range": {**request["range"],
                                                         "value": point["values"]["range.value"]}},
                                   3_000, seed=4)
        assert {k: r["count"] for k, r in point["outcomes"].items()} == {
            k: r["count"] for k, r in alone["outcomes"].items() if k in point["outcomes"]}
        assert point["shots_until_incapacitated"] == alone["shots_until_incapacitated"]
    # A far shot hits less often (the chart's point).
    hits = [p["outcomes"]["hit"]["exact"]["probability"] for p in out["points"]]
    assert hits == sorted(hits, reverse=True)
    assert hits[0] > hits[-1]


def test_the_exact_and_the_sampled_figures_agree_at_every_point() -> None:
    out = sweep.sweep(example("shock_dshk.json"),
                      ["weapon.damage_class=III,IV,V,VI", "target.stats.quality=green,veteran"],
                      20_000, seed=8)
    assert len(out["points"]) == 8
    checked = 0
    for point in out["points"]:
        for label, row in point["outcomes"].items():
            if "exact" not in row:
                continue
            exact = row["exact"]
            p = float(Fraction(exact["exact"])) if "exact" in exact else exact["probability"]
            low, high = sim.wilson(row["count"], 20_000, z=3.9)  # no run hinges on a 1-in-20
            assert low <= p <= high, (point["values"], label, row)
            checked += 1
    assert checked >= 8 * 3


def test_values_lists_and_pack_items_by_name() -> None:
    assert sweep.parse_vary("options.rounds=1:3:1") == ("options.rounds", [1, 2, 3])
    assert sweep.parse_vary("range.value=0.5:1.5:0.5") == ("range.value", [0.5, 1.0, 1.5])
    assert sweep.parse_vary("x=true, 2,'a' ,b") == ("x", [True, 2, "'a'", "b"])
    assert sweep.parse_vary('weapon="Cei-Rigotti, 6.5mm",Kar98k') == (
        "weapon", ["Cei-Rigotti, 6.5mm", "Kar98k"])
    request = example("soe_rhino.json")
    request["target"] = {"name": "Soldier", "stats": {"toughness": 10, "hp": 30, "hp_max": 30}}
    varies = sweep.resolve_varies(request, ["target.armor=none,Aluminum Cuirass",
                                            "weapon=Cei-Rigotti"])
    armor, weapon = varies
    assert armor.values[0] == []
    assert armor.values[1][0]["name"] == "Aluminum Cuirass (Front & Back) & Faulds (Table 6)"
    assert armor.values[1][0]["category"] == "armor"
    assert weapon.values[0]["name"].startswith("Cei-Rigotti")
    assert weapon.shown == ("Cei-Rigotti",)
    out = sweep.sweep(request, ["target.armor=none,Aluminum Cuirass"], 2_000, seed=1)
    assert [p["values"]["target.armor"] for p in out["points"]] == ["none", "Aluminum Cuirass"]


@pytest.mark.parametrize(("vary", "field", "code"), [
    (["range.valu=1:3:1"], "range.valu", "invalid_vary"),  # not in the request schema
    (["target.stats.no_such=1,2"], "target.stats.no_such", "invalid_vary"),
    (["ruleset=soe,shock"], "ruleset", "invalid_vary"),
    (["range.value=1:3:0"], "range.value", "invalid_vary"),
    (["range.value=a:3:1"], "range.value", "invalid_vary"),
    (["weapon=No such gun"], "weapon", "invalid_vary"),
    (["range.value"], "range.value", "invalid_vary"),
    (["target.armor.3.coverage=0.5"], "target.armor.3.coverage", "invalid_vary"),
    (["range.value.x=1"], "range.value.x", "invalid_vary"),
    ([], "vary", "invalid_vary"),
    (["weapon.damage_class=VI,IX"], "weapon.damage_class", "invalid_request"),  # the model's
    (["range.value=-10,10"], "range.value", "invalid_request"),
])
def test_a_bad_field_or_value_is_named(vary: list[str], field: str, code: str) -> None:
    out = sweep.sweep(example("shock_dshk.json"), vary, 100, seed=1)
    assert [f["field"] for f in out["error"]["fields"]][:1] == [field], out
    assert out["error"]["code"] == code


def test_a_value_the_model_refuses_names_the_point() -> None:
    out = sweep.sweep(example("shock_dshk.json"), ["weapon.damage_class=VI,IX"], 100, seed=1)
    assert out["error"]["message"].startswith("at weapon.damage_class=IX: ")


def _files(out_dir: Path) -> dict[str, Path]:
    return {p.name: p for p in out_dir.iterdir()}


@pytest.mark.parametrize("chart", ["png", "svg", "html"])
def test_the_sweep_command_writes_csv_json_and_the_chart(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, chart: str) -> None:
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "lab"
    code, stdout = _run(capsys, DSHK, "--vary", "weapon.damage_class=IV,V,VI",
                        "--vary", "target.stats.quality=green,veteran", "-n", "2000",
                        "--seed", "3", "--out", str(out_dir), "--chart", chart,
                        "--format", "json", "--workers", "2")
    assert code == 0
    printed = json.loads(stdout)
    assert printed == json.loads((out_dir / "sweep.json").read_text(encoding="utf-8"))
    assert set(_files(out_dir)) == {"sweep.csv", "sweep.json", f"sweep.{chart}"}
    assert printed["n"] == 2000
    assert printed["seed"] == 3
    rows = list(csv.DictReader(io.StringIO((out_dir / "sweep.csv").read_text())))
    assert len(rows) == 6 == len(printed["points"])
    first, point = rows[0], printed["points"][0]
    assert (first["weapon.damage_class"], first["target.stats.quality"]) == ("IV", "green")
    for label, row in point["outcomes"].items():
        assert float(first[f"{label}.share"]) == row["share"]
        assert [float(first[f"{label}.low"]), float(first[f"{label}.high"])] == row["interval95"]
        assert first[f"{label}.from"] == ("exact" if "exact" in row else "sampled")
        if "exact" in row:
            assert first[f"{label}.exact"] == row["exact"].get(
                "exact", str(row["exact"]["probability"]))
            assert float(first[f"{label}.figure"]) == row["exact"]["probability"]
        else:
            assert first[f"{label}.exact"] == ""
            assert float(first[f"{label}.figure"]) == row["share"]
    data = (out_dir / f"sweep.{chart}").read_bytes()
    panels = list(point["outcomes"])
    if chart == "png":
        from matplotlib import image

        pixels = image.imread(io.BytesIO(data), format="png")
        assert pixels.shape[0] > 400
        assert pixels.shape[1] > 800
        assert pixels[..., :3].std() > 0.05  # drawn on, not a blank page
    else:
        svg = data.decode()
        if chart == "html":
            assert svg.startswith("<!DOCTYPE html>")
            assert "<table>" in svg
            assert "<td>green</td>" in svg
            # Nothing loaded from elsewhere (the namespaces' URIs are names, not loads).
            for loads in ("<script", "<link", "src=", 'href="http', "url(http", "@import"):
                assert loads not in svg
            svg = svg[svg.index("<svg"):svg.index("</svg>") + 6]
        root = ET.fromstring(svg)  # noqa: S314 - well formed (the file this test just made)
        texts = {"".join(t.itertext()).strip()
                 for t in root.iter("{http://www.w3.org/2000/svg}text")}
        assert set(panels) <= texts
        assert "weapon.damage_class" in texts  # the first field along x
        assert {"target.stats.quality = green", "target.stats.quality = veteran"} <= texts


def test_the_sweep_command_prints_a_table(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    code, text = _run(capsys, DSHK, "--vary", "range.value=100:300:100", "-n", "1000",
                      "--seed", "2", "--out", str(tmp_path))
    assert code == 0
    data = json.loads((tmp_path / "sweep.json").read_text())
    lines = text.splitlines()
    assert lines[0].startswith("shock: 1,000 engagements a point, seed 2")
    assert lines[1].split()[:2] == ["range.value", "killed"]
    assert [line.split()[0] for line in lines[3:]] == ["100", "200", "300"]
    assert lines[3].split()[1] == "=45.00%"  # killed: exact
    shock = data["points"][0]["outcomes"]["result:shock"]
    assert "exact" in shock
    row = dict(zip(lines[1].split(), lines[3].split(), strict=False))
    assert row["incapacitated"] == "=82.00%"


def test_nothing_is_written_for_a_bad_sweep(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "lab"
    code, text = _run(capsys, DSHK, "--vary", "range.nope=1,2", "-n", "100",
                      "--out", str(out_dir))
    assert code == 1
    assert json.loads(text)["error"]["fields"][0]["field"] == "range.nope"
    assert not out_dir.exists()

def test_a_failed_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills while the second file is written: neither file, nor a temporary one."""
    real = sweep.tempfile.mkstemp
    made: list[str] = []

    def mkstemp(**kwargs: Any) -> tuple[int, str]:
        if made:
            raise OSError(28, "No space left on device")
        fd, name = real(**kwargs)
        made.append(name)
        return fd, name

    monkeypatch.setattr(sweep.tempfile, "mkstemp", mkstemp)
    with pytest.raises(OSError, match="No space"):
        sweep.write(tmp_path, {"sweep.csv": b"a", "sweep.json": b"{}"})
    assert made
    assert list(tmp_path.iterdir()) == []


def test_progress_reaches_every_engagement_of_every_point() -> None:
    seen: list[tuple[int, int]] = []
    sweep.sweep(example("shock_dshk.json"), ["range.value=100,200"], 120_000, seed=1,
                progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (240_000, 240_000)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) == 6  # three chunks a point


def test_local_processes_count_as_one_process_does() -> None:
    request = example("shock_dshk.json")
    one = sweep.sweep(request, ["range.value=100,200"], 60_000, seed=6)
    two = sweep.sweep(request, ["range.value=100,200"], 60_000, seed=6, workers=2)
    assert one["points"] == two["points"]


def test_a_dask_cluster_counts_as_local_processes_do() -> None:
    """``--scheduler ADDRESS``: a small in-process cluster at a tcp address (one worker, one
    thread), closed whatever happens; the run is bounded by a timeout."""
    distributed = pytest.importorskip("distributed")
    request = example("shock_dshk.json")
    local = sweep.sweep(request, ["range.value=100,200"], 60_000, seed=6, workers=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", dashboard_address=None) as cluster:
        out = sweep.sweep(request, ["range.value=100,200"], 60_000, seed=6,
                          scheduler=cluster.scheduler_address, timeout=120)
    assert out["scheduler"] == cluster.scheduler_address
    assert out["points"] == local["points"]


def test_the_scheduler_local_flag_counts_as_local_processes_do(tmp_path: Path) -> None:
    """``--scheduler local``: a LocalCluster of one worker process, run by the command in a
    child process that is killed if it runs past its time (a stuck cluster cannot hang the
    tests); the same counts as two local processes give for the seed."""
    pytest.importorskip("distributed")
    pytest.importorskip("matplotlib")
    done = subprocess.run(
        [sys.executable, "-m", "firefight", "sweep", DSHK, "--vary", "range.value=100,200",
         "-n", "60000", "--seed", "6", "--format", "json", "--chart", "svg",
         "--scheduler", "local", "--workers", "1", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    cluster = json.loads(done.stdout)
    assert cluster["scheduler"] == "local"
    local = sweep.sweep(example("shock_dshk.json"), ["range.value=100,200"], 60_000, seed=6,
                        workers=2)
    assert cluster["points"] == local["points"]
    assert (tmp_path / "sweep.csv").read_text() == sweep.to_csv(cluster)


def test_a_scheduler_that_does_not_answer_is_named(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(sim, "DASK_CONNECT_S", 2)
    out = firefight.simulate(example("shock_dshk.json"), 100, seed=1,
                             scheduler="tcp://127.0.0.1:9")
    assert out["error"]["fields"][0]["field"] == "scheduler"
    out = sweep.sweep(example("shock_dshk.json"), ["range.value=1,2"], 100, seed=1,
                      scheduler="tcp://127.0.0.1:9")
    assert out["error"]["code"] == "no_scheduler"
    from firefight.cli import main

    assert main(["sweep", DSHK, "--vary", "range.value=1,2", "-n", "100",
                 "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path)]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["fields"][0]["field"] == "scheduler"
    assert list(tmp_path.iterdir()) == []


def test_a_progress_bar_on_a_terminal(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    from firefight.cli import main

    assert main(["sweep", DSHK, "--vary", "range.value=100,200", "-n", "60000", "--seed", "1",
                 "--out", str(tmp_path), "--chart", "svg"]) == 0
    err = capsys.readouterr().err
    assert "] 120,000/120,000" in err
    assert f"[{'#' * 30}]" in err


def test_workers_go_with_local_runs_only() -> None:
    from firefight.cli import main

    with pytest.raises(SystemExit, match="--workers goes with local"):
        main(["sweep", DSHK, "--vary", "range.value=1,2", "--scheduler", "tcp://h:8786",
              "--workers", "2"])
