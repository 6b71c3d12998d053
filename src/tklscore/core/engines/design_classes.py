"""A design's classes and combinations counted in Python from the whole source's (issue 23
§1): when the whole source was scored in this process, its combinations were fetched whole
(:func:`.scoring.fetch_counted_rows`: each one's class, SA codes, records and first row), and
its classes' QI values with them. A design that selects every row and publishes each SA it
keeps as it is (over the finest aggregate) then needs no statement for its classes: each
source class's QI values go through the design's groups (:class:`.design._Column`, applied
to the distinct values, not the rows), the classes are the distinct group codes, numbered as
the engine's :meth:`.Plan.classes` numbers them (in the order of their labels), and the
release's combinations are the source's with the design's class, counted by one sort of
an integer key — the same classes, codes and counts as the engine's statements, so every
number is the same.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from tklscore.core.tables.codes import mixed_radix, radix_key, run_starts


class SourceCombinations(NamedTuple):
    """The whole source's combinations as fetched (``rows``: ``cid``, ``c{i}``, ``cnt``,
    ``rid``) and each of its classes' value of each QI, as the index of the value in
    :meth:`.design.EngineDesigner.column`'s values. Too many to fetch, the combinations stay
    in the engine as ``relation`` (the same columns) and ``rows`` holds each class as one
    (``cid``, ``cnt``: its records, ``rid``: its first): a design's classes are counted here
    all the same, its combinations grouped in the engine on integers
    (:meth:`.Plan.combinations_of_classes`)."""

    rows: dict[str, np.ndarray]
    values: list[np.ndarray]
    codes: list[int]       # each SA's number of codes
    relation: str | None = None


def source_combinations(rows: dict[str, np.ndarray], classes, columns: list, codes: list[int],
                        relation: str | None = None) -> SourceCombinations | None:
    """:class:`SourceCombinations` from the fetched rows (or classes, with ``relation``) and the
    source's classes' QI values (``classes``: an Arrow table ``q0..`` by class id; ``columns``:
    each QI's :class:`.design._Column`); None when a value is not among the column's (never:
    both are the aggregate's)."""
    values = []
    for j, column in enumerate(columns):
        encoded = classes.column(f"q{j}").combine_chunks().dictionary_encode()
        index = pd.Index(column.values).get_indexer(encoded.dictionary.to_pandas())
        if (index < 0).any() or encoded.indices.null_count:
            return None
        values.append(index[encoded.indices.to_numpy()])
    return SourceCombinations(rows, values, list(codes), relation)


class DesignClasses(NamedTuple):
    """A design's classes over the source's: each one's QI codes (``keys``), records and first
    row, and each source class's design class."""

    keys: list[np.ndarray]
    size: np.ndarray
    first: np.ndarray
    of_source: np.ndarray


def design_classes(source: SourceCombinations, groups: list[tuple[np.ndarray, int]]) -> DesignClasses:
    """The classes of a design whose QI ``j`` maps value ``v`` to group ``groups[j][0][v]`` of
    ``groups[j][1]`` (its cardinality)."""
    codes = [(group_of_value[values], cardinality) for (group_of_value, cardinality), values in
             zip(groups, source.values)]
    radix = mixed_radix(codes)
    if radix is not None:
        unique, of_source = np.unique(radix[0], return_inverse=True)
        keys = [(unique // place) % max(cardinality, 1) for (_, cardinality), place in zip(codes, radix[1])]
    else:   # a key space beyond an integer: the codes' rows
        unique, of_source = np.unique(np.stack([c for c, _ in codes], axis=1), axis=0, return_inverse=True)
        keys = [unique[:, j] for j in range(len(codes))]
    of_source = of_source.reshape(-1)
    rows = source.rows
    of_row = of_source[rows["cid"]]
    size = np.bincount(of_row, weights=rows["cnt"], minlength=len(keys[0])).astype(np.int64)
    first = np.full(len(size), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, of_row, rows["rid"])
    return DesignClasses([k.astype(np.int64) for k in keys], size, first, of_source)


def label_order(classes: DesignClasses, labels: list[np.ndarray]) -> np.ndarray:
    """Each design class's id as :meth:`.Plan.classes` numbers them: in the order of their QIs'
    labels (text, compared as the engine compares it: by code point), ``labels[j]`` by code."""
    ranks = []
    for j, text in enumerate(labels):
        rank = np.empty(len(text), dtype=np.int64)
        rank[np.array(sorted(range(len(text)), key=lambda g: (str(text[g]), g)), dtype=np.int64)] = \
            np.arange(len(text), dtype=np.int64)
        ranks.append(rank[classes.keys[j]])
    order = np.lexsort(ranks[::-1]) if ranks else np.zeros(0, dtype=np.int64)
    cid = np.empty(len(order), dtype=np.int64)
    cid[order] = np.arange(len(order), dtype=np.int64)
    return cid


def design_combinations(source: SourceCombinations, classes: DesignClasses, cid: np.ndarray, sa: list[int],
                        places: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The release's combinations as :func:`.scoring.fetch_counted_rows` fetches them (``cid``,
    ``c{new}``, ``cnt``, ``rid``): the source's combinations with their class's design class
    ``cid`` (:func:`label_order`) and the codes of the SAs kept (``sa``: each one's place in
    the source), grouped by their key in mixed radix of ``places`` (:meth:`.Plan.radix`)."""
    rows = source.rows
    key = radix_key([cid[classes.of_source[rows["cid"]]]] + [rows[f"c{i}"] for i in sa], places)
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    starts = np.flatnonzero(run_starts(ordered))
    unique = ordered[starts]
    out = {"cid": unique // places[0]}
    for new, place in enumerate(places[1:]):    # each code read back between its place and the next
        out[f"c{new}"] = (unique % places[new]) // place
    out["cnt"] = np.add.reduceat(rows["cnt"][order], starts) if len(starts) else np.zeros(0, dtype=np.int64)
    out["rid"] = np.minimum.reduceat(rows["rid"][order], starts) if len(starts) else np.zeros(0, dtype=np.int64)
    return out


class Counted(NamedTuple):
    """A design's classes counted in Python (:func:`counted`): the selection's classes as the
    engine's statement gives them (``frame``: ``k{j}``, ``size``, ``first``), each one's class id
    in the scores (``cid``), their labels' codes and the source's combinations."""

    frame: pd.DataFrame
    classes: DesignClasses
    cid: np.ndarray
    marked: np.ndarray      # each design class whose every QI label is the suppression marker
    source: SourceCombinations
    labels: list[np.ndarray]    # each QI's labels by code

    def scored(self, plan, sa: list[int], dropped: np.ndarray, backend) -> tuple | None:
        """What :func:`.scoring.score_records` is ``given`` (the classes' sizes by class id and the
        release's combinations — None: made in the engine as ``combos``, with ``classes``, the
        source's combinations being there), each class id's suppression and marking; None when
        the combinations' key would not fit an integer (``plan``: the scores', :meth:`.Plan.radix`)."""
        sizes = np.zeros(len(self.cid), dtype=np.int64)
        sizes[self.cid] = self.classes.size
        radix = (len(self.cid), *(self.source.codes[i] for i in sa))
        places = plan.radix(radix)
        if places is None:
            return None
        by_cid = np.zeros(len(self.cid), dtype=bool)
        by_cid[self.cid[dropped]] = True
        marked = np.zeros(len(self.cid), dtype=bool)
        marked[self.cid[self.marked]] = True
        if self.source.relation is None:
            return (sizes, design_combinations(self.source, self.classes, self.cid, sa, places)), by_cid, marked
        backend.register("class_map", pd.DataFrame({"was": np.arange(len(self.classes.of_source), dtype=np.int64),
                                                    "cid": self.cid[self.classes.of_source]}))
        backend.materialize("combos", plan.combinations_of_classes(radix, sa, self.source.relation))
        backend.register("classes", self.table(plan))
        return (sizes, None), by_cid, marked

    def table(self, plan) -> pd.DataFrame:
        """``classes`` as :meth:`.Plan.classes` makes them (``plan``: with class codes), by class id."""
        order = np.argsort(self.cid)
        keys = [k[order] for k in self.classes.keys]
        return pd.DataFrame({**{q: pd.Series(text[k], dtype=object) for q, text, k in zip(plan.qi, self.labels, keys)},
                             **dict(zip(plan.class_keys, keys)), "k": self.classes.size[order],
                             "cid": np.arange(len(order), dtype=np.int64)})


def counted(source: SourceCombinations, groups: list[tuple[np.ndarray, np.ndarray]], keys: list[str],
            marker: str) -> Counted:
    """A design's classes from ``groups`` (each QI's ``(group_of_value, labels)`` at its level)."""
    classes = design_classes(source, [(g, len(labels)) for g, labels in groups])
    labels = [np.array([str(label) for label in labels], dtype=object) for _, labels in groups]
    marked = np.ones(len(classes.size), dtype=bool)
    for text, key in zip(labels, classes.keys):
        marked &= (text == marker)[key]
    frame = pd.DataFrame({**dict(zip(keys, classes.keys)), "size": classes.size, "first": classes.first})
    return Counted(frame, classes, label_order(classes, labels), marked, source, labels)


def released_numbering(kept: np.ndarray, held: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """The rule of a release measured as its scores coded it (over the aggregate; its measures read
    these numbers, never its values coded again), whichever back-end applies it: the suppressed
    classes left out and the kept ones (``kept``: by class id) numbered again densely in class
    order; an SA's codes ranked again densely in code order (its values' order) only when one
    of its values is no longer released (``held[i]``: each code of SA i a released record holds),
    else left as they are (None). Each class's new id by its old (-1: suppressed) and each SA's
    new code by its old (-1: not released)."""
    def dense(mask: np.ndarray) -> np.ndarray:
        return np.where(mask, np.cumsum(mask) - 1, -1)

    return dense(kept), [None if h.all() else dense(h) for h in held]
