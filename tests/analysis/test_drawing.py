"""Figures drawn in a helper process: the same bytes as drawn here, its errors raised here, and no helper
where it cannot help."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib as mpl
import pytest
from matplotlib.ticker import FuncFormatter

from analysis import drawing, plots
from analysis.drawing import both_formats, drawing_helper, figure_files

ROOT = Path(__file__).resolve().parents[2]


def _figures(count: int, title: str = "figure") -> dict:
    figures = {}
    for index in range(count):
        figure, axes = plots.new_figure(nrows=1 + index % 2, width=3.0, height=2.0)
        for ax in axes.ravel():
            ax.plot([0, 1, 2], [index, 2, 1], label=f"series {index}")
            ax.set_title(f"{title} {index}")
            ax.legend()
        figures[f"f{index}"] = figure
    return figures


@pytest.fixture
def helper():
    with drawing_helper() as started:
        if started is None:
            pytest.skip("one core: no helper is started")
        assert started.wait_until_ready()
        yield started


def test_the_helper_draws_the_same_bytes_as_this_process(helper):
    figures = _figures(6)
    shared = figure_files(figures, helper)
    assert helper.drawn, "the helper drew none of the figures"
    assert len(helper.drawn) < len(figures), "this process drew none of the figures"
    assert list(shared) == list(figures)
    assert shared == {name: both_formats(figure) for name, figure in _figures(6).items()}


def test_the_helper_draws_with_this_process_settings(helper):
    # text as <text> elements rather than paths: a setting the helper must be handed to draw as this process does
    with mpl.rc_context({"svg.fonttype": "none"}):
        shared = figure_files(_figures(4), helper)
        here = {name: both_formats(figure) for name, figure in _figures(4).items()}
    assert helper.drawn
    assert shared == here
    default = {name: both_formats(figure) for name, figure in _figures(4).items()}
    assert all(shared[name][1] != default[name][1] for name in helper.drawn)


def test_a_figure_that_fails_in_the_helper_raises_here(helper, monkeypatch):
    broken, axes = plots.new_figure(nrows=3, width=3.0, height=4.0)  # the most axes: the helper takes it first
    for ax in axes.ravel():
        ax.set_title(r"$\frac{$")  # mathtext matplotlib cannot parse fails only when drawn
    drawn_here = []

    def drawing_here(figure):
        drawn_here.append(figure)
        return both_formats(figure)

    monkeypatch.setattr(drawing, "both_formats", drawing_here)
    with pytest.raises(ValueError):
        figure_files({**_figures(4), "broken": broken}, helper)
    assert broken not in drawn_here
    assert "broken" not in helper.drawn


def test_a_helper_that_died_leaves_its_figures_to_this_process(helper):
    helper._process.kill()
    helper._process.wait()
    figures = _figures(4)
    assert figure_files(figures, helper) == {name: both_formats(figure) for name, figure in _figures(4).items()}
    assert helper.drawn == []


def _unpicklable_figure():
    figure, axes = plots.new_figure(width=3.0, height=2.0)
    axes[0, 0].plot([0, 1], [1, 0])
    axes[0, 0].yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.1f} CC"))
    return figure


def test_a_figure_that_does_not_pickle_is_drawn_here(helper):
    shared = figure_files({**_figures(4), "unpicklable": _unpicklable_figure()}, helper)
    assert helper.drawn and "unpicklable" not in helper.drawn
    assert shared == {**{name: both_formats(figure) for name, figure in _figures(4).items()},
                      "unpicklable": both_formats(_unpicklable_figure())}


def test_one_core_starts_no_helper(monkeypatch):
    monkeypatch.setattr(drawing, "usable_cpus", lambda: 1)
    with drawing_helper() as helper:
        assert helper is None
    figures = _figures(2)
    assert figure_files(figures, None) == {name: both_formats(figure) for name, figure in _figures(2).items()}


def test_a_script_without_a_main_guard_draws_in_the_helper(tmp_path):
    # The first helper was a multiprocessing "spawn" child, which runs the caller's main script again: a
    # script without `if __name__ == "__main__"` started a helper from inside the helper, which failed with a
    # traceback on the terminal, and every figure was drawn in the script's own process.
    script = tmp_path / "report.py"
    script.write_text(textwrap.dedent("""
        import matplotlib
        from analysis import plots
        from analysis.drawing import drawing_helper, figure_files
        figures = {}
        for index in range(4):
            figure, axes = plots.new_figure(width=3.0, height=2.0)
            axes[0, 0].plot([0, 1], [index, 1])
            figures[f"f{index}"] = figure
        with drawing_helper() as helper:
            assert helper.wait_until_ready()
            figure_files(figures, helper)
            print(len(helper.drawn))
    """))
    finished = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert finished.stderr == ""
    assert int(finished.stdout) > 0


def test_the_helper_starts_without_pandas():
    # The helper needs matplotlib and the project's style only: with pandas it took 160 MiB and 0.7 s to
    # start, against 95 MiB and 0.45 s without (the report's memory is the two processes' together).
    loaded = subprocess.run([sys.executable, "-c", "import sys, analysis.drawing; print(sorted(sys.modules))"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "'pandas'" not in loaded and "'matplotlib'" in loaded


def test_the_helper_is_out_of_reach_of_the_terminal_s_ctrl_c(helper):
    # the terminal sends Ctrl-C to its foreground process group: the helper is in a group (and session) of its own
    assert os.getpgid(helper._process.pid) != os.getpgid(0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Ctrl-C sent to a process group")
def test_ctrl_c_while_the_helper_starts_prints_no_traceback():
    # Ctrl-C reaches the terminal's whole foreground process group. The helper shared it: caught while importing
    # matplotlib (before it could ignore the key), it printed a traceback under the report's one-line message.
    script = textwrap.dedent("""
        import sys, time
        from analysis.drawing import drawing_helper
        try:
            with drawing_helper() as helper:
                print("started", flush=True)
                time.sleep(30)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    assert child.stdout.readline() == "started\n"
    os.killpg(child.pid, signal.SIGINT)  # as the terminal does, while the helper imports matplotlib
    _, errors = child.communicate(timeout=60)
    assert errors == "interrupted\n"

