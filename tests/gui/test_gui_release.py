"""The Release view, driven through its real widgets (pytest-qt, offscreen)."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QInputDialog, QMessageBox

from tklscore.core.examples import TABLE_3_1, TABLE_3_1_COLUMNS, write_thesis_example
from tklscore.core.tables.roles import Role, Roles
from tklscore.core.tables.loading import Table
from tklscore.gui.release.view import PublishedFileDialog, ReleaseView

TIMEOUT = 10_000


@pytest.fixture
def view(qtbot, workbench):
    widget = ReleaseView(workbench)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def thesis(qtbot, workbench, view, tmp_path):
    """The thesis example scored with the weights of Table 4.2 (tkl = 4.98258 for Scenario 1)."""
    write_thesis_example(tmp_path)
    workbench.load_example("thesis")
    workbench.use_weights_file(str(tmp_path / "weights_table_4_2.csv"))
    qtbot.waitUntil(lambda: workbench.table is not None and len(workbench.reports) == 2, timeout=TIMEOUT)
    return view


class Answers:
    """Stand-ins for QInputDialog's static methods: given answers, or the dialog's default text."""

    def __init__(self, monkeypatch, texts=(), multiline=()):
        self.texts, self.multiline, self.asked = list(texts), list(multiline), []
        monkeypatch.setattr(QInputDialog, "getText", staticmethod(self.get_text))
        monkeypatch.setattr(QInputDialog, "getMultiLineText", staticmethod(self.get_multiline))

    def get_text(self, parent, title, label, echo=None, text="", *args, **kwargs):
        self.asked.append((title, label, text))
        return (self.texts.pop(0) if self.texts else text), True

    def get_multiline(self, parent, title, label, text="", *args, **kwargs):
        self.asked.append((title, label, text))
        return self.multiline.pop(0), True


def choose_file(monkeypatch, path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *args, **kwargs: (str(path), "")))


def click(qtbot, button) -> None:
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def click_row(qtbot, view, row, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    table = view.table_view
    rect = table.visualRect(view.frame_model.index(row, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


def wait_report(qtbot, workbench, name):
    qtbot.waitUntil(lambda: name in workbench.reports, timeout=TIMEOUT)
    return workbench.reports[name]


def release_ids(workbench, name) -> list[str]:
    return [str(i) for i in workbench.resolved[workbench.project.release(name)].ids]


def table_texts(widget, column) -> list[str]:
    """The texts of a column of a table widget, or of a table view over a model."""
    if hasattr(widget, "item"):
        return [widget.item(row, column).text() for row in range(widget.rowCount())]
    model = widget.model()
    return [model.index(row, column).data() for row in range(model.rowCount())]


# ---------------------------------------------------------------------------- guesses


# ---------------------------------------------------------------------------- the thesis example


def test_thesis_example_shows_rows_roles_and_releases(thesis):
    view = thesis
    assert view.frame_model.rowCount() == 7
    assert view.frame_model.columnCount() == len(TABLE_3_1_COLUMNS)
    assert "thesis" in view.path_edit.text()
    assert view.role_combo("id").currentData() == Role.IDENTIFIER
    assert view.role_combo("City").currentData() == Role.QUASI_IDENTIFIER
    assert view.role_combo("Disease").currentData() == Role.SENSITIVE
    assert view.kind_combo("Age").currentText() == "continuous"
    assert view.kind_combo("Disease").currentText() == "categorical"
    assert not view.kind_combo("City").isEnabled()
    assert view.roles_from_form() == view.workbench.project.roles
    assert table_texts(view.releases_table, 0) == ["Scenario 1", "Scenario 2"]
    assert table_texts(view.releases_table, 2) == ["4", "7"]
    assert table_texts(view.releases_table, 4)[0] == "4.98258"
    assert "4 of 7" in view.release_info.text()
    assert view.unlocated_box.isHidden()


def test_release_from_selected_rows_scores_like_the_thesis(qtbot, thesis, monkeypatch):
    view, workbench = thesis, thesis.workbench
    answers = Answers(monkeypatch)  # accept the proposed name
    click_row(qtbot, view, 3)
    click_row(qtbot, view, 6, Qt.KeyboardModifier.ShiftModifier)
    assert view.selected_positions() == [3, 4, 5, 6]
    click(qtbot, view.from_selection_button)
    assert answers.asked[0][2] == "Selection 1"
    report = wait_report(qtbot, workbench, "Selection 1")
    assert workbench.project.current_release == "Selection 1"
    assert workbench.project.release("Selection 1").ids == ("3", "4", "5", "6")
    assert round(report.scores.tkl, 5) == 4.98258
    qtbot.waitUntil(lambda: "4.98258" in view.release_info.text(), timeout=TIMEOUT)
    assert "Selection 1" in table_texts(view.releases_table, 0)


def test_selection_follows_sorting(qtbot, thesis, monkeypatch):
    view, workbench = thesis, thesis.workbench
    Answers(monkeypatch, texts=["Oldest"])
    view.table_view.sortByColumn(TABLE_3_1_COLUMNS.index("Age"), Qt.SortOrder.DescendingOrder)
    click_row(qtbot, view, 0)  # the oldest: id 4, age 70
    click(qtbot, view.from_selection_button)
    wait_report(qtbot, workbench, "Oldest")
    assert workbench.project.release("Oldest").ids == ("4",)


def test_no_selection_is_a_specific_error(qtbot, thesis):
    with qtbot.waitSignal(thesis.workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, thesis.from_selection_button)
    assert "no rows are selected" in blocker.args[0]


def test_filter_release_gives_the_same_records(qtbot, thesis, monkeypatch):
    view, workbench = thesis, thesis.workbench
    answers = Answers(monkeypatch, texts=["Edmonton"], multiline=["City == 'Edmonton'"])
    click(qtbot, view.filter_button)
    assert "backticks" in answers.asked[0][1] and "`Initial Diagnosis`" in answers.asked[0][1]
    report = wait_report(qtbot, workbench, "Edmonton")
    assert workbench.project.release("Edmonton").kind == "filter"
    assert release_ids(workbench, "Edmonton") == ["3", "4", "5", "6"]
    assert round(report.scores.tkl, 5) == 4.98258


def test_bad_filter_is_a_specific_error(qtbot, thesis, monkeypatch):
    answers = Answers(monkeypatch, multiline=["Town == 'Edmonton'", ""])   # refused, then cancelled
    with qtbot.waitSignal(thesis.workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, thesis.filter_button)
    assert "'Town' is not a column of the source" in blocker.args[0]
    # the refused filter is offered again as written, not lost
    filters = [text for title, label, text in answers.asked if title == "Release by a filter"]
    assert filters == ["", "Town == 'Edmonton'"]
    assert thesis.workbench.release_names() == ["Scenario 1", "Scenario 2"]


def test_published_file_with_a_foreign_record_lists_it(qtbot, thesis, monkeypatch, tmp_path):
    view, workbench = thesis, thesis.workbench
    published = tmp_path / "published.csv"
    rows = [TABLE_3_1_COLUMNS] + [r for r in TABLE_3_1 if r[0] in ("3", "4")] + \
        [["99", "Nurse", "Banff", "Male", "Flu", "Paracetamol", "40", "Flu"]]
    published.write_text("\n".join(",".join(r) for r in rows) + "\n", encoding="utf-8")
    choose_file(monkeypatch, published)
    monkeypatch.setattr(PublishedFileDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    answers = Answers(monkeypatch)
    click(qtbot, view.from_file_button)
    assert answers.asked[0][2] == "published"
    wait_report(qtbot, workbench, "published")
    qtbot.waitUntil(lambda: view.unlocated_box.isVisible(), timeout=TIMEOUT)
    assert view.unlocated_box.items() == ["id '99'"]
    assert "not in the source" in view.unlocated_box.label.text()
    row = table_texts(view.releases_table, 0).index("published")
    assert table_texts(view.releases_table, 2)[row] == "2"
    assert table_texts(view.releases_table, 3)[row] == "1"
    # switching to a release without strangers hides the box; back again shows it
    view.releases_table.selectRow(0)
    assert workbench.project.current_release == "Scenario 1"
    assert view.unlocated_box.isHidden()
    view.releases_table.selectRow(row)
    assert view.unlocated_box.isVisible()


def test_ids_release_rename_and_remove(qtbot, thesis, monkeypatch):
    view, workbench = thesis, thesis.workbench
    Answers(monkeypatch, texts=["Few", "Fewer"], multiline=["0, 1,\n2, 42"])
    click(qtbot, view.ids_button)
    wait_report(qtbot, workbench, "Few")
    qtbot.waitUntil(lambda: view.unlocated_box.isVisible(), timeout=TIMEOUT)
    assert view.unlocated_box.items() == ["id '42'"]
    click(qtbot, view.rename_button)
    assert workbench.release_names() == ["Scenario 1", "Scenario 2", "Fewer"]
    assert workbench.project.current_release == "Fewer"
    wait_report(qtbot, workbench, "Fewer")
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
    click(qtbot, view.remove_button)
    assert workbench.release_names() == ["Scenario 1", "Scenario 2"]
    assert table_texts(view.releases_table, 0) == ["Scenario 1", "Scenario 2"]


def test_rename_to_an_existing_name_is_refused(qtbot, thesis, monkeypatch):
    Answers(monkeypatch, texts=["Scenario 2"])
    with qtbot.waitSignal(thesis.workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, thesis.rename_button)
    assert "already a release named 'Scenario 2'" in blocker.args[0]


def test_changing_a_role_and_applying_rescores(qtbot, thesis):
    view, workbench = thesis, thesis.workbench
    before = workbench.reports["Scenario 1"].scores.tkl
    view.role_combo("Age").setCurrentIndex(view.role_combo("Age").findData(Role.INSENSITIVE))
    assert not view.kind_combo("Age").isEnabled()
    assert "Apply roles" in view.roles_hint.text()
    with qtbot.waitSignal(workbench.scoresChanged, timeout=TIMEOUT):
        click(qtbot, view.apply_roles_button)
    assert "Age" not in workbench.project.roles.sa and not workbench.project.roles.continuous
    report = wait_report(qtbot, workbench, "Scenario 1")
    assert report.scores.tkl != pytest.approx(before)
    assert view.role_combo("Age").currentData() == Role.INSENSITIVE  # the form shows the roles in use


def test_text_in_a_continuous_column_is_a_specific_error(qtbot, thesis):
    view, workbench = thesis, thesis.workbench
    roles = workbench.project.roles
    view.role_combo("Job").setCurrentIndex(view.role_combo("Job").findData(Role.SENSITIVE))
    view.kind_combo("Job").setCurrentIndex(1)
    with qtbot.waitSignal(workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, view.apply_roles_button)
    assert "column 'Job'" in blocker.args[0] and "'Lawyer', which is not a number" in blocker.args[0]
    assert workbench.project.roles == roles  # nothing changed


def test_two_identifiers_are_refused(qtbot, thesis):
    view = thesis
    view.role_combo("Job").setCurrentIndex(view.role_combo("Job").findData(Role.IDENTIFIER))
    with qtbot.waitSignal(view.workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, view.apply_roles_button)
    assert "only one column can be the identifier" in blocker.args[0]


# ---------------------------------------------------------------------------- files


def test_open_csv_shows_detected_format_guesses_roles_and_reloads(qtbot, view, workbench, monkeypatch, tmp_path):
    path = tmp_path / "source.csv"
    lines = ["id;Job;Städt;Age"] + [f"{i};Lawyer;Zürich;{20 + i}" for i in range(25)]
    path.write_bytes("\n".join(lines).encode("cp1252"))
    choose_file(monkeypatch, path)
    click(qtbot, view.open_button)
    qtbot.waitUntil(lambda: workbench.table is not None, timeout=TIMEOUT)
    assert view.frame_model.rowCount() == 25
    assert view.chosen_delimiter() == ";"
    assert view.encoding_combo.currentText() == "cp1252"
    assert "detected" in view.detected_label.text()
    assert view.role_combo("id").currentData() == Role.IDENTIFIER
    assert view.role_combo("Age").currentData() == Role.QUASI_IDENTIFIER  # its name says age
    assert view.role_combo("Job").currentData() == Role.QUASI_IDENTIFIER
    assert view.role_combo("Städt").currentData() == Role.INSENSITIVE
    assert "guess" in view.roles_hint.text()
    assert view.roles_table.item(view.roles._roles_row("Age"), 4).text().startswith("guess: its name says age")
    # the user overrides the encoding (wrongly) and reloads: the column names change, as they should
    view.encoding_combo.setCurrentText("utf-8")
    with qtbot.waitSignal(workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, view.reload_button)
    assert "cannot be decoded as utf-8" in blocker.args[0]
    assert workbench.project.source_options == {"delimiter": ";", "encoding": "utf-8"}
    assert view.encoding_combo.currentText() == "utf-8"  # the form keeps what the user chose
    assert "could not be read" in view.detected_label.text()
    view.encoding_combo.setCurrentText("latin-1")
    old = workbench.table
    click(qtbot, view.reload_button)
    qtbot.waitUntil(lambda: workbench.table is not old, timeout=TIMEOUT)
    assert "as given" in view.detected_label.text()
    assert view.encoding_combo.currentText() == "latin-1"
    # confirming the roles with a quasi-identifier scores nothing yet (no weights) but keeps them
    view.role_combo("Age").setCurrentIndex(view.role_combo("Age").findData(Role.SENSITIVE))
    assert view.roles_table.item(view.roles._roles_row("Age"), 4).text() == ""  # chosen, no longer a guess
    view.kind_combo("Age").setCurrentIndex(1)
    click(qtbot, view.apply_roles_button)
    assert workbench.project.roles == Roles(qi=["Job"], sa=["Age"], continuous=["Age"], identifier="id")
    assert "guess" not in view.roles_hint.text()


def test_releases_without_scores_still_show_unlocated_records(qtbot, view, workbench, monkeypatch, tmp_path):
    path = tmp_path / "source.tsv"
    path.write_text("\n".join("\t".join(r) for r in [TABLE_3_1_COLUMNS] + TABLE_3_1) + "\n", encoding="utf-8")
    choose_file(monkeypatch, path)
    click(qtbot, view.open_button)
    qtbot.waitUntil(lambda: workbench.table is not None, timeout=TIMEOUT)
    assert view.chosen_delimiter() == "\t"
    assert "Tab" in view.detected_label.text()
    Answers(monkeypatch, texts=["Some"], multiline=["3, 4, 77"])
    click(qtbot, view.ids_button)
    assert view.unlocated_box.isVisible() and view.unlocated_box.items() == ["id '77'"]
    assert "2 of 7" in view.release_info.text()


def test_an_empty_file_is_a_specific_error(qtbot, view, workbench, monkeypatch, tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("", encoding="utf-8")
    choose_file(monkeypatch, path)
    with qtbot.waitSignal(workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, view.open_button)
    assert blocker.args[0] == f"{path}: the file is empty"
    assert view.path_edit.text() == str(path)  # the form shows which file failed, for a Reload


def test_errors_go_through_the_one_guard_to_a_dialog(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from tklscore.gui.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    release, scores = window.views["release"], window.views["scores"]
    assert not release.release_from_selection()
    assert not scores._guard(window.workbench.set_x, 0.5)
    assert not release.guard(open, str(tmp_path / "missing.csv"))
    texts = [box.text() for box in window.findChildren(QMessageBox, "errorDialog")]
    assert texts == ["open a source table first", "column 'x': x = 0.5 is not allowed; M-Score's x must be at least 1 (or inf)",
                     f"{tmp_path / 'missing.csv'}: No such file or directory"]


def test_excel_sheet_is_chosen_and_reloaded(qtbot, view, workbench, monkeypatch, tmp_path):
    path = tmp_path / "source.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"id": ["1", "2"], "City": ["A", "B"]}).to_excel(writer, sheet_name="first", index=False)
        pd.DataFrame({"key": ["7", "8", "9"], "Town": ["C", "D", "E"]}).to_excel(writer, sheet_name="second",
                                                                               index=False)
    choose_file(monkeypatch, path)
    click(qtbot, view.open_button)
    qtbot.waitUntil(lambda: workbench.table is not None, timeout=TIMEOUT)
    assert view.sheet_edit.isEnabled() and not view.delimiter_combo.isEnabled()
    assert view.frame_model.rowCount() == 2
    view.sheet_edit.setText("second")
    old = workbench.table
    click(qtbot, view.reload_button)
    qtbot.waitUntil(lambda: workbench.table is not old, timeout=TIMEOUT)
    assert list(workbench.table.columns) == ["key", "Town"] and view.frame_model.rowCount() == 3
    assert view.role_combo("key").currentData() == Role.IDENTIFIER
    assert workbench.project.source_options == {"sheet": "second"}


def test_a_published_file_shows_how_it_is_read_and_can_be_read_otherwise(qtbot, thesis, monkeypatch, tmp_path):
    view, workbench = thesis, thesis.workbench
    published = tmp_path / "published.csv"
    rows = [TABLE_3_1_COLUMNS] + [r for r in TABLE_3_1 if r[0] in ("3", "4")]
    published.write_bytes(("\n".join(";".join(r) for r in rows) + "\n").encode("cp1252"))
    dialog = PublishedFileDialog(str(published), ";", "utf-8", view)
    qtbot.addWidget(dialog)
    assert dialog.preview_model.rowCount() == 2 and dialog.preview_model.columnCount() == 8
    assert dialog.options() == {}
    dialog.delimiter_combo.setCurrentIndex(dialog.delimiter_combo.findData(","))
    assert dialog.preview_model.columnCount() == 1  # the preview shows the wrong choice at once
    assert dialog.options() == {"delimiter": ","}
    dialog.encoding_combo.setCurrentText("no-such-encoding")
    assert "Cannot be read" in dialog.problem.text()
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    # through the view: the user picks the file and keeps a chosen encoding; the release reads it so
    choose_file(monkeypatch, published)

    def accept_with_latin1(self):
        self.encoding_combo.setCurrentText("latin-1")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(PublishedFileDialog, "exec", accept_with_latin1)
    Answers(monkeypatch)
    click(qtbot, view.from_file_button)
    definition = workbench.project.releases[-1]
    assert definition.kind == "file" and definition.options == {"encoding": "latin-1"}
    wait_report(qtbot, workbench, definition.name)
    assert workbench.reports[definition.name].published_rows == 2
    row = table_texts(view.releases_table, 0).index(definition.name)
    assert "latin-1" in table_texts(view.releases_table, 1)[row]
