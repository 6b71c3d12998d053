"""The workbench's files in the application's data folder: the recovery copies (an
unsaved project written in the background every 30 s — the real file is only written on
save — listed and reopened after a session that ended with unsaved changes) and, per
project file, the files outside its folder that the user allowed or chose
(:func:`tklscore.core.project.check_paths` asks before reading others). A part of
:class:`~tklscore.gui.workbench.Workbench`."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
from pathlib import Path

from PySide6.QtCore import QStandardPaths

from tklscore.core.errors import InputError
from tklscore.core.project import Project
from tklscore.gui.tasks import SAVE, TaskControl

AUTOSAVE_MS = 30_000


class Recovery:
    """The recovery verbs of the workbench (mixed into it; it writes on the save lane)."""

    _autosaving = False   # a recovery copy is being written

    def _recovery_path(self) -> Path:
        folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
                      or Path.home() / ".tklscore")
        folder.mkdir(parents=True, exist_ok=True)
        if not self.project_path:
            return folder / "recovery-untitled.tklproj"
        # keyed by the full path: two projects with the same file name keep their own copies
        path = Path(self.project_path).resolve()
        key = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:12]
        return folder / f"recovery-{path.stem}-{key}{path.suffix or '.tklproj'}"

    def autosave(self) -> Path | None:
        """Write a recovery copy of an unsaved project (the real file is only written on save)
        in the background: the UI thread takes a snapshot of the project and the model, the
        save lane serialises and writes it atomically. Returns the copy's path (None: nothing
        to save, or a copy is being written still); a failed write says so in the status bar."""
        if not self.is_dirty() or self._autosaving:
            return None
        path = self._recovery_path()
        snapshot, model, saved = self._snapshot(), self.model.copy() if self.model else None, self._saves

        pending = self._model_pending is not None  # the snapshot keeps the Turtle being read

        def write(control: TaskControl) -> Path:
            if not pending:
                snapshot.model_turtle = model.to_graph().serialize(format="turtle") if model is not None else None
            try:
                snapshot.save(path)
            except OSError as error:
                raise InputError(f"it cannot be written ({error.strerror or error})", file=str(path)) from None
            return path

        def done(written: Path) -> None:
            self._autosaving = False
            if self._saves != saved and not self.is_dirty():  # saved meanwhile: nothing to recover
                written.unlink(missing_ok=True)

        def failed(message: str) -> None:
            self._autosaving = False
            self.status.emit(f"Could not write the recovery copy: {message}")

        self._autosaving = True
        self.runner.start("Writing the recovery copy", write, done, failed, lane=SAVE)
        return path

    def _snapshot(self) -> Project:
        """The project as it is now, sharing nothing that an edit changes in place."""
        project = self.project
        return dataclasses.replace(project, source_options=copy.deepcopy(project.source_options),
                                   releases=list(project.releases), score_model_paths=list(project.score_model_paths),
                                   settings=copy.deepcopy(project.settings))

    def saving(self) -> bool:
        """Whether a recovery copy is being written."""
        return self._autosaving

    def recovery_copies(self) -> list[Path]:
        """Recovery copies left by sessions that ended with unsaved changes, newest first."""
        folder = self._recovery_path().parent
        return sorted(folder.glob("recovery-*"), key=lambda p: p.stat().st_mtime, reverse=True)

    def open_recovery(self, path: str | Path) -> None:
        """Reopen a recovery copy as unsaved work (Save asks where to keep it); it is this
        application's copy of the user's own session, whose files the user chose then."""
        self._open(Project.load(path), None)
        Path(path).unlink(missing_ok=True)
        self._mark(True)

    # the files outside a project's folder that the user allowed (or chose and saved), per project file
    ALLOWED_FILE = "allowed-paths.json"
    ALLOWED_PROJECTS = 500

    def _allowed_store(self) -> tuple[Path, dict]:
        store = self._recovery_path().parent / self.ALLOWED_FILE
        try:
            data = json.loads(store.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        return store, {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, list)}

    def allowed_paths(self, project_file: str) -> list[str]:
        """The files outside ``project_file``'s folder that the user allowed for it."""
        return [p for p in self._allowed_store()[1].get(os.path.realpath(project_file), []) if isinstance(p, str)]

    def allow_paths(self, project_file: str, paths) -> None:
        """Remember that the user allowed (or chose) ``paths`` for the project file ``project_file``."""
        from tklscore.core.files.atomic import atomic_write

        paths = sorted({os.path.realpath(p) for p in paths})
        key = os.path.realpath(project_file)
        store, data = self._allowed_store()
        known = set(data.pop(key, []))
        if not paths or known >= set(paths):
            if known:
                data[key] = sorted(known)
            return
        data[key] = sorted(known | set(paths))
        data = dict(list(data.items())[-self.ALLOWED_PROJECTS:])  # the newest last
        with atomic_write(store) as handle:
            json.dump(data, handle, indent=1)
