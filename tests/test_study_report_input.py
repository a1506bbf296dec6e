"""``luna-balance report`` on a study file edited by hand: one line, never a traceback."""

from __future__ import annotations

import json

from analysis.study.plan import STUDY_FILE, plan_study
from sim.cli import main


def test_report_of_a_study_file_with_no_parts_is_one_line(tmp_path, capsys):
    # bug: KeyError: 'kind' traceback from the report's tables (analysis/study/summary_report.py)
    study = tmp_path / "S"
    study.mkdir()
    plan = plan_study("S", 5, 2026, [4], "reference", profiles=["balanced"]).to_json()
    (study / STUDY_FILE).write_text(json.dumps({**plan, "parts": []}))
    assert main(["report", str(study)]) == 2
    assert capsys.readouterr().err == (f"luna-balance: {study / STUDY_FILE}: malformed study file: parts: the list is "
                                       "empty\n")


def test_report_beside_a_running_study_names_it(tmp_path, capsys):
    # a QA pass: `report` on a study still playing said "N part(s) not finished ... rerun: luna-balance study", and
    # during the study's own report step wrote a second report into the folder at the same time
    from analysis.folder_lock import folder_lock

    study = tmp_path / "S"
    study.mkdir()
    (study / STUDY_FILE).write_text(json.dumps(plan_study("S", 5, 2026, [4], "reference",
                                                          profiles=["balanced"]).to_json()))
    before = sorted(path.name for path in study.iterdir())
    with folder_lock(study):  # as the study's process holds it while it plays (flock: per open, so another here)
        assert main(["report", str(study)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"luna-balance: {study}: another study is running in this directory (pid ") and \
            err.count("\n") == 1, err
    assert sorted(path.name for path in study.iterdir()) == before
