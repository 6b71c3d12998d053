"""Learn mode's NFR14 (ppdp-prototype.md §1.4): anonymising any built-in dataset takes < 1 s.

For each teaching table, times one "Anonymise" as the Learn view runs it off the UI
thread: the recipe through the release designer (generalisation, suppression, noise), the
risk lens' measures, the prototype's legacy t-check, the usefulness against the original
and tkl/M/L with the teaching weights. Prints wall and CPU time (best of 5) and peak RSS.
There is no peer figure: the prototype (a Spring Boot web application with a TypeScript
front end) is not installed here; the target is the requirement's 1 s.

    .venv/bin/python benchmarks/bench_learn.py
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, peak_rss_mb, timed, verdict  # noqa: E402

from tklscore.core.learn import tasks  # noqa: E402
from tklscore.core.learn.scores import scores  # noqa: E402
from tklscore.core.learn.usefulness import usefulness  # noqa: E402

TARGET = 1.0


def recipe_for(table) -> tasks.Recipe:
    sensitive = "disease" if "disease" in table else "salary" if "salary" in table else "job"
    identifiers = tuple(c for c in ("id", "name", "last name") if c in table)
    qi = tuple(c for c in ("age", "gender", "city") if c in table)
    rules = (("city", tasks.CITY_RULES),) if "city" in table else ()
    noise = ((sensitive, 10.0),) if sensitive == "salary" else ()
    return replace(tasks.R, qi=qi, sensitive=sensitive, identifiers=identifiers, rules=rules, noise=noise,
                   suppress_below=3, suppression_limit=0.1)


def anonymise(name: str, recipe: tasks.Recipe, table) -> None:
    applied = tasks.apply(recipe, table)
    tasks.legacy_t_failures(applied)
    usefulness(applied)
    scores(applied, (name,))


def main() -> int:
    tables = tasks.bundled()
    worst = 0.0
    print(machine())
    print(f"{'table':22} {'rows':>5} {'wall s':>8} {'cpu s':>8}")
    for name, table in tables.items():
        if name in ("Person_Relational", "Job_Relational"):
            continue
        recipe = recipe_for(table)
        timing = timed(lambda: anonymise(name, recipe, table), 5, warmup=1)   # the warm-up: the imports
        worst = max(worst, timing.best)
        print(f"{name:22} {len(table):>5} {timing.best:>8.3f} {timing.best_cpu:>8.3f}")
    task5 = tasks.task(5)
    joined = tasks.source_table(task5)
    joined_timing = timed(lambda: anonymise("Job_Relational", task5.recipe, joined))
    print(f"{'Person⋈Job (task 5)':22} {len(joined):>5} {joined_timing.wall:>8.3f} {joined_timing.cpu:>8.3f}")
    print(f"worst wall {worst:.3f} s vs target {TARGET:.1f} s (ratio {worst / TARGET:.3f}): {verdict(worst < TARGET)}; "
          f"peak RSS {peak_rss_mb():.0f} MB; no peer: the prototype is not installed")
    return 0 if worst < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
