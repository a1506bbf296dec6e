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
