"""The Release view: the privacy officer's source table, its columns' roles, and the
candidate releases (published tables) to be scored — three panels (``source_panel.py``,
``roles_panel.py``, ``releases_panel.py``) over one Workbench.

Everything that can fail runs through the one error guard (:mod:`tklscore.gui.guard`): the
message goes to ``workbench.failed``, which the main window shows as a dialog.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from tklscore.gui.guard import run_guarded
from tklscore.gui.release.published_file_dialog import PublishedFileDialog
from tklscore.gui.release.releases_panel import ReleasesPanel, WarningBox
from tklscore.gui.release.roles_panel import RolesPanel
from tklscore.gui.release.source_panel import SourcePanel


class ReleaseView(QWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.source = SourcePanel(workbench, self.guard)
        self.roles = RolesPanel(workbench, self.guard)
        self.releases = ReleasesPanel(workbench, self.guard, self.source)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.source)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.roles)
        right.addWidget(self.releases)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        # the roles and the releases (with their counts and scores) whole beside the source at 1600 px
        splitter.setSizes([880, 700])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

        # the panels' parts that the application and its tests work with
        for name in ("path_edit", "open_button", "delimiter_combo", "encoding_combo", "sheet_edit", "reload_button",
                     "detected_label", "frame_model", "table_view", "open_source_dialog", "open_source",
                     "reload_source", "chosen_delimiter", "selected_positions"):
            setattr(self, name, getattr(self.source, name))
        for name in ("roles_table", "roles_hint", "apply_roles_button", "role_combo", "kind_combo",
                     "roles_from_form", "apply_roles"):
            setattr(self, name, getattr(self.roles, name))
        for name in ("releases_table", "release_info", "unlocated_box", "from_selection_button", "from_file_button",
                     "filter_button", "ids_button", "rename_button", "remove_button", "release_from_selection",
                     "release_from_file", "release_from_filter", "release_from_ids", "rename_release",
                     "remove_release", "selected_release"):
            setattr(self, name, getattr(self.releases, name))

        workbench.sourceChanged.connect(self._on_source_changed)
        workbench.releasesChanged.connect(self.releases.refresh)
        workbench.scoresChanged.connect(self.releases.refresh)
        workbench.failed.connect(lambda _message: self.source._fill_source_form())  # e.g. show the failed file
        self._on_source_changed()

    def guard(self, function, *args) -> bool:
        return run_guarded(self.workbench.failed.emit, function, *args)

    def _on_source_changed(self) -> None:
        if self.source.show_table():
            self.releases._fallback.clear()
        self.roles.fill_roles()
        self.releases.refresh()


__all__ = ["PublishedFileDialog", "ReleaseView", "WarningBox"]
