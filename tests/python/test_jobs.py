"""`import lanes`: jobs built in Python and checked as they are built, menus both ways, results as attributes and
DataFrames, scans and comparisons, and every error a user meets: an unknown plugin or option, a failing job, an
interrupted one. The jobs run the `lanes` of $LANES_BINARY (CTest sets it)."""

import signal
import subprocess
import sys

import pandas as pd
import pytest
import uproot

import lanes
from conftest import BINARY, REPO

sys.path.insert(0, str(REPO / "tests" / "root"))
from rootio import wait_for  # noqa: E402

NANOAOD = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"


def small_job(**settings):
    job = lanes.Job(**({"threads": 2, "events": 200} | settings))
    job.source("synthetic", size={"a": 100, "b": 2000})
    job.waiter("busy", scale=1e-8)
    job.output("dummy", label="out")
    return job


# -- building a job: the plugins and options of `lanes plugins --json`, checked as they are given


def test_an_unknown_plugin_is_refused_naming_the_known_ones():
    with pytest.raises(lanes.OptionError, match=r"unknown source 'synthetc' \(known: .*synthetic"):
        lanes.Job().source("synthetc")


def test_a_misspelt_option_is_refused_at_once_naming_option_and_plugin():
    job = lanes.Job()
    with pytest.raises(lanes.OptionError, match=r"waiter 'busy' has no option 'scal' \(its options: .*scale"):
        job.waiter("busy", scal=1e-6)
    with pytest.raises(lanes.OptionError, match=r"output 'root' has no option 'compresion'"):
        job.output("root", file="out.root", compresion="lz4")
    with pytest.raises(lanes.OptionError, match=r"source 'synthetic' has no option 'sizes\.a'"):
        job.source("synthetic", sizes={"a": 10})
    assert job.waiters == [] and job.outputs == []  # nothing half-added


def test_options_in_python_spelling_and_families():
    job = lanes.Job()
    job.module("offload", fail_at=7, produces={"hits": 100})
    module = job.modules[0]
    assert module.label == "offload" and module.options == {"fail-at": 7, "produces": {"hits": 100}}
    job.module("offload")
    assert job.modules[1].label == "offload#2"
    with pytest.raises(lanes.OptionError, match="two modules are labelled 'offload'"):
        job.module("offload", label="offload")


def test_bad_job_settings_are_refused():
    for settings, message in [({"threads": 0}, "threads must be a positive"), ({"events": -1}, "events must be"),
                              ({"on_error": "ignore"}, "on_error must be 'stop' or 'skip'")]:
        with pytest.raises(lanes.OptionError, match=message):
            lanes.Job(**settings)


# -- menus both ways


def test_a_menu_loads_into_a_job_that_prints_as_the_same_menu(tmp_path):
    job = lanes.Job.from_menu(REPO / "examples" / "dimuon.toml")
    assert [m.label for m in job.modules] == ["muons", "dimuon"] and job.paths == [("HLT_DiMuon", ["dimuon"])]
    assert job.source_spec.options["profile"] == str((REPO / "data" / "profiles" / "nanoaod.json").resolve())
    menu = tmp_path / "again.toml"
    menu.write_text(str(job))
    again = lanes.Job.from_menu(menu)
    assert str(again) == str(job)
    assert (again.threads, again.events) == (2, 500)
    assert again.outputs[0].select == ["HLT_DiMuon"] and again.modules[0].options["produces"] == {"muons": 4000}


def test_a_printed_job_runs_as_its_menu_with_the_command(tmp_path):
    menu = tmp_path / "job.toml"
    menu.write_text(str(small_job(events=50)))
    completed = subprocess.run([str(BINARY), "run", "--menu", str(menu)], capture_output=True,
                               text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr
    assert "50 events" in completed.stdout


def test_a_bad_menu_is_refused(tmp_path):
    menu = tmp_path / "bad.toml"
    menu.write_text('[source]\nplugin = "synthetic"\nsizes = { a = 1 }\n')
    with pytest.raises(lanes.MenuError, match=r"bad.toml: source 'synthetic' has no option 'sizes\.a'"):
        lanes.Job.from_menu(menu)
    menu.write_text("[sources]\n")
    with pytest.raises(lanes.MenuError, match="unknown section 'sources'"):
        lanes.Job.from_menu(menu)


# -- results


@pytest.fixture(scope="module")
def result():
    return small_job().run(progress=False)


def test_the_result_holds_the_report_as_attributes(result):
    assert result.events == 200 and result.threads == 2 and result.failed is False
    assert result.events_per_s == result.report["events_per_s"] > 0
    assert result.provenance["lanes_version"] and result.provenance["command"][1] == "run"
    assert result.report_path is None  # its report went with the job's scratch directory
    with pytest.raises(AttributeError, match="no 'events_per_second'"):
        result.events_per_second


def test_the_result_gives_dataframes(result):
    modules = result.modules
    assert isinstance(modules, pd.DataFrame)
    assert set(modules["label"]) == {"busy/a", "busy/b", "out"}
    assert (modules.loc[modules["label"] == "busy/a", "calls"] == 200).all()
    paths = result.paths
    assert list(paths.columns) == ["name", "visited", "accepted", "rejected", "failed"] and (paths["visited"] == 200).all()
    times = result.event_times
    assert times["events"].sum() == 200 and (times["low_s"] < times["high_s"]).all()
    timeline = result.timeline
    assert {"t_s", "rss_bytes", "busy_threads", "events_in_flight"} <= set(timeline.columns) and len(timeline) > 0


def test_the_result_shows_as_the_html_report(result):
    html = result._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "events/s" in html


def test_the_outputs_paths(tmp_path):
    out = tmp_path / "copy.root"
    job = lanes.Job(threads=1, events=20).source("root", file=str(NANOAOD), branches="Muon_*")
    result = job.output("root", label="copy", file=str(out)).run(progress=False)
    assert result.outputs == {"copy": out}
    with uproot.open(out) as file:
        assert file["Events"].num_entries == 20


def test_a_report_trace_and_page_kept_where_asked(tmp_path):
    result = small_job(events=20).run(report=tmp_path / "r.json", trace=tmp_path / "t.json", html=tmp_path / "p.html",
                                      progress=False)
    assert result.report_path == tmp_path / "r.json"
    assert all((tmp_path / name).stat().st_size > 0 for name in ("r.json", "t.json", "p.html"))


# -- failures


def test_a_failing_job_raises_job_error_with_its_one_line_and_report():
    job = small_job().module("fault", at=17, action="throw")
    with pytest.raises(lanes.JobError) as raised:
        job.run(progress=False)
    assert "fault" in raised.value.error and "1:1:17" in raised.value.error and "\n" not in raised.value.error
    assert raised.value.status == 1 and raised.value.report["failed"] is True


def test_the_skip_policy_drops_the_failed_event():
    result = small_job(on_error="skip").module("fault", at=17, action="throw").run(progress=False)
    assert result.events == 199 and result.events_skipped == 1


def test_bad_input_found_by_lanes_raises_job_error_without_a_report(tmp_path):
    job = lanes.Job(events=10).source("root", file=str(tmp_path / "missing.root"))
    with pytest.raises(lanes.JobError, match="missing.root") as raised:
        job.run(progress=False)
    assert raised.value.status == 2 and raised.value.result is None


def test_progress_shows_as_a_tqdm_bar(capsys):
    small_job(events=50).run(progress=True)
    assert "50/50" in capsys.readouterr().err


# -- Ctrl-C: a job in its own process, stopped as lanes stops on SIGINT

INTERRUPTED = """
import sys, lanes
job = lanes.Job(threads=2, events=10**9).source("root", file=sys.argv[2], branches="Muon_*", repeat=200)
job.waiter("busy", scale=1e-6).output("root", label="out", file=sys.argv[1])
try:
    job.run(progress=False)
except KeyboardInterrupt as interrupt:
    print("interrupted:", interrupt, flush=True)
"""


def test_an_interrupted_job_stops_cleanly_and_raises_keyboard_interrupt(tmp_path):
    out = tmp_path / "out.root"
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    process = subprocess.Popen([sys.executable, str(script), str(out), str(NANOAOD)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: next(tmp_path.glob("out.root.partial-*"), None) or process.poll() is not None, 60,
                 "the job to write")
        process.send_signal(signal.SIGINT)  # to Python only, as a kernel's interrupt: it forwards one to the job
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr
    assert "interrupted: the job was interrupted" in stdout
    with uproot.open(out) as file:  # committed whole
        assert file["Events"].num_entries > 0
    assert not list(tmp_path.glob("out.root.partial-*"))


# -- scans and comparisons


def test_a_scan_is_a_dataframe_of_runs_with_the_scan_tools_files(tmp_path):
    scan = lanes.scan(small_job(events=100), vary={"threads": [1, 2]}, repeat=2, directory=tmp_path / "scan")
    assert isinstance(scan, pd.DataFrame) and len(scan) == 4
    assert sorted(scan["threads"]) == [1, 1, 2, 2] and not scan["failed"].any()
    assert (scan["events"] == 100).all() and (scan["events_per_s"] > 0).all()
    assert scan.plots and all(p.suffix == ".png" for p in scan.plots)
    assert len(scan.summary) == 2
    assert "<iframe srcdoc=" in scan._repr_html_()
    with pytest.raises(lanes.OptionError, match="lanes.scan: .*thread"):
        lanes.scan(small_job(), vary={"thread": [1]}, directory=tmp_path / "bad")


def test_a_comparison_is_a_table_of_figures(result):
    other = small_job(threads=1).run(progress=False)
    table = lanes.compare(result, other)
    assert table.loc["threads", "a"] == 2 and table.loc["threads", "b"] == 1 and table.loc["threads", "ratio"] == 0.5
    assert "busy/a" in set(table.attrs["modules"]["label"])
    with pytest.raises(lanes.OptionError, match="lanes.compare takes"):
        lanes.compare(result, 42)
