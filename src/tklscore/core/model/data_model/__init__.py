"""The tkl-Data Model (data-model.md §1-3, thesis Chapter 4.1-4.2), one concept per module:

- :mod:`.nodes` — the nodes (taxonomy class, attribute ``A.``, element ``E.``, value
  ``V.``) and the node table with its child index;
- :mod:`.tree` — :class:`TklDataModel`: the tree, its edits and the AHP judgements;
- :mod:`.derivation` — priorities (AHP, assigned, labels with Algorithm 2) and
  ``weight(v) = priority(v) × Π priority`` of the attribute and classes above v;
- :mod:`.realignment` — aligning a column under another class, re-extracting the taxonomy;
- :mod:`.table_sync` — keeping the table model in line with the source table;
- :mod:`.turtle` — the model as Turtle (DSO), reopened exactly.
"""

from tklscore.core.model.data_model.derivation import Derivation
from tklscore.core.model.data_model.nodes import CRITERIA, DEFAULT_EXPERT, TABLE_PART, Kind, Node, NodeTable
from tklscore.core.model.data_model.realignment import Realignment
from tklscore.core.model.data_model.table_sync import ModelChanges
from tklscore.core.model.data_model.tree import TklDataModel
from tklscore.core.model.data_model.turtle import DSO, TKLM

__all__ = ["CRITERIA", "DEFAULT_EXPERT", "DSO", "TABLE_PART", "TKLM", "Derivation", "Kind", "ModelChanges", "Node",
           "NodeTable", "Realignment", "TklDataModel"]
