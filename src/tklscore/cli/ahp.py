"""`tklscore ahp MATRIX.csv [--ri ...] [--method ...] [--format table|json]`: the
priorities and consistency of one AHP judgement matrix (spec data-model.md §4)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from tklscore.core.model.ahp import (
    RANDOM_INDEX,
    AHPResult,
    JudgementError,
    ahp,
    parse_judgement,
)
from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.text import csv_rows, read_text
from tklscore.core.tables.loading import detect_delimiter

HELP = """\
MATRIX.csv holds one expert's pairwise judgements on the Saaty scale (1 equal, 3 weak/
moderate, 5 essential/strong, 7 very strong, 9 extreme; 2, 4, 6, 8 between):

  ,Health,HealthRecord,Prescription
  Health,1,2,3
  HealthRecord,,1,2
  Prescription,,,1

The first row is an empty cell then the criteria names; each next row is a criterion's
name (the same names in the same order) then its judgements: the cell in row i, column
j says how much more important i is than j. A judgement is a number (3, 0.5) or a
fraction (1/3). The diagonal is 1 (an empty diagonal cell counts as 1).

Empty cells: a cell left empty (or holding a dash) whose mirror cell holds a judgement is
filled by reciprocity (a_ji = 1/a_ij), so entering the upper triangle is enough. When
both a_ij and a_ji are empty the judgement is missing; missing judgements are completed
by Harker's method, provided the judgements given still connect all criteria. When both
cells are filled they must be reciprocal (write 1/3, not 0.33).

The delimiter (, ; tab |) is detected. The verdict on the consistency ratio CR follows
the thesis: ≤ 0.10 acceptable; up to 0.15 for one person; up to 0.20 for a group's
averaged judgements.
"""


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `ahp` subcommand; its parser sets `handler=run` (run(args) -> exit status)."""
    parser = commands.add_parser(
        "ahp", help="priorities and consistency ratio of an AHP judgement matrix",
        description="Priorities (principal eigenvector or row geometric means), λ_max, CI and CR\n"
                    "of a pairwise-comparison matrix, and its most inconsistent judgement.",
        epilog=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("matrix", metavar="MATRIX.csv", help="judgement matrix (see below)")
    parser.add_argument("--ri", choices=list(RANDOM_INDEX), default="thesis",
                        help="random index table for CR: thesis (Table A.3, default), saaty1980, "
                             "donegan-dodd (Donegan & Dodd 1991)")
    parser.add_argument("--method", choices=["eigenvector", "geometric"], default="eigenvector",
                        help="eigenvector (Saaty, default) or geometric (row geometric means)")
    parser.add_argument("--format", choices=["table", "json"], default="table",
                        help="table (for people) or json")
    parser.set_defaults(handler=run)


def run(args) -> int:
    criteria, matrix, rows = read_matrix(args.matrix)
    name = str(args.matrix)
    try:
        result = ahp(matrix, method=args.method, ri=args.ri, criteria=criteria)
    except JudgementError as error:
        i, j = error.cell
        raise InputError(error.message, file=name, row=rows[i], column=criteria[j], hint=error.hint) from None
    except InputError as error:
        if error.file:
            raise
        raise InputError(error.message, file=name, row=error.row, column=error.column, hint=error.hint) from None
    missing = [[math.isnan(x) for x in row] for row in matrix]  # NaN: a judgement nobody gave
    text = (render_json(result, criteria) if args.format == "json"
            else render_table(result, criteria, name, missing))
    sys.stdout.write(text)
    return 0


def read_matrix(path) -> tuple[list[str], list[list[float]], list[int]]:
    """Criteria names, the judgement matrix (NaN = missing judgement, mirrors of single
    judgements filled by reciprocity) and the file row number of each criterion's row."""
    path = existing_file(path, "judgement matrix file")
    name = str(path)
    text = read_text(path, "judgement matrix file")
    if not text.strip():
        raise InputError("the file is empty", file=name,
                         hint="expected a header row ',A,B,...' then one row per criterion")
    lines = [(row, [f.strip() for f in fields])
             for row, fields in csv_rows(text, name, detect_delimiter(text, path.suffix.lower()))
             if any(f.strip() for f in fields)]
    if not lines:
        raise InputError("the file holds only empty cells, no judgement matrix", file=name,
                         hint="expected a header row ',A,B,...' then one row per criterion")
    (header_row, header), body = lines[0], lines[1:]
    while header and not header[-1] and len(header) > 1:
        header = header[:-1]  # trailing delimiters
    criteria = header[1:]
    if not criteria:
        raise InputError("the first row names no criteria", file=name, row=header_row,
                         hint="write an empty cell then the criteria names, e.g. ',A,B,C'")
    for k, criterion in enumerate(criteria):
        if not criterion:
            raise InputError(f"criterion {k + 1} of the first row has no name", file=name, row=header_row)
        if criterion in criteria[:k]:
            raise InputError(f"criterion '{criterion}' is named twice in the first row", file=name,
                             row=header_row, column=criterion)
    n = len(criteria)
    if len(body) != n:
        raise InputError(f"{len(body)} criterion row(s) for {n} criteria in the first row", file=name,
                         row=body[n][0] if len(body) > n else None,
                         hint="write one row per criterion, in the order of the first row")
    values: list[list[float | None]] = []
    rows: list[int] = []
    for i, (row, fields) in enumerate(body):
        extra = [f for f in fields[n + 1:] if f]
        if len(fields) < n + 1 or extra:
            raise InputError(f"has {len(fields)} field(s); expected {n + 1} (a name and {n} judgements)",
                             file=name, row=row)
        if fields[0] != criteria[i]:
            raise InputError(f"row name '{fields[0]}' differs from column name '{criteria[i]}'", file=name, row=row,
                             hint="the rows must name the criteria in the order of the first row")
        cells = []
        for j in range(n):
            try:
                value = parse_judgement(fields[j + 1], on_scale=True)
            except InputError as error:
                raise InputError(error.message, file=name, row=row, column=criteria[j], hint=error.hint) from None
            if i == j and value is None:
                value = 1.0
            cells.append(value)
        values.append(cells)
        rows.append(row)
    nan = float("nan")
    matrix = [[values[i][j] if values[i][j] is not None
               else (1.0 / values[j][i] if values[j][i] is not None else nan)
               for j in range(n)] for i in range(n)]
    return criteria, matrix, rows


def render_json(result: AHPResult, criteria: list[str]) -> str:
    worst = result.most_inconsistent
    document = {
        "criteria": list(criteria),
        "priorities": {c: float(p) for c, p in zip(criteria, result.priorities)},
        "lambda_max": float(result.lambda_max),
        "ci": float(result.ci),
        "cr": float(result.cr),
        "random_index": float(result.random_index),
        "completed_matrix": [[float(x) for x in row] for row in result.completed_matrix],
        "most_inconsistent": None if worst is None else {
            "row": criteria[worst.row], "column": criteria[worst.column],
            "value": float(worst.value), "suggested": float(worst.suggested)},
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _ratio(value: float) -> str:
    if value >= 1:
        return f"{value:g}"
    inverse = 1 / value
    return f"1/{round(inverse)}" if abs(inverse - round(inverse)) < 1e-9 else f"{value:.4g}"


def render_table(result: AHPResult, criteria: list[str], name: str = "",
                 missing: list[list[bool]] | None = None) -> str:
    width = max(len("criterion"), *(len(c) for c in criteria))
    method = "principal eigenvector" if result.method == "eigenvector" else "row geometric means"
    lines = [f"AHP of {name} ({len(criteria)} criteria; {method}; random index table '{result.ri_table}')", "",
             f"{'criterion':<{width}}  priority"]
    lines += [f"{c:<{width}}  {p:8.4f}" for c, p in zip(criteria, result.priorities)]
    lines += ["",
              f"λ_max = {result.lambda_max:.4f}",
              f"CI    = {result.ci:.4f}",
              f"CR    = {result.cr:.4f}   (RI = {result.random_index:g})   {result.verdict().sentence}"]
    worst = result.most_inconsistent
    if worst is None:
        lines.append("Most inconsistent judgement: none (the judgements are consistent)"
                     if len(criteria) > 2 else "Most inconsistent judgement: none (n ≤ 2 is always consistent)")
    else:
        implied = result.priorities[worst.row] / result.priorities[worst.column]
        advice = (f"suggested {_ratio(worst.suggested)}" if worst.has_better_value
                  else "no value of the scale is closer, so there is nothing to change")
        lines.append(f"Most inconsistent judgement: {criteria[worst.row]} vs {criteria[worst.column]} = "
                     f"{_ratio(worst.value)}; the priorities imply {implied:.3g}, {advice}")
    filled = [(criteria[i], criteria[j], result.completed_matrix[i][j])
              for i in range(len(criteria)) for j in range(i + 1, len(criteria))
              if missing is not None and missing[i][j]]
    if filled:
        lines.append("Missing judgements completed (Harker): "
                     + ", ".join(f"{a} vs {b} = {v:.3g}" for a, b, v in filled))
    return "\n".join(lines) + "\n"

