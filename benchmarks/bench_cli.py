"""End-to-end benchmark of ``tklscore score``: the whole process, as a user runs it.

    .venv/bin/python benchmarks/bench_cli.py [--rows N] [--seed S] [--repeats R] [--dir DIR] [--no-pycanon]

Writes a seeded synthetic source of N rows (default 1,000,000) and a 10 % release, as
Parquet with typed columns (an integer id, an integer QI ``age``, an integer SA
``diagnosis``, a float continuous SA ``amount``, the rest text) and as CSV, plus a
weights file covering every sensitive value (the data of ``bench_scoring.py``: 4 QIs,
3 categorical SAs and 1 continuous one). Beside it the common shape of a real registry's
Parquet file (issue 23 §4): the same table with text ids (``P0000001``), every category as
text (``diagnosis`` too), an integer QI ``age`` and an integer continuous SA ``amount`` (in
cents), with its 10 % release and weights. Then it times, wall clock of the whole process
(interpreter start, imports, loading, scoring, writing), the best of ``--repeats`` runs:

- ``tklscore score SOURCE.parquet --published RELEASE.parquet ... --format json --output F``  (target ≤ 2.5 s)
- the same on the text-id Parquet shape                                                      (target ≤ 2.5 s)
- the same from the CSV files                                                                 (target ≤ 4 s)
- ``tklscore --version``                                                                        (no target)

and checks that both outputs hold the same scores. With pycanon installed (a test-only
dependency) it prints pycanon's k-anonymity and l-diversity of the same source next to
the workbench's (k = min k-DF; l = min l-DF with one SA at a time, pycanon's definition),
each with its time and the ratio. The machine may be shared: the figures are wall
clock, with the process's CPU time next to them. Exit status 1 when a target fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CONTINUOUS_SA, QI, SA, TEXT, Stopwatch, best_of, load_average, machine,  # noqa: E402
                     make_weights, megabytes, overall, sample, tklscore_command, typed_source, verdict, work_folder,
                     write_typed_weights)

TARGET_PARQUET_S = 2.5
TARGET_CSV_S = 4.0


def write_inputs(folder: Path, n: int, seed: int) -> dict[str, Path]:
    typed, pool = typed_source(n, seed)
    published = sample(n, np.random.default_rng(seed + 1))
    release = typed.iloc[published].reset_index(drop=True)
    paths = {name: folder / name for name in
             ("source.parquet", "release.parquet", "source.csv", "release.csv", "weights.csv")}
    typed.to_parquet(paths["source.parquet"], index=False)
    release.to_parquet(paths["release.parquet"], index=False)
    typed.to_csv(paths["source.csv"], index=False)
    release.to_csv(paths["release.csv"], index=False)
    write_typed_weights(make_weights(pool, seed), paths["weights.csv"])
    text, text_release = text_shape(typed, published)
    paths["text.parquet"], paths["text_release.parquet"] = folder / "text.parquet", folder / "text_release.parquet"
    paths["text_weights.csv"] = folder / "text_weights.csv"
    text.to_parquet(paths["text.parquet"], index=False)
    text_release.to_parquet(paths["text_release.parquet"], index=False)
    write_text_weights(make_weights(pool, seed), paths["text_weights.csv"])
    return paths


def text_shape(typed: pd.DataFrame, published: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The typed source as a registry writes it: text ids ``P0000001``, ``diagnosis`` as its
    text, ``amount`` in whole cents (an integer continuous SA); and the release's rows."""
    text = typed.copy()
    text["id"] = pd.Series(np.char.add("P", np.char.zfill(typed["id"].to_numpy().astype(str), 7)), dtype=TEXT)
    text["diagnosis"] = pd.Series(np.char.add("diagnosis-", typed["diagnosis"].to_numpy().astype(str)), dtype=TEXT)
    text["amount"] = np.rint(typed["amount"].to_numpy() * 100).astype(np.int64)
    return text, text.iloc[published].reset_index(drop=True)


def write_text_weights(weights, path: Path) -> Path:
    """The weights for :func:`text_shape`: ``amount``'s interval ends in cents."""
    def cents(bound: str) -> str:
        return bound if "inf" in bound else f"{float(bound) * 100:.1f}"

    rows = []
    for e in weights.entries:
        value = e.value
        if e.attribute == CONTINUOUS_SA:
            low, high = value[1:-1].split(",")
            value = f"{value[0]}{cents(low)},{cents(high)}{value[-1]}"
        rows.append((e.attribute, value, e.weight))
    pd.DataFrame(rows, columns=["attribute", "value", "weight"]).to_csv(path, index=False)
    return path


def score_command(source: Path, release: Path, weights: Path, output: Path) -> list[str]:
    return tklscore_command("score", source, "--published", release, "--id-column", "id", "--qi", ",".join(QI),
                            "--sa", ",".join(SA), "--continuous", CONTINUOUS_SA, "--weights", weights,
                            "--format", "json", "--output", output)


def pycanon_side_by_side(source: Path, rows: int | None = None) -> None:
    try:
        from pycanon import anonymity
    except ImportError:
        print("pycanon: not installed (pip install pycanon==1.3.6) — side-by-side skipped")
        return
    from tklscore.core import Roles, Scorer, load_table
    from tklscore.core.scoring.distinguishing_factors import l_distinguishing_factor

    frame = pd.read_parquet(source)
    if rows is not None and rows < len(frame):
        frame = frame.iloc[:rows].reset_index(drop=True)
        source = source.with_name(f"first_{rows}.parquet")
        frame.to_parquet(source, index=False)
    watch = Stopwatch()
    table = load_table(source)
    scorer = Scorer(table, Roles(qi=QI, sa=SA, continuous=[CONTINUOUS_SA]))
    factors = scorer.factors
    k_ours = int(factors.k.min())
    l_ours = min(int(l_distinguishing_factor(scorer.qi_codes, [codes], len(table)).min())
                 for codes in scorer.sa_codes.values())
    ours, ours_cpu = watch.wall, watch.cpu
    watch.restart()
    k_theirs = anonymity.k_anonymity(frame, list(QI))
    t_k = watch.wall
    l_theirs = anonymity.l_diversity(frame, list(QI), list(SA))
    t_l, theirs_cpu = watch.wall - t_k, watch.cpu
    print(f"pycanon side by side on the same table ({len(frame):,} rows):")
    print(f"  k-anonymity: tklscore k = {k_ours}, pycanon k = {k_theirs}; "
          f"l-diversity: tklscore l = {l_ours}, pycanon l = {l_theirs}   "
          f"{'agree' if (k_ours, l_ours) == (k_theirs, l_theirs) else 'DIFFER'}")
    print(f"  time: tklscore {ours:.2f} s wall, CPU {ours_cpu:.2f} s (load + all k-, l-, t-DF per record + table k, l); "
          f"pycanon {t_k + t_l:.2f} s wall, CPU {theirs_cpu:.2f} s (k {t_k:.2f} s + l {t_l:.2f} s, frame already loaded)")
    print(f"  ratio pycanon / tklscore = {(t_k + t_l) / ours:.1f}x wall, {theirs_cpu / ours_cpu:.1f}x CPU")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each command; the best is shown")
    parser.add_argument("--dir", help="folder for the inputs (default: a temporary folder)")
    parser.add_argument("--no-pycanon", action="store_true", help="skip the pycanon side-by-side")
    parser.add_argument("--pycanon-rows", type=int, metavar="N",
                        help="pycanon side by side on the first N rows only (pycanon's l-diversity takes "
                             "minutes at 1M rows; default: the whole source)")
    args = parser.parse_args(argv)
    with work_folder(args.dir) as folder:
        watch = Stopwatch()
        paths = write_inputs(folder, args.rows, args.seed)
        print(f"rows = {args.rows:,} (release {int(args.rows * 0.1):,}), seed = {args.seed}; inputs written in "
              f"{watch.wall:.1f} s to {folder} (Parquet {megabytes(paths['source.parquet'])} MB, "
              f"CSV {megabytes(paths['source.csv'])} MB); {machine()}")
        results = {}
        ok = True
        shapes = (("parquet", "source.parquet", "release.parquet", "weights.csv", TARGET_PARQUET_S),
                  ("text-id parquet", "text.parquet", "text_release.parquet", "text_weights.csv", TARGET_PARQUET_S),
                  ("csv", "source.csv", "release.csv", "weights.csv", TARGET_CSV_S))
        for kind, source, release, weights, target in shapes:
            output = folder / f"scores_{kind.replace(' ', '_')}.json"
            command = score_command(paths[source], paths[release], paths[weights], output)
            best, runs = best_of(command, args.repeats)
            results[kind] = json.loads(output.read_text())
            passed = best.wall <= target
            ok &= passed
            print(f"tklscore score, {kind:<15} → json: {best.wall:6.2f} s wall (CPU {best.cpu:5.2f} s, peak RSS "
                  f"{best.rss_mb:5.0f} MB)   target ≤ {target:g} s   {verdict(passed)}"
                  f"{'' if passed or best.cpu > target else ' on wall time; PASS on CPU time'}   "
                  f"[runs: {', '.join(f'{r:.2f}' for r in runs)}; load average {load_average():.1f}]")
        csv_output = folder / "scores_parquet.csv"
        command = score_command(paths["source.parquet"], paths["release.parquet"], paths["weights.csv"], csv_output)
        best, runs = best_of(command[:-4] + ["--format", "csv", "--output", str(csv_output)], args.repeats)
        print(f"tklscore score, parquet → csv:  {best.wall:6.2f} s wall (CPU {best.cpu:5.2f} s, peak RSS "
              f"{best.rss_mb:5.0f} MB)   (no target)   [runs: {', '.join(f'{r:.2f}' for r in runs)}]")
        version, _ = best_of(tklscore_command("--version"), args.repeats)
        print(f"tklscore --version: {version.wall:.2f} s wall (CPU {version.cpu:.2f} s)")
        same = results["parquet"]["scores"] == results["csv"]["scores"] and \
            results["parquet"]["records"] == results["csv"]["records"]
        ok &= same
        print(f"Parquet and CSV give the same scores and records: {same}; tkl = {results['parquet']['scores']['tkl']:.10g}, "
              f"{len(results['parquet']['records']):,} records")
        as_text = [{**r, "id": "P" + r["id"].zfill(7)} for r in results["parquet"]["records"]]
        same_text = results["text-id parquet"]["scores"] == results["parquet"]["scores"] and \
            results["text-id parquet"]["records"] == as_text
        ok &= same_text
        print(f"the text-id shape gives the same scores (and the same records, ids as text): {same_text}")
        if not args.no_pycanon:
            pycanon_side_by_side(paths["source.parquet"], args.pycanon_rows)
    return overall(ok)


if __name__ == "__main__":
    sys.exit(main())
