"""Benchmark of the release designer (issue 11).

    .venv/bin/python benchmarks/bench_release.py [--rows N] [--seed S] [--repeats R] [--skip-large-suggest]

1. **One slider move** on the synthetic 1,000,000-row source of ``bench_scoring.py``
   (QIs age, workclass, occupation, education with hierarchies; SAs disease, medication,
   diagnosis, amount): after the designer has been built and one release evaluated, the
   time for a change of one level → new tkl/M/L (raw, normalised), privacy measures and
   utility (``ReleaseDesigner.evaluate``), median of R moves over different levels.
   Target ≤ 0.5 s.
2. **suggest on adult** (``tests/data/adult/adult.csv``, 30,162 rows — the rows with
   missing values are already removed, see its README), 6 QIs with the shared ARX
   hierarchies, SAs occupation and salary-class, the whole lattice (720 nodes), k = 5
   with a 2 % suppression budget. Target ≤ 10 s.
3. **suggest on the 1,000,000-row source** with a lattice of 162 nodes. Target ≤ 10 s (issue 23 §4).
4. **Peer**: pycanon 1.3.6 (when installed: ``pip install pycanon --no-deps``) computing k
   on the same published adult releases as the designer — both time k-anonymity only, on the
   same tables; the ratio is pycanon's time / ours.

The machine is shared; every figure is the median of the repeats and should be re-run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (Stopwatch, load_average, machine, make_source, make_weights, peak_rss_mb, ramp_weights,  # noqa: E402
                     roles as synthetic_roles, timed, verdict)

from tklscore.core import Roles, Table, Weights  # noqa: E402
from tklscore.core.release.designer import ReleaseDesigner  # noqa: E402
from tklscore.core.release.hierarchy import Hierarchy, load_arx_csv  # noqa: E402
from tklscore.core.release.suggest import Constraints, suggest  # noqa: E402
from tklscore.core.release.transform import ReleaseDesign  # noqa: E402
from tklscore.core.tables.loading import load_table  # noqa: E402

ADULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "adult"
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country"]
TARGET_MOVE_S, TARGET_ADULT_S, TARGET_LARGE_S = 0.5, 10.0, 10.0   # large: issue 23 §4 (was 60 s)
# the same target with margin, as CPU (the search runs on two threads): ≤ 9 s wall idle ≈ ≤ 16 s of CPU
TARGET_LARGE_CPU_S = 16.0


def _grouped(column: str, levels: int, size: int) -> Hierarchy:
    """Value groups of ``size`` consecutive codes (``column-NN`` → ``column-group-M``)."""
    groups: dict[str, list[str]] = {}
    for i in range(levels):
        groups.setdefault(f"{column}-group-{i // size}", []).append(f"{column}-{i:02d}")
    return Hierarchy.groups(column, [groups])


def synthetic_hierarchies() -> dict[str, Hierarchy]:
    """age: 5/10/20/40-year bands; the others: value groups; a lattice of 6·3·3·3 = 162 nodes."""
    return {"age": Hierarchy.intervals("age", [5, 10, 20, 40]),
            "workclass": _grouped("workclass", 12, 4),
            "occupation": _grouped("occupation", 41, 8),
            "education": _grouped("education", 16, 4)}


def roles_with(sensitive: int) -> Roles:
    """The synthetic roles with only the first ``sensitive`` SAs (all four by default)."""
    full = synthetic_roles()
    sa = full.sa[:sensitive]
    return Roles(qi=full.qi, sa=sa, continuous=full.continuous & set(sa))


def bench_move(source: Table, weights: Weights, repeats: int, sensitive: int = 4) -> float:
    watch = Stopwatch()
    designer = ReleaseDesigner(source, roles_with(sensitive), synthetic_hierarchies())
    designer.evaluate(ReleaseDesign(levels={"age": 1}), weights, record_ids=False)
    print(f"  designer built and first release evaluated: {watch.wall:.2f} s")
    moves = [{"age": 2}, {"age": 2, "occupation": 1}, {"age": 3, "occupation": 1}, {"age": 3, "workclass": 1},
             {"age": 1, "workclass": 1}, {"age": 1, "occupation": 1, "education": 1}]
    levels = iter(moves * (1 + repeats // len(moves)))
    timing = timed(lambda: designer.evaluate(ReleaseDesign(levels=next(levels)), weights, record_ids=False),
                   max(repeats, 3))
    result, median, times = timing.result, timing.wall, timing.walls
    print(f"  one slider move with {sensitive} SA(s) (scores + measures + utility), median of {len(times)}: "
          f"wall {median:.3f} s (min {min(times):.3f}, max {max(times):.3f}), CPU {timing.cpu:.3f} s "
          f"(both threads) — target ≤ {TARGET_MOVE_S} s wall: {verdict(median <= TARGET_MOVE_S)}; "
          f"peak RSS {peak_rss_mb():.0f} MB")
    print(f"  last move: tkl {result.report.scores.tkl:.2f} (normalised {result.report.normalized_source.tkl:.4f}), "
          f"precision {result.utility.precision:.4f}, measures {'from the risk lens' if result.measures else 'n/a'}")
    return median


def adult() -> tuple[Table, Roles, dict[str, Hierarchy], Weights]:
    table = load_table(ADULT / "adult.csv")
    roles = Roles(qi=ADULT_QI, sa=["occupation", "salary-class"])
    hierarchies = {c: load_arx_csv(ADULT / f"adult_hierarchy_{c}.csv", c) for c in ADULT_QI}
    return table, roles, hierarchies, Weights(ramp_weights(table.frame, roles.sa), name="adult synthetic weights")


def front_sha1(found) -> str:
    """The SHA-1 of a search's result as JSON (its front, number for number): a change that must
    keep the front compares it with the base's."""
    return hashlib.sha1(json.dumps(found.to_json_dict(), sort_keys=True).encode()).hexdigest()


def bench_suggest_adult(repeats: int):
    table, roles, hierarchies, weights = adult()
    timing = timed(lambda: suggest(ReleaseDesigner(table, roles, hierarchies), weights,
                                   Constraints(k=5, suppression_limit=0.02)), max(repeats, 2))
    found, median, times = timing.result, timing.wall, timing.walls
    print(f"  adult: {len(table)} rows, lattice {found.lattice_size}, evaluated {found.evaluated}, "
          f"front {len(found.front)} (SHA-1 of its JSON {front_sha1(found)})")
    print(f"  suggest (whole lattice), median of {len(times)}: wall {median:.2f} s (runs: "
          f"{', '.join(f'{t:.2f}' for t in times)}), CPU {timing.cpu:.2f} s (all threads) — target "
          f"≤ {TARGET_ADULT_S} s: {verdict(median <= TARGET_ADULT_S)}; peak RSS {peak_rss_mb():.0f} MB")
    return table, roles, hierarchies, found


def bench_peer(table: Table, roles: Roles, hierarchies: dict[str, Hierarchy], found) -> None:
    try:
        from pycanon import anonymity
    except ImportError:
        print("  pycanon is not installed (pip install pycanon --no-deps): no peer figure")
        return
    designer = ReleaseDesigner(table, roles, hierarchies)
    ours, theirs = [], []
    for candidate in found.front[:8]:
        design = ReleaseDesign(levels=candidate.levels, suppress_below=5, suppression_limit=0.02)
        transformed = designer.transform(design)
        frame = transformed.published_table()
        def k_of_ours():
            sizes = np.bincount(designer.transform(design).published_class_ids)
            return int(sizes[sizes > 0].min())

        mine = timed(k_of_ours)
        peer = timed(lambda: anonymity.k_anonymity(frame, ADULT_QI))
        k_ours, k_peer = mine.result, peer.result
        ours.append(mine.wall)
        theirs.append(peer.wall)
        assert k_ours == k_peer, (candidate.levels, k_ours, k_peer)
    a, b = sum(ours), sum(theirs)
    print(f"  k of {len(ours)} front releases (transform + classes): ours {a:.3f} s, pycanon.k_anonymity "
          f"{b:.3f} s (on the already transformed tables) — ratio pycanon / ours {b / a:.1f}×; k agrees")


def bench_suggest_large(source: Table, weights: Weights, sensitive: int = 4) -> float:
    designer = ReleaseDesigner(source, roles_with(sensitive), synthetic_hierarchies())
    timing = timed(lambda: suggest(designer, weights, Constraints(k=10, suppression_limit=0.01)))
    found, elapsed, cpu = timing.result, timing.wall, timing.cpu
    print(f"  {len(source):,} rows: lattice {found.lattice_size} nodes, evaluated {found.evaluated}, front "
          f"{len(found.front)} (SHA-1 of its JSON {front_sha1(found)}), {'met' if found.met else 'not met'}: wall {elapsed:.1f} s, CPU {cpu:.1f} s (all "
          f"threads) — target ≤ {TARGET_LARGE_S} s: {verdict(elapsed <= TARGET_LARGE_S)}; peak RSS "
          f"{peak_rss_mb():.0f} MB (load {load_average():.1f})")
    print(f"  {'PASS' if elapsed <= TARGET_LARGE_S else 'MISS'}: suggest on {len(source):,} rows, {elapsed:.1f} s wall "
          f"(CPU {cpu:.1f} s) against ≤ {TARGET_LARGE_S:g} s wall (load {load_average():.1f})")
    print(f"  {'PASS' if cpu <= TARGET_LARGE_CPU_S else 'MISS'}: suggest on {len(source):,} rows, {cpu:.1f} s CPU "
          f"against ≤ {TARGET_LARGE_CPU_S:g} s CPU, the wall target with margin (load {load_average():.1f})")
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--skip-large-suggest", action="store_true")
    parser.add_argument("--sensitive", type=int, default=4, help="SAs of the synthetic source used (1-4)")
    parser.add_argument("--only", choices=["move", "adult", "large"], help="run one part only")
    args = parser.parse_args(argv)
    print(f"Release designer benchmark; {machine()}")
    source = weights = None
    if args.only != "adult":
        frame, pool = make_source(args.rows, args.seed)
        source, weights = Table.from_frame(frame, name="synthetic"), make_weights(pool, args.seed)
    if args.only in (None, "move"):
        print(f"1. slider move on {args.rows:,} rows")
        bench_move(source, weights, args.repeats, args.sensitive)
    if args.only in (None, "adult"):
        print("2. suggest on adult")
        table, roles, hierarchies, found = bench_suggest_adult(2)
        print("4. peer (pycanon) on the same adult releases")
        bench_peer(table, roles, hierarchies, found)
    if args.only in (None, "large") and not args.skip_large_suggest:
        print(f"3. suggest on {args.rows:,} rows")
        bench_suggest_large(source, weights, args.sensitive)
    return 0


if __name__ == "__main__":
    sys.exit(main())
