"""The l-DF of every node of suggest's 1M-row lattice (issue 23 §4), serially, as the search asks
for it: each node's classes from the designer's transformation, its l-DF from its direct
generalisations' masks (``LatticeL``), in the search's top-down order.

    .venv/bin/python benchmarks/bench_lattice_l.py [--rows N] [--seed S] [--peer-nodes P]

Prints the thread CPU time of the l-DF over all 162 nodes, split by how each node was counted
(one sort of every row, ``_l_by_runs``, or each SA's open rows apart, ``_l_per_attribute``), and a
SHA-1 of every node's l — what the search reads; the masks a node hands its specialisations are
the l-DF's own state (any superset of the rows that matter is right) and are not hashed: a change
that must keep the l compares it with the base's. The
peer: the plain l-DF (``l_distinguishing_factor``, no lattice) of P nodes spread over the order,
timed in the same run beside the lattice's l-DF of the same nodes. Thread CPU, not wall: the
machine is shared.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, make_source  # noqa: E402
from bench_release import roles_with, synthetic_hierarchies  # noqa: E402

from tklscore.core import Table  # noqa: E402
import tklscore.core.scoring.distinguishing_factors as factors  # noqa: E402
from tklscore.core.release.designer import ReleaseDesigner  # noqa: E402
from tklscore.core.release.suggest import lattice  # noqa: E402
from tklscore.core.release.transform import ReleaseDesign  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--peer-nodes", type=int, default=6)
    args = parser.parse_args(argv)
    print(f"l-DF of a lattice's nodes; {machine()}")
    frame, _ = make_source(args.rows, args.seed)
    designer = ReleaseDesigner(Table.from_frame(frame, name="synthetic"), roles_with(4), synthetic_hierarchies())
    sa = list(designer._sa_codes(ReleaseDesign(), list(designer.roles.sa)).values())
    groups = factors.sa_groups(sa, args.rows)
    columns, heights = lattice(designer, ReleaseDesign())
    nodes = sorted(itertools.product(*[range(h + 1) for h in heights]), key=lambda n: (-sum(n), n))
    peers = set(np.linspace(0, len(nodes) - 1, max(args.peer_nodes, 0)).astype(int).tolist()) if args.peer_nodes else set()
    spent = {"_l_by_runs": [0.0, 0], "_l_per_attribute": [0.0, 0]}
    for name in spent:
        def timed(*a, original=getattr(factors, name), name=name, **k):
            start = time.thread_time()
            try:
                return original(*a, **k)
            finally:
                spent[name][0] += time.thread_time() - start
                spent[name][1] += 1
        setattr(factors, name, timed)
    lattice_l, digest = factors.LatticeL(), hashlib.sha1()
    total = ours = plain = 0.0
    for index, node in enumerate(nodes):
        design = ReleaseDesign(levels=dict(zip(columns, node)))
        classes = designer._source_classes(designer.transform(design))[:2]   # (ids, count): the sizes are not read
        levels = tuple(design.level(c) for c in designer.roles.qi)
        start = time.thread_time()
        l, masks = factors.l_of_classes(classes, groups, lattice_l.known(levels, None, len(sa)))
        lattice_l.keep(levels, None, masks, args.rows)
        used = time.thread_time() - start
        total += used
        digest.update(np.ascontiguousarray(l, dtype=np.int64).tobytes())
        if index in peers:
            start = time.thread_time()
            reference = factors.l_distinguishing_factor([], sa, args.rows, classes=classes)
            plain += time.thread_time() - start
            ours += used
            assert np.array_equal(reference, l), node
    print(f"  {len(nodes)} nodes: l-DF {total:.2f} s thread CPU ({total / len(nodes) * 1e3:.0f} ms a node); "
          + ", ".join(f"{name} {s:.2f} s over {n} nodes" for name, (s, n) in spent.items()))
    print(f"  SHA-1 of every node's l: {digest.hexdigest()}")
    if ours:
        print(f"  peer, the plain l-DF of {len(peers)} of the nodes: {plain:.2f} s against the lattice's {ours:.2f} s "
              f"for the same nodes — ratio plain / lattice {plain / ours:.1f}×; the same l")
    return 0


if __name__ == "__main__":
    sys.exit(main())
