"""What the Model view asks of the expert: the model's problems (no weights until they are
solved), what the last change of the table did to the model (data-model.md §6: dropped, new,
needing a label or a judgement), and how a model built for another table does not match the
source — with the offer to make it follow this table."""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QListWidget, QPushButton, QVBoxLayout, QWidget

PROBLEM_STYLE = ("QGroupBox { background: #fff4ce; border: 1px solid #c19c00; margin-top: 1.2em; } "
                 "QGroupBox::title { color: #7a5c00; }")
CHANGE_STYLE = ("QGroupBox { background: #eef5ff; border: 1px solid #6f9bd1; margin-top: 1.2em; } "
                "QGroupBox::title { color: #1f4e8c; }")


class StatusPanel(QWidget):
    def __init__(self, workbench, parent: QWidget | None = None):
        super().__init__(parent)
        self.workbench = workbench
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.problems_box = QGroupBox("Problems")
        self.problems_box.setStyleSheet(PROBLEM_STYLE)
        self.problem_list = QListWidget()
        self.problem_list.setMaximumHeight(110)
        QVBoxLayout(self.problems_box).addWidget(self.problem_list)
        layout.addWidget(self.problems_box)
        self.changes_box = QGroupBox("The table changed")
        self.changes_box.setObjectName("tableChanges")
        self.changes_box.setStyleSheet(CHANGE_STYLE)
        changes = QVBoxLayout(self.changes_box)
        self.change_list = QListWidget()
        self.change_list.setMaximumHeight(110)
        changes.addWidget(self.change_list)
        row = QHBoxLayout()
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.clicked.connect(self.dismiss)
        row.addStretch(1)
        row.addWidget(self.dismiss_button)
        changes.addLayout(row)
        layout.addWidget(self.changes_box)
        self.mismatch_box = QGroupBox("The model does not match the source")
        self.mismatch_box.setObjectName("mismatches")
        self.mismatch_box.setStyleSheet(PROBLEM_STYLE)
        mismatches = QVBoxLayout(self.mismatch_box)
        self.mismatch_list = QListWidget()
        self.mismatch_list.setMaximumHeight(110)
        mismatches.addWidget(self.mismatch_list)
        row = QHBoxLayout()
        self.follow_button = QPushButton("Make the model follow this table")
        self.follow_button.setToolTip("Add the source's sensitive columns and values, drop what it lacks, keep every "
                                      "judgement and label that still applies (one edit; Undo takes it back)")
        self.follow_button.clicked.connect(lambda: self.workbench.follower.follow(force=True))
        row.addStretch(1)
        row.addWidget(self.follow_button)
        mismatches.addLayout(row)
        layout.addWidget(self.mismatch_box)

    def refresh(self, problems: list[str]) -> None:
        self.problem_list.clear()
        self.problem_list.addItems(problems)
        self.problems_box.setVisible(bool(problems))
        self.problems_box.setTitle(f"Problems ({len(problems)}): the model gives no weights until they are solved"
                                   if problems else "Problems")
        follower = self.workbench.follower
        changes = follower.changes
        lines = changes.lines() if changes is not None else []
        if changes is not None and changes.adopted:
            lines.insert(0, f"the model now follows {self.workbench.model.source if self.workbench.model else ''}")
        self.change_list.clear()
        self.change_list.addItems(lines)
        self.changes_box.setVisible(bool(lines))
        self.changes_box.setTitle(f"The table changed: the model follows it ({len(lines)})")
        mismatches = follower.mismatches
        self.mismatch_list.clear()
        self.mismatch_list.addItems([("⚠ " if m.blocking else "") + str(m) for m in mismatches])
        self.mismatch_box.setVisible(bool(mismatches))
        blocking = sum(m.blocking for m in mismatches)
        self.mismatch_box.setTitle(f"The model does not match the source ({len(mismatches)}; {blocking} leave "
                                   f"sensitive values without a weight)")
        self.follow_button.setEnabled(self.workbench.table is not None and bool(self.workbench.project.roles.sa))
        self.setVisible(bool(problems or lines or mismatches))

    def dismiss(self) -> None:
        self.workbench.follower.changes = None
        self.changes_box.hide()
        self.setVisible(self.problems_box.isVisibleTo(self) or self.mismatch_box.isVisibleTo(self))
