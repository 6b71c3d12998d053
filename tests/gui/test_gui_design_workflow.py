"""What a designer expects of the Design view (issue 22 §3): a cancelled search shows
"cancelled" and the front found so far (not a failure) and stops saying it is searching;
"Save as release" puts the designed release in the window's Release chooser and the report
names it once; "Copy as command" gives the `tklscore release` line and design JSON that
evaluate the release again, with the view's very numbers."""

import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtGui import QGuiApplication

from helpers import run_cli
from paths import DATA
from tklscore.core.project import Project
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.hierarchy import load_arx_csv
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.tables.loading import load_table
from tklscore.core.tables.roles import Roles
from tklscore.gui.design.view import DesignView

DATA_ADULT = DATA / "adult"
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country"]
ADULT_SA = ["occupation", "salary-class"]


def ready(qtbot, view, timeout=60000):
    qtbot.waitUntil(lambda: view.result is not None and view.designer is not None
                    and not view.workbench.runner.current, timeout=timeout)


def settle(qtbot, view, before, timeout=30000):
    qtbot.waitUntil(lambda: view.result is not before and not view.workbench.runner.current, timeout=timeout)


@pytest.fixture
def adult_project(tmp_path, data_dir):
    """Adult (ARX's form) with its hierarchies, a weights file and a release of a filter,
    as a project the officer saved."""
    adult = data_dir / "adult"
    frame = pd.read_csv(adult / "adult_subset.csv", sep=";", dtype=str)
    rows = []
    for sa in ADULT_SA:
        values = sorted(set(frame[sa]))
        rows += [(sa, v, round(0.45 * (i + 1) / len(values), 5)) for i, v in enumerate(values)]
    weights = tmp_path / "weights.csv"
    pd.DataFrame(rows, columns=["attribute", "value", "weight"]).to_csv(weights, index=False)
    hierarchies = [load_arx_csv(adult / f"adult_hierarchy_{c}.csv", c).to_dict() for c in ADULT_QI]
    release = ReleaseDefinition("Women", "filter", expression="sex == 'Female'")
    project = Project(source_path=str(adult / "adult_subset.csv"), source_options={"delimiter": ";"},
                      roles=Roles(qi=ADULT_QI, sa=ADULT_SA), weights_path=str(weights), releases=[release],
                      current_release=release.name, settings={"design": {"hierarchies": hierarchies}})
    path = tmp_path / "adult.tklproj"
    project.save(path)
    return path


@pytest.fixture
def adult_view(qtbot, workbench, adult_project):
    view = DesignView(workbench)
    qtbot.addWidget(view)
    view.resize(1600, 1000)
    view.show()
    workbench.open_project(str(adult_project), allowed=[str(DATA_ADULT / "adult_subset.csv")])
    ready(qtbot, view)
    return view


def test_a_cancelled_search_shows_cancelled_and_the_front_found_so_far(adult_view, qtbot):
    view, workbench = adult_view, adult_view.workbench
    failures = []
    workbench.failed.connect(failures.append)
    view.k_min.setValue(5)

    def cancel_midway(percent, text):
        if text == "Searching the lattice" and percent >= 5:
            workbench.runner.cancel_all()      # what the status bar's Cancel button does

    workbench.runner.progress.connect(cancel_midway)
    view.run_suggest()
    assert "Searching" in view.suggest_message.text() and not view.suggest_button.isEnabled()
    qtbot.waitUntil(lambda: view.suggestions is not None and not workbench.runner.current, timeout=120000)
    workbench.runner.progress.disconnect(cancel_midway)
    found = view.suggestions
    assert found.cancelled and found.visited < found.lattice_size and found.evaluated <= found.visited
    message = view.suggest_message.text()
    assert "Cancelled" in message and "Searching" not in message and "failed" not in message
    assert f"Cancelled after {found.visited:,} of the lattice's {found.lattice_size:,} releases" in message
    assert failures == [] and view.suggest_button.isEnabled()
    assert view.front_table.rowCount() == len(found.front) > 0
    # the front so far: each release's figures are the designer's for its levels
    designer = ReleaseDesigner(workbench.table, workbench.project.roles, view.hierarchies)
    for candidate in found.front:
        design = view.design().with_levels(candidate.levels)
        design = type(design).from_dict({**design.to_dict(), "suppress_below": 5, "suppression_limit":
                                          view.budget.value() / 100})
        result = designer.evaluate(design, workbench.weights, measures=False)
        assert candidate.tkl_normalized == result.report.normalized_source.tkl
        assert candidate.k >= 5
    # a search run to its end afterwards is not cancelled
    view.run_suggest()
    qtbot.waitUntil(lambda: view.suggestions is not found and not workbench.runner.current, timeout=120000)
    assert not view.suggestions.cancelled and "Cancelled" not in view.suggest_message.text()
    # a suggested release loads as it was found: its levels and the suppression that made it k-anonymous
    target = next(c for c in view.suggestions.front if c.suppressed_share > 0)
    before = view.result
    view.load_candidate(view.suggestions.front.index(target))
    settle(qtbot, view, before)
    assert view.suppress_below.value() == 5 and view.evaluation.figures.k == target.k
    assert view.result.utility.loss == target.utility_loss
    assert view.result.utility.suppressed_share == target.suppressed_share
    assert view.result.report.normalized_source.tkl == target.tkl_normalized


def test_copy_as_command_reproduces_the_design_on_a_real_file(adult_view, qtbot, tmp_path, capsys):
    view = adult_view
    before = view.result
    view.sliders["age"].setValue(2)
    settle(qtbot, view, before)
    before = view.result
    view.suppress_below.setValue(3)
    settle(qtbot, view, before)
    assert view.result.transformed.design.selection.name == "Women"
    failures = []
    view.workbench.failed.connect(failures.append)
    (tmp_path / "recipe").mkdir()
    command = view.copy_as_command(str(tmp_path / "recipe"))
    assert failures == []
    assert QGuiApplication.clipboard().text() == command
    argv = shlex.split(command)
    assert argv[:3] == ["tklscore", "release", view.workbench.project.source_path]
    assert "--weights" in argv and argv[argv.index("--delimiter") + 1] == ";"
    design = json.loads((tmp_path / "recipe" / "designed-release.design.json").read_text())
    assert design["design"]["levels"]["age"] == 2 and design["design"]["selection"]["expression"] == "sex == 'Female'"
    out = run_command(capsys, argv + ["--format", "json"])
    same_numbers(out, view.result)
    assert view.export.command_dialog.command.toPlainText() == command


def run_command(capsys, argv: list[str]) -> dict:
    """The copied command line's JSON, run by the command-line interface's ``main`` (in this
    process: a new one only imported the libraries again)."""
    code, out, err = run_cli(capsys, argv[1:])
    assert code == 0, err
    return json.loads(out)


def same_numbers(out: dict, result) -> None:
    """The command's JSON carries the view's numbers, to the last digit."""
    expected = json.loads(json.dumps(result.to_json_dict()))
    for key in ("levels", "published_rows", "suppressed_rows", "scores", "normalized", "utility"):
        assert out[key] == expected[key], key
    assert out["measures"]["k"] == result.measures["k"] and out["measures"]["t"] == result.measures["t"]


@pytest.fixture
def window(qtbot, thesis_window):
    """The thesis example in the main window, at the Design view."""
    thesis_window.show_view("design")
    ready(qtbot, thesis_window.views["design"])
    return thesis_window


def chooser_items(win) -> list[str]:
    return [win.release_chooser.itemText(i) for i in range(win.release_chooser.count())]


def test_save_as_release_puts_it_in_the_release_chooser_and_the_report_names_it_once(window, qtbot, tmp_path):
    win, view, workbench = window, window.views["design"], window.workbench
    before = view.result
    view.sliders["City"].setValue(1)
    settle(qtbot, view, before)
    assert view.save_as_release("Alberta")
    assert chooser_items(win) == ["Scenario 1", "Scenario 2", "Alberta"]
    assert workbench.release_names()[-1] == "Alberta"
    assert view.design().name == "Alberta"          # the design on screen is the release saved
    with pytest.raises(Exception, match="already a release named 'Alberta'"):
        workbench.add_release(ReleaseDefinition("Alberta", "ids", ids=("3",)))
    failures = []
    workbench.failed.connect(failures.append)
    assert not view.save_as_release("Scenario 2")   # a defined release keeps its name
    assert "already a release named 'Scenario 2'" in failures[-1]
    # the design view's report: the release is named once (not also as "designed release")
    out = tmp_path / "design.html"
    assert view.export_report(str(out))
    qtbot.waitUntil(out.exists, timeout=30000)
    text = out.read_text(encoding="utf-8")
    assert "designed release" not in text
    compared = text[text.index("Candidate releases side by side"):]
    assert len(re.findall(r"<td[^>]*>Alberta</td>", compared)) == 1
    assert "tklscore release" in text and "Alberta.design.json" in text
    # chosen in the header, the designed release is current: its scores, its design on the sliders
    view.sliders["City"].setValue(0)
    settle(qtbot, view, view.result)
    win.release_chooser.activated.emit(chooser_items(win).index("Alberta"))
    assert workbench.project.current_release == "Alberta" and workbench.current_release() is None
    assert workbench.current_report() is workbench.reports["Alberta"]
    qtbot.waitUntil(lambda: view.sliders["City"].value() == 1 and view.result.transformed.design.level("City") == 1
                    and not workbench.runner.current, timeout=30000)
    assert view.result.transformed.design.selection.name == "Scenario 1"
    assert view.result.report.scores == workbench.reports["Alberta"].scores
    for key in ("release", "risk", "scores"):          # every officer's view shows it without an error
        win.show_view(key)
        qtbot.waitUntil(lambda: not workbench.runner.current, timeout=30000)
    assert "Alberta" in win.views["release"].release_info.text()
    assert failures[1:] == []
    workbench.remove_release("Alberta")
    assert "Alberta" not in chooser_items(win) and "Alberta" not in workbench.reports


def test_copy_as_command_on_the_thesis_example_writes_what_it_reads(window, qtbot, tmp_path, capsys):
    view = window.views["design"]
    before = view.result
    view.sliders["Age"].setValue(1)
    settle(qtbot, view, before)
    view.set_perturbed("Medication", None)
    before = view.result
    view.suppress_below.setValue(2)
    view.budget.setValue(50.0)
    settle(qtbot, view, before)
    command = view.copy_as_command(str(tmp_path))
    argv = shlex.split(command)
    # the built-in source and the model inside the project are written beside the design JSON
    assert argv[2] == str(tmp_path / "table_3_1.csv") and argv[argv.index("--model") + 1] == str(tmp_path / "model.ttl")
    assert len(load_table(tmp_path / "table_3_1.csv")) == 7
    same_numbers(run_command(capsys, argv + ["--format", "json"]), view.result)
    code, text, err = run_cli(capsys, argv[1:])    # the very line copied, as it is
    assert code == 0, err
    assert f"{view.result.report.scores.tkl:.5f}" in text


def test_a_cancelled_evaluation_says_the_figures_are_the_last_designs(qtbot):
    from tklscore.core.release.session import engine_note
    from tklscore.gui.design.results_panel import NOTHING_YET, ResultsPanel

    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.show_engine_note(engine_note("DuckDB", 1_000_000))
    panel.evaluating()
    assert "Evaluating the new design" in panel.engine_note.text()
    panel.stopped()           # the first design's evaluation: no figures are shown
    assert panel.headline.text() == NOTHING_YET and "Evaluating" not in panel.engine_note.text()
    panel.shown = True        # an earlier design's figures on screen
    panel.evaluating()
    panel.stopped()
    note = panel.engine_note.text()
    assert "Evaluating" not in note and note.endswith("the figures below are the last design's.")
    panel.evaluating()
    assert "cancelled" not in panel.engine_note.text() and panel.engine_note.text().count("Evaluating") == 1
    memory = ResultsPanel()
    qtbot.addWidget(memory)
    memory.say("4 of 4 records published")
    memory.shown = True
    memory.stopped()
    memory.stopped()
    assert memory.headline.text().count("cancelled") == 1
