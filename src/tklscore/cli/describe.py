"""``tklscore describe SOURCE``: what the Release view shows of a source before its roles
are set — the delimiter and encoding read, the records, where the spaces around values
were stripped, and each column's distinct values with the role a person would guess
(core/tables/role_guesses.py), as a table or JSON."""

from __future__ import annotations

import argparse
import json

from tklscore.cli.arguments import source_of
from tklscore.cli.output import add_output_arguments, add_text_input_arguments, write_output
from tklscore.core.tables.role_guesses import RoleGuess, guess_roles
from tklscore.core.tables.roles import Role


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("describe", help="a source's columns and the roles a person would guess",
                            description="Describe a source table before choosing roles: its delimiter, encoding "
                                        "and records, where spaces around values were removed, and per column the "
                                        "distinct values, whether all are numbers, and a guessed role (identifier, "
                                        "quasi-identifier, sensitive, insensitive) and kind with the reason. The "
                                        "guesses are suggestions: check them before giving --qi/--sa.")
    p.add_argument("source", metavar="SOURCE", help="the source table (CSV/TSV, Excel or Parquet)")
    p.add_argument("--sheet", help="Excel: the sheet's name or number (default: the first)")
    p.add_argument("--engine", choices=["auto", "memory", "duckdb"], default="auto",
                   help="read the source in memory or out of core with DuckDB (default: auto, DuckDB when "
                        "the source would take more than half of the available memory)")
    add_output_arguments(p)
    add_text_input_arguments(p, "the CSV/TSV source")
    p.set_defaults(handler=run)


def describe(path: str, *, delimiter: str | None = None, encoding: str | None = None, sheet=None,
             keep_spaces: bool = False, engine: str = "auto") -> dict:
    """The description as ``--format json`` prints it; the source loaded or read by DuckDB
    as ``engine`` says (``auto``: the application's rule), through the one engine helper."""
    source = source_of(argparse.Namespace(engine=engine), path, delimiter=delimiter, encoding=encoding, sheet=sheet,
                       keep_spaces=keep_spaces)
    with source.session() as session:
        summary = session.describe(preview_rows=0)
        profiles = session.profile()
    guesses = guess_roles(profiles)
    text_file, stripped = summary.kind.lower() == "csv", summary.spaces_stripped
    return {"path": str(path), "delimiter": summary.delimiter if text_file else None,
            "encoding": summary.encoding if text_file else None, "rows": summary.rows,
            "spaces_stripped": list(stripped.columns),
            "spaces_kept": bool(keep_spaces),
            "spaces_message": stripped.message() if stripped else "",
            "engine": source.engine,
            "columns": [g.to_json_dict() for g in guesses.values()],
            "suggested": suggested_arguments(list(guesses.values()))}


def suggested_arguments(guesses: list[RoleGuess]) -> dict:
    """The guessed roles as the scoring commands take them."""
    by = {role: [g.column for g in guesses if g.role == role] for role in Role}
    return {"identifier": (by[Role.IDENTIFIER] or [None])[0], "qi": by[Role.QUASI_IDENTIFIER],
            "sa": by[Role.SENSITIVE],
            "continuous": [g.column for g in guesses if g.role == Role.SENSITIVE and g.continuous]}


def run(args) -> int:
    sheet = int(args.sheet) if args.sheet and args.sheet.isdigit() else args.sheet
    data = describe(args.source, delimiter=args.delimiter, encoding=args.encoding, sheet=sheet,
                    keep_spaces=args.keep_spaces, engine=args.engine)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n" if args.format == "json" else render(data)
    write_output(text, args.output, [args.source])
    return 0


def render(data: dict) -> str:
    read = []
    if data["delimiter"] is not None:
        read.append(f"delimiter {_delimiter_name(data['delimiter'])}, encoding {data['encoding']}")
    lines = [f"{data['path']}: {data['rows']:,} records, {len(data['columns'])} columns"
             + (f" ({'; '.join(read)})" if read else "")]
    if data["spaces_message"]:
        lines.append(data["spaces_message"].capitalize())
    elif data["spaces_kept"]:
        lines.append("Spaces around values kept as written (--keep-spaces)")
    lines.append("")
    lines.append("Guessed roles (guesses from the column names and values: check them):")
    header = ("column", "distinct", "numbers", "guessed role", "kind", "why")
    rows = [(c["name"], f"{c['distinct']:,}", "yes" if c["numeric"] else "no", c["guessed_role"], c["guessed_kind"],
             c["reason"]) for c in data["columns"]]
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(5)]
    for row in [header] + rows:
        cells = [str(row[i]).rjust(widths[i]) if i == 1 else str(row[i]).ljust(widths[i]) for i in range(5)]
        lines.append("  ".join(cells + [row[5]]).rstrip())
    s = data["suggested"]
    arguments = []
    if s["identifier"]:
        arguments.append(f"--id-column {_quoted(s['identifier'])}")
    for flag, key in (("--qi", "qi"), ("--sa", "sa"), ("--continuous", "continuous")):
        if s[key]:
            arguments.append(f"{flag} {_quoted(','.join(s[key]))}")
    if arguments:
        lines += ["", "As arguments (check them first): " + " ".join(arguments)]
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return text if all(ch.isalnum() or ch in "-_.,/" for ch in text) else "'" + text.replace("'", "'\\''") + "'"


def _delimiter_name(delimiter: str) -> str:
    return {"\t": "Tab"}.get(delimiter, f"'{delimiter}'")
