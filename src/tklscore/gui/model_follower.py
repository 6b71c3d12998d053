"""The tkl-Data Model follows its table (data-model.md §6, issue 20 "Follow the table"), and a
model built for another table is checked against the source, not refused.

When the source or its roles change, a model built for this table (``model.source`` is the
source's file name) is brought in line by :func:`core...table_sync.follow_table` as one
undoable edit ("Follow the table: …"), keeping every judgement and label that still applies;
what changed and what now needs a label, a class or a judgement is kept in ``changes``. Any
other model is checked (:func:`core...check.check_model`) and its mismatches kept in
``mismatches``; the Model view lists both and offers to make a foreign model follow.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from tklscore.core.errors import InputError
from tklscore.core.model.data_model.building import source_name
from tklscore.core.model.data_model.check import Mismatch, check_model
from tklscore.core.model.data_model.table_sync import TableChanges, follow_table
from tklscore.core.model.vocabulary import SHIPPED, Vocabulary


class ModelFollower(QObject):
    checked = Signal()   # ``changes`` or ``mismatches`` are new

    def __init__(self, workbench):
        super().__init__(workbench)
        self.workbench = workbench
        self.vocabulary: Vocabulary | None = None   # the Model view's vocabulary, for a model without a shipped one
        self.changes: TableChanges | None = None
        self.mismatches: list[Mismatch] = []
        self.problem: str | None = None
        self._checked_key = None
        workbench.sourceChanged.connect(self.follow)
        workbench.modelChanged.connect(self.check)

    def belongs(self) -> bool:
        """Whether the model was built for the loaded table (so it follows it)."""
        workbench = self.workbench
        return (workbench.model is not None and workbench.table is not None
                and workbench.model.source == source_name(workbench.table))

    def vocabulary_of(self, model) -> Vocabulary | None:
        if model is not None and model.vocabulary in SHIPPED:
            return Vocabulary.shipped(model.vocabulary)
        return self.vocabulary

    def follow(self, force: bool = False) -> TableChanges | None:
        """Bring a model built for this table in line with it (``force``: any model, which then
        belongs to this table); else check it."""
        workbench = self.workbench
        roles = workbench.project.roles
        if workbench.model is None or workbench.table is None or not roles.sa or not (force or self.belongs()):
            self.check()
            return None
        table, vocabulary, name = workbench.table, self.vocabulary_of(workbench.model), source_name(workbench.table)

        def change(model):
            changes = follow_table(model, table, roles, vocabulary)
            changes.adopted = model.source != name
            model.source = name
            return changes

        try:
            changes = workbench.edit_model(f"Follow the table {name}", change,
                                           keep=lambda c: c.changed or c.adopted)
        except InputError as error:
            self.problem = f"The model could not follow the table: {error}"
            workbench.failed.emit(self.problem)
            self.check()
            return None
        self.problem = None
        if changes.changed or force:
            self.changes = changes
            summary = "; ".join(changes.lines()[:3])
            workbench.status.emit(f"The tkl-Data Model follows {name}" + (f": {summary}" if summary else ""))
        self.check()
        self.checked.emit()   # the changes are new even when the mismatches were checked during the edit
        return changes

    def check(self) -> None:
        """The model's mismatches with the source (cached while neither changes structurally)."""
        workbench = self.workbench
        model, roles = workbench.model, workbench.project.roles
        key = None if model is None else (id(workbench.table), id(workbench.source_summary), roles,
                                           model.nodes.identity, model.nodes.version)
        if key == self._checked_key:
            return
        self._checked_key = key
        if model is None or (workbench.table is None and workbench.source_summary is None) or not roles.sa:
            self.mismatches = []
        elif workbench.table is not None:
            self.mismatches = check_model(model, workbench.table, roles.sa, roles.continuous)
        else:
            self.mismatches = check_model(model, None, roles.sa, roles.continuous,
                                          columns=workbench.source_summary.columns)
        self.checked.emit()
