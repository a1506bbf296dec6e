"""Extreme sizes: a billion-game ``--aggregate-only`` run starts, shows a sane ETA and keeps flat
memory; zero-sized options are one-line errors; an absurd ``--workers`` is clamped with a message."""

from __future__ import annotations

import fcntl
import os
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from sim.cli import main
from sim.dispatch import usable_cpus

ROOT = Path(__file__).resolve().parents[1]
BILLION = 1_000_000_000


def rss_kib(pid: int) -> int:
    """Resident memory of a process (VmRSS in /proc/PID/status), in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)[1])


def seconds(interval: str) -> int:
    """A tqdm interval ("MM:SS", "H:MM:SS" or "Nd H:MM:SS" / "Nd, H:MM:SS") in seconds."""
    days = re.match(r"(\d+)d,? ", interval)
    clock = interval[days.end():] if days else interval
    total = 0
    for part in clock.split(":"):
        total = total * 60 + int(part)
    return total + (int(days[1]) * 86_400 if days else 0)


def _interruptible() -> None:
    """In the child: take Ctrl-C even when pytest runs as a background job (which ignores SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_a_billion_aggregate_only_games_start_with_a_sane_eta_and_flat_memory(tmp_path):
    master, terminal = os.openpty()  # tqdm draws its bar only on a terminal
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 160, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": "1"}
    run = subprocess.Popen([sys.executable, "-m", "sim.cli", "simulate", "--seats", "luna:5", "--games", str(BILLION),
                            "--aggregate-only", "--out", str(tmp_path / "big")],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=terminal, env=env,
                           preexec_fn=_interruptible)
    os.close(terminal)
    screen: list[str] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the process ended and closed the terminal
                return
            if not chunk:
                return
            screen.append(chunk.decode(errors="replace"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    bars = re.compile(rf"(\d+)/{BILLION} \[([^<\]]+)<([^,\]]+),")  # games done/total [elapsed<remaining,
    try:
        deadline = time.monotonic() + 600  # a cold numba cache compiles first
        while time.monotonic() < deadline and run.poll() is None:
            found = [match for match in bars.finditer("".join(screen)) if int(match[1]) > 0]
            if found:
                break
            time.sleep(0.5)
        assert found, f"no progress after 600 s: {''.join(screen)[-2000:]}"
        first = rss_kib(run.pid)
        time.sleep(20)
        second = rss_kib(run.pid)
        assert run.poll() is None, "".join(screen)[-2000:]
        last = list(bars.finditer("".join(screen)))[-1]
        remaining = seconds(last[3])
        assert 60 <= remaining <= 7 * 86_400, last[0]  # minutes to days: a rate was measured, not guessed
        assert second - first < 64 * 1024, (first, second)  # flat: the summaries do not grow with games
        run.send_signal(signal.SIGINT)  # Ctrl-C: exit 130 and no half-written run directory
        assert run.wait(timeout=120) == 130
        assert list(tmp_path.iterdir()) == []
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        reader.join(timeout=5)
        os.close(master)


@pytest.mark.parametrize(("option", "value"), [("--games", "0"), ("--chunk-size", "0"), ("--workers", "0"),
                                               ("--games", "-5"), ("--workers", "-1")])
def test_zero_sizes_are_one_line_errors(tmp_path, capsys, option, value):
    arguments = {"--games": "10", "--chunk-size": "5", "--workers": "1", option: value}
    words = [word for pair in arguments.items() for word in pair]
    assert main(["simulate", "--seats", "luna:2", "--engine", "reference", "--quiet", "--out", str(tmp_path / "run"),
                 *words]) == 2
    err = capsys.readouterr().err
    assert err == f"luna-balance: {option}: must be at least 1, got {value}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["study", "--games", "5"], ["levels", "--games", "5"]])
def test_zero_workers_is_a_one_line_error_for_every_command(tmp_path, capsys, command):
    assert main([*command, "--workers", "0", "--engine", "reference", "--quiet"]) == 2
    assert capsys.readouterr().err == "luna-balance: --workers: must be at least 1, got 0\n"


@pytest.mark.parametrize("option", [["--workers", "2"], ["--chunk-size", "100"]])
def test_parity_offers_no_option_it_would_ignore(capsys, option):
    """parity plays its searches in this process: it once accepted --workers and --chunk-size and ignored them."""
    with pytest.raises(SystemExit) as stop:  # argparse's own refusal, one line and exit 2
        main(["parity", "--profile", "balanced", "--games", "5", *option, "--quiet"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert option[0] in err and err.count("\n") == 1


def test_absurd_workers_are_clamped_to_the_cpus_with_a_message(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--seats", "luna:2", "--games", "6", "--engine", "reference", "--quiet", "--out",
                 str(out), "--workers", "10000"]) == 0
    cpus = usable_cpus()
    assert capsys.readouterr().err == (f"luna-balance: --workers: 10000 is more than the {cpus} usable CPU(s); "
                                       f"using {cpus}\n")
    assert f'"workers": {cpus}' in (out / "manifest.json").read_text()
