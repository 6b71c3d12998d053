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

import resource
import time
from dataclasses import replace

from tklscore.core.learn import tasks
from tklscore.core.learn.scores import scores
from tklscore.core.learn.usefulness import usefulness

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


def main() -> None:
    tables = tasks.bundled()
    worst = 0.0
    print(f"{'table':22} {'rows':>5} {'wall s':>8} {'cpu s':>8}")
    for name, table in tables.items():
        if name in ("Person_Relational", "Job_Relational"):
            continue
        recipe = recipe_for(table)
        anonymise(name, recipe, table)   # warm the imports
        walls, cpus = [], []
        for _ in range(5):
            w, c = time.perf_counter(), time.process_time()
            anonymise(name, recipe, table)
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
        worst = max(worst, min(walls))
        print(f"{name:22} {len(table):>5} {min(walls):>8.3f} {min(cpus):>8.3f}")
    task5 = tasks.task(5)
    joined = tasks.source_table(task5)
    w, c = time.perf_counter(), time.process_time()
    anonymise("Job_Relational", task5.recipe, joined)
    print(f"{'Person⋈Job (task 5)':22} {len(joined):>5} {time.perf_counter() - w:>8.3f} {time.process_time() - c:>8.3f}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"worst wall {worst:.3f} s vs target {TARGET:.1f} s (ratio {worst / TARGET:.3f}); peak RSS {rss:.0f} MB; "
          f"no peer: the prototype is not installed")


if __name__ == "__main__":
    main()
