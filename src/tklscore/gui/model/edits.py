"""The Model view's edits of the tkl-Data Model. Each one is one undoable edit through
``Workbench.edit_model`` made by a core function (labels, elements, moves, alignment with
re-extraction of the taxonomy, bins); bad input is shown by ``show_error`` and changes nothing."""

from __future__ import annotations

from tklscore.core.errors import InputError
from tklscore.core.model.data_model import TABLE_PART, Kind, Realignment, TklDataModel
from tklscore.core.model.data_model.table_sync import edit_bin, set_bins
from tklscore.core.model.vocabulary import local_name

NO_LABEL = "none"


class ModelEdits:
    def __init__(self, workbench, show_error, clear_error, vocabulary, selected):
        self.workbench = workbench
        self.show_error = show_error      # message -> None
        self.clear_error = clear_error
        self.vocabulary = vocabulary      # () -> the open Vocabulary or None
        self.selected = selected          # () -> the selected node's IRI or None
        self.last_realignment: Realignment | None = None

    def edit(self, text: str, change) -> bool:
        """One undoable edit; bad input is shown and changes nothing."""
        self.clear_error()
        try:
            self.workbench.edit_model(text, change)
        except InputError as error:
            self.show_error(str(error))
            return False
        self.workbench.status.emit(text)
        return True

    def target(self, iri: str | None):
        model = self.workbench.model
        if model is None:
            self.show_error("There is no tkl-Data Model: build one from the source (File ▸ New model from "
                            "source…), open one, or open the example")
            return None
        iri = iri or self.selected()
        if iri is None or iri not in model.nodes:
            self.show_error("Select a node of the tkl-Data Model first")
            return None
        return model.nodes[iri]

    # ------------------------------------------------------------------ table part

    def new_element(self, name: str, parent: str | None = None) -> str | None:
        node = self.target(parent)
        if node is None:
            return None
        if node.kind not in (Kind.ATTRIBUTE, Kind.ELEMENT):
            self.show_error(f"An element goes under an attribute or another element, not under the "
                            f"{node.kind.value} '{node.label}'")
            return None
        name = name.strip()
        if not name:
            self.show_error("An element needs a name")
            return None
        created = []
        if self.edit(f"New element {name} under {node.label}",
                     lambda m: created.append(m.add_element(node.column, name, node.iri))):
            return created[0]
        return None

    def set_label(self, qualitative: str | None, iri: str | None = None) -> bool:
        node = self.target(iri)
        if node is None:
            return False
        if node.kind not in TABLE_PART:
            self.show_error(f"Only values and elements take a label; '{node.label}' is a {node.kind.value}")
            return False
        if node.qualitative == qualitative and not node.provisional:
            return True
        return self.edit(f"Label {node.label} {qualitative or NO_LABEL}", lambda m: m.set_label(node.iri, qualitative))

    def set_labels(self, iris: list[str], qualitative: str | None) -> int | None:
        """One label for every value and element among ``iris`` (one edit); how many changed."""
        model = self.workbench.model
        chosen = [i for i in iris if model is not None and i in model.nodes and model.nodes[i].kind in TABLE_PART]
        if not chosen:
            self.show_error("Select one or more values or elements to label")
            return None
        counted = []
        ok = self.edit(f"Label {len(chosen):,} value(s) {qualitative or NO_LABEL}",
                       lambda m: counted.append(m.set_labels(chosen, qualitative)))
        return counted[0] if ok else None

    def confirm(self, iris: list[str]) -> int | None:
        """Keep the default labels and suggested classes of ``iris`` as the expert's own (one edit)."""
        model = self.workbench.model
        chosen = [i for i in iris if model is not None and i in model.nodes and model.nodes[i].provisional]
        if not chosen:
            self.show_error("Nothing selected is waiting for a judgement: select values marked "
                            "'not yet judged' or columns whose class is suggested")
            return None
        counted = []
        ok = self.edit(f"Confirm {len(chosen):,} default(s)", lambda m: counted.append(m.confirm(chosen)))
        return counted[0] if ok else None

    def remove_element(self, iri: str | None = None) -> bool:
        node = self.target(iri)
        if node is None:
            return False
        if node.kind != Kind.ELEMENT:
            self.show_error(f"Only elements can be removed here; '{node.label}' is a {node.kind.value}")
            return False

        def change(model: TklDataModel) -> None:
            for child in model.children(node.iri):
                model.move(child, node.parent)
            model.remove(node.iri)

        return self.edit(f"Remove element {node.label}", change)

    # ------------------------------------------------------------------ bins

    def set_bins(self, column: str, bins: list[str], how: str) -> bool:
        return self.edit(f"{how} for {column}", lambda m: set_bins(m, column, bins))

    def edit_bin(self, iri: str, interval: str) -> bool:
        node = self.target(iri)
        if node is None:
            return False
        return self.edit(f"Bin {node.value} of {node.column} → {interval}", lambda m: edit_bin(m, iri, interval))

    # ------------------------------------------------------------------ alignment

    def apply_plan(self, plan: list[tuple[str, str, str]], keep_parent: dict[str, str] | None = None) -> bool:
        """Edits asked for by a drop: ("move", node, target) or ("align", column, class)."""
        model = self.workbench.model
        if model is None or not plan:
            return False
        names, vocabulary = model.nodes, self.vocabulary()
        texts = []
        for op, a, b in plan:
            if op == "move":
                texts.append(f"Move {names[a].label} into {names[b].label}")
            else:
                label = names[b].label if b in names else (vocabulary.label(b) if vocabulary else local_name(b))
                texts.append(f"Align {a} with {label}")
        results: list[Realignment] = []

        def in_vocabulary(cls: str) -> bool:
            if vocabulary is None:
                return False
            try:
                vocabulary.resolve(cls)
                return True
            except InputError:
                return cls not in model.nodes  # let realign() explain what is wrong

        def change(m: TklDataModel) -> None:
            for op, a, b in plan:
                if op == "move":
                    m.move(a, b)
                elif in_vocabulary(b):
                    results.append(m.realign(vocabulary, a, b, keep_parent))
                elif b in m.nodes:
                    m.align(a, b)  # a class the open vocabulary lacks: align without re-extraction
                else:
                    raise InputError(f"'{local_name(b)}' is neither in the open vocabulary nor in the model")
            if results:   # before the edit is pushed: the views it refreshes show what the alignment did
                self.last_realignment = results[-1]

        ok = self.edit("; ".join(texts), change)
        if ok and results:
            conflicts = results[-1].conflicts
            if conflicts and vocabulary is not None:
                self.workbench.status.emit("; ".join(texts) + " — " + "; ".join(
                    f"{vocabulary.label(c.node)} keeps {vocabulary.label(c.kept)} ({c.reason})" for c in conflicts))
        return ok

    def keep_parent(self, node: str, parent: str) -> bool:
        """Rebuild the taxonomy with ``node`` keeping ``parent`` (a conflict's resolution)."""
        vocabulary = self.vocabulary()
        if vocabulary is None:
            return False
        def change(m) -> None:
            self.last_realignment = m.realign(vocabulary, keep_parent={node: parent})

        return self.edit(f"{vocabulary.label(node)} keeps parent {vocabulary.label(parent)}", change)
