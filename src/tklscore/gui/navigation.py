"""The views of the main window, arranged by the person who uses them and in the order they
work (gui.md §5).

``VIEWS`` is the one registry: the sidebar with its groups, the View menu with its Ctrl+1…
shortcuts, ``MainWindow.show_view``, ``tklscore gui --view`` and the welcome page are built from
it. Adding a view is one entry, placed at its step in the working order of its group; a view
that is not built yet has no entry. This module does not import Qt (the command line reads the
keys); a view class is imported when the window builds it, as ``Class(workbench, parent)``,
the first time the view is shown or asked for (:class:`Views`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import import_module

OFFICER = "Evaluate & design a release"
EXPERT = "Sensitivity weights"
PATIENT = "Patient"
LEARN = "Learn"
GROUPS = (OFFICER, EXPERT, PATIENT, LEARN)
WELCOME = "welcome"  # the first-run page; not a view of any group


@dataclass(frozen=True)
class ViewEntry:
    key: str       # --view KEY, MainWindow.views[KEY]
    title: str     # the sidebar and View menu name
    group: str     # one of GROUPS
    purpose: str   # one line atop the view: what it is for and what to do first
    factory: str   # "module:Class", built as Class(workbench, parent)

    def create(self, workbench, parent):
        module, _, name = self.factory.partition(":")
        return getattr(import_module(module), name)(workbench, parent)


VIEWS: tuple[ViewEntry, ...] = (
    ViewEntry("release", "Release", OFFICER,
              "Open the source table, confirm each column's role, then define the candidate releases to score.",
              "tklscore.gui.release.view:ReleaseView"),
    ViewEntry("design", "Design", OFFICER,
              "Generalise, suppress or drop columns and watch tkl/M/L, the privacy models and utility move; "
              "let the tool suggest the best releases.",
              "tklscore.gui.design.view:DesignView"),
    ViewEntry("scores", "Scores", OFFICER,
              "How misuseable the current release is: read tkl, M and L at the top, then select a record "
              "to see why it scores what it scores; export a report for the committee.",
              "tklscore.gui.scores.view:ScoresView"),
    ViewEntry("risk", "Risk", OFFICER,
              "How re-identifiable the current release is: read the verdict, then the privacy models, the "
              "attackers' risk and D(r); double-click a risky record to see its scores.",
              "tklscore.gui.risk.view:RiskView"),
    ViewEntry("pseudonymization", "Pseudonymization", OFFICER,
              "Load the original and the pseudonymised data and each person's threshold: how many people's "
              "sensitive values could be predicted, what removing them costs, and whether to release.",
              "tklscore.gui.pseudonymization.view:PseudonymizationView"),
    ViewEntry("model", "tkl-Data Model", EXPERT,
              "Drag a DPV class onto a sensitive column's attribute, then label its values; "
              "the sensitivity weights are derived from this model.",
              "tklscore.gui.model.view:ModelView"),
    ViewEntry("ahp", "AHP", EXPERT,
              "Choose a criteria group, then move each slider towards the more important criterion; "
              "keep the consistency ratio green.",
              "tklscore.gui.ahp.view:AhpView"),
    ViewEntry("patient", "Patient", PATIENT,
              "Start with Load patient information: see what can be learnt about you from the facts "
              "a hospital holds, and choose what may be shared.",
              "tklscore.gui.patient.view:PatientView"),
    ViewEntry("learn", "Learn", LEARN,
              "Learn privacy-preserving data publishing: pick a task, mark the columns, anonymise, "
              "read the statistics, then take the quiz.",
              "tklscore.gui.learn.view:LearnView"),
)


def ordered(entries=VIEWS) -> list[ViewEntry]:
    """The entries in sidebar order: by group (officer, expert, patient, learn), then as listed."""
    for entry in entries:
        if entry.group not in GROUPS:
            raise ValueError(f"view '{entry.key}': unknown group '{entry.group}' (one of {', '.join(GROUPS)})")
    keys = [entry.key for entry in entries]
    duplicates = sorted({key for key in keys if keys.count(key) > 1} | ({WELCOME} & set(keys)))
    if duplicates:
        raise ValueError(f"view keys must be unique and not '{WELCOME}': {', '.join(duplicates)}")
    return sorted(entries, key=lambda entry: GROUPS.index(entry.group))


def view_keys() -> list[str]:
    """Every key ``--view`` accepts, in sidebar order, then the welcome page."""
    return [entry.key for entry in ordered()] + [WELCOME]


def entry(key: str) -> ViewEntry:
    for candidate in VIEWS:
        if candidate.key == key:
            return candidate
    raise KeyError(key)


class Views(Mapping):
    """A window's views by key, each built the first time it is asked for: ``views[key]``
    builds it with ``build(key)`` (once); ``key in views``, ``len`` and iteration name every
    view the window has, built or not, without building one. What concerns only the views
    that exist (settling, closing) goes through :meth:`built`."""

    def __init__(self, keys, build: Callable[[str], object]):
        self._keys = list(keys)
        self._build = build
        self._built: dict[str, object] = {}

    def __getitem__(self, key: str):
        view = self._built.get(key)
        if view is None:
            if key not in self._keys:
                raise KeyError(key)
            view = self._built[key] = self._build(key)
        return view

    def __contains__(self, key) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def is_built(self, key: str) -> bool:
        return key in self._built

    def built(self) -> dict[str, object]:
        """The views built so far, by key, in the window's order."""
        return {key: self._built[key] for key in self._keys if key in self._built}
