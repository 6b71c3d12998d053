"""Responsiveness of the desktop application on the 1,000,000-row benchmark table.

Prints how long the event loop was blocked at most (a 10 ms timer measures the gaps
between its ticks) while the source loads from CSV, the distinguishing factors are
computed and the releases are scored, how long an AHP edit takes until every view
shows the new scores, and how long switching the current release takes until the Risk
view shows the new release's privacy models, risk and D(r) (recomputed in the background),
and how long writing the recovery copy (autosave) blocks it. Each phase prints its wall and
CPU time (the whole process, every thread); the run ends with the peak RSS.
Targets: open → scores shown ≤ 1.5 s (issue 23 §4); an AHP edit ≤ 0.3 s (issue 4: median 68 ms);
no block longer than 100 ms.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui.py [--rows N] [--repeat N] [--open-only]

The project is opened in a window already shown and painted, as an officer opens it; with
``--repeat N`` it is opened N times, each run with its phases (when each task started and when
its result was handled), to see which phase makes the open time spread. Each open also prints
the process's user and system CPU time and its minor page faults: the first open in a process
pays the kernel for the memory it touches for the first time, and a user's first open in a
fresh application pays it too, so the first run's figure is the one an officer gets. Its
target here is ≤ 1.2 s (``TARGET_FIRST_OPEN_S``: the issue's 1.5 s with a margin for a loaded
or slower machine). The application takes memory in small pages (``core/memory.py``): in numpy's and Arrow's
huge pages the first open paid 0.9–1.2 s of system time, now ~0.3–0.4 s (load 7–8).
``--open-only`` measures only the opens (run it in a few fresh processes for the first open).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from PySide6.QtCore import QElapsedTimer, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from pyqtgraph.util.garbage_collector import GarbageCollector  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from _common import (CONTINUOUS_SA, N_INTERVALS, Stopwatch, load_average, machine, make_source,  # noqa: E402
                     peak_rss_mb, roles as synthetic_roles, sample as published_sample, verdict)
from tklscore.core.model.data_model import TklDataModel  # noqa: E402
from tklscore.core.model.labels import HL7_CONFIDENTIALITY  # noqa: E402
from tklscore.core.project import Project  # noqa: E402
from tklscore.core.release.selection import ReleaseDefinition  # noqa: E402
from tklscore.core.tables.roles import Roles  # noqa: E402
from tklscore.core.model.taxonomy import extract_taxonomy  # noqa: E402
from tklscore.core.tables.loading import Table  # noqa: E402
from tklscore.core.model.vocabulary import Vocabulary  # noqa: E402
from tklscore.gui.app import COLLECT_INTERVAL_S, prepare_ui_process  # noqa: E402
from tklscore.gui.main_window import MainWindow  # noqa: E402

TARGET_OPEN_S = 1.5
TARGET_FIRST_OPEN_S = 1.2   # the first open of a process, with a margin under TARGET_OPEN_S
ALIGNMENT = {"disease": "Health", "medication": "Prescription", "amount": "Age", "diagnosis": "HealthRecord"}


class BlockMeter:
    """The longest gap between ticks of a 10 ms timer: how long the event loop was blocked;
    ``longest_cpu``: the most CPU time the UI thread spent between two ticks (on a loaded,
    shared machine the wall-clock gap also counts waiting for a CPU). With a workbench it
    also logs what happened around the gaps — tasks started, their progress, their results
    handled on the UI thread (with the UI thread's CPU time), the workbench's signals — and
    :meth:`where` says what happened during the longest gap and just before it."""

    def __init__(self, workbench=None):
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.longest = self.longest_cpu = 0.0
        self.last = self.origin = 0.0
        self.last_cpu = 0.0
        self.span = (0.0, 0.0)   # the longest gap, in perf_counter seconds
        self.split = (0.0, 0.0)  # of the longest gap: the UI thread's CPU time and its wait for a CPU
        self.last_queued = 0.0
        self.events: list[tuple[float, float, str]] = []   # (began, ended, what)
        self.tasks: list[list] = []   # [name, started, result handled, process CPU at both] of each task
        if workbench is not None:
            self._watch(workbench)

    def _watch(self, workbench) -> None:
        runner = workbench.runner
        runner.busy.connect(lambda busy, name: self._note(f"task started: {name}" if busy else "no task running"))
        runner.progress.connect(lambda percent, text: self._note(f"progress {percent} % ({text})"))
        settle = runner._settle   # the results of tasks, handled on the UI thread (instrumented here only)
        start = runner.start

        def started(name, *args, **kwargs):
            task = start(name, *args, **kwargs)
            self.tasks.append([name, time.perf_counter(), None, time.process_time(), None])
            task.bench_phase = self.tasks[-1]
            return task

        def settled(task, callback, value):
            began, cpu = time.perf_counter(), time.thread_time()
            if getattr(task, "bench_phase", None) is not None:
                task.bench_phase[2], task.bench_phase[4] = began, time.process_time()
            settle(task, callback, value)
            self.events.append((began, time.perf_counter(),
                                f"result of '{task.name}' handled ({(time.thread_time() - cpu) * 1000:.0f} ms UI CPU)"))

        runner._settle = settled
        runner.start = started
        for name in ("sourceChanged", "releasesChanged", "modelChanged", "scoresChanged"):
            getattr(workbench, name).connect(lambda name=name: self._note(f"{name} handled by the views"))

    @staticmethod
    def _queued() -> float:
        """How long this (the UI) thread has waited for a CPU while ready to run (Linux: schedstat)."""
        try:
            with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as stat:
                return int(stat.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return float("nan")

    def _note(self, text: str) -> None:
        now = time.perf_counter()
        self.events.append((now, now, text))

    def start(self) -> None:
        self.longest = self.longest_cpu = 0.0
        self.events = []
        self.tasks = []
        self.last = self.origin = time.perf_counter()
        self.span = (self.last, self.last)
        self.last_cpu = time.thread_time()
        self.last_queued = self._queued()
        self.split = (0.0, 0.0)
        self.timer.start()

    def _tick(self) -> None:
        now, cpu, queued = time.perf_counter(), time.thread_time(), self._queued()
        if now - self.last > self.longest:
            self.longest, self.span = now - self.last, (self.last, now)
            self.split = (cpu - self.last_cpu, queued - self.last_queued)
        self.longest_cpu = max(self.longest_cpu, cpu - self.last_cpu)
        self.last, self.last_cpu, self.last_queued = now, cpu, queued

    def stop(self) -> float:
        self.timer.stop()
        self._tick()
        return self.longest

    def phases(self) -> str:
        """Each task since the start: when it started and when its result was handled (ms),
        and the process's CPU time meanwhile (every thread: tasks that overlap share it)."""
        ms = lambda t: "…" if t is None else f"{(t - self.origin) * 1000:.0f}"  # noqa: E731
        cpu = lambda a, b: "" if b is None else f" (CPU {(b - a) * 1000:.0f})"  # noqa: E731
        return "; ".join(f"{name} {ms(began)}–{ms(ended)}{cpu(cpu_began, cpu_ended)}"
                         for name, began, ended, cpu_began, cpu_ended in self.tasks)

    def where(self, before: int = 2) -> str:
        """The longest gap (in ms from the start of the measurement) and the events in and just before it."""
        start, end = self.span
        inside = [e for e in self.events if e[1] >= start and e[0] <= end]
        earlier = [e for e in self.events if e[1] < start][-before:]
        ms = lambda t: f"{(t - self.origin) * 1000:.0f}"  # noqa: E731
        cpu, queued = self.split
        rest = (end - start) - cpu - queued
        lines = [f"    the longest block: {ms(start)}–{ms(end)} ms after the start: the UI thread ran {cpu * 1000:.0f} ms, "
                 f"waited {queued * 1000:.0f} ms for a CPU (a busy machine), {rest * 1000:.0f} ms for the interpreter "
                 f"lock or the timer; around it:"]
        for began, ended, text in earlier + inside:
            at = ms(began) if began == ended else f"{ms(began)}–{ms(ended)}"
            lines.append(f"      {'(before) ' if ended < start else ''}{at} ms: {text}")
        if not inside:
            lines.append("      nothing handled on the UI thread in the gap: the tasks held the interpreter or the CPUs")
        return "\n".join(lines)


def build_model(frame, roles: Roles, pool: np.ndarray) -> TklDataModel:
    vocabulary = Vocabulary.builtin_thesis()
    alignment = {c: vocabulary.resolve(name) for c, name in ALIGNMENT.items()}
    taxonomy = extract_taxonomy(vocabulary, list(alignment.values()))
    positions = np.linspace(0, len(pool), N_INTERVALS + 1)[1:-1].astype(int)
    cuts = ["-inf"] + [f"{(pool[i - 1] + pool[i]) / 2:.3f}" for i in positions] + ["inf"]
    bins = [f"{'(' if lo == '-inf' else '['}{lo},{hi})" for lo, hi in zip(cuts[:-1], cuts[1:])]
    model = TklDataModel.build(taxonomy, Table.from_frame(frame.head(200_000)), roles, alignment,
                               {CONTINUOUS_SA: bins})
    labels = HL7_CONFIDENTIALITY.names
    for i, node in enumerate(n for n in model.nodes.values() if n.kind.value == "value"):
        model.set_label(node.iri, labels[1 + i % (len(labels) - 1)])
    judge = [("External", "PhysicalCharacteristic", "MedicalHealth", 1 / 4),
             ("MedicalHealth", "Health", "HealthRecord", 2), ("MedicalHealth", "Health", "Prescription", 3),
             ("MedicalHealth", "HealthRecord", "Prescription", 2)]
    for group, a, b, rating in judge:
        model.set_judgement(model.find(group).iri, model.find(a).iri, model.find(b).iri, rating)
    return model


def wait(app, condition, timeout: float = 600.0) -> None:
    """Turn the event loop until ``condition()`` holds (at most ``timeout`` seconds)."""
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("the window did not get there in time")
        app.processEvents()
        time.sleep(0.001)


def project_inputs(rows: int, seed: int, prefix: str):
    """The synthetic source written as CSV in a new folder, its roles and its tkl-Data Model:
    ``(frame, roles, model, folder, source)``."""
    frame, pool = make_source(rows, seed)
    roles = synthetic_roles()
    model = build_model(frame, roles, pool)
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    source = folder / "source.csv"
    frame.to_csv(source, index=False)
    return frame, roles, model, folder, source


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--repeat", type=int, default=1,
                        help="open the project this many times (the spread of the open time, phase by phase)")
    parser.add_argument("--open-only", action="store_true",
                        help="measure only the opens (no AHP edits, autosave or release switches): run it in a few "
                             "fresh processes to see the first open of a process")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    frame, roles, model, folder, source = project_inputs(args.rows, args.seed, "tklscore-bench-gui-")
    sample = published_sample(args.rows, np.random.default_rng(args.seed))
    project = Project(source_path=str(source), roles=roles,
                      releases=[ReleaseDefinition("10 % sample", "ids", ids=tuple(map(str, sample)))],
                      current_release="10 % sample",
                      model_turtle=model.to_graph().serialize(format="turtle"))
    project.save(folder / "bench.tklproj")
    print(f"rows = {args.rows:,}; published sample = {len(sample):,}; source CSV {source.stat().st_size / 1e6:.0f} MB")

    collector = GarbageCollector(interval=COLLECT_INTERVAL_S)   # as the application starts (gui/app.py run)
    window = MainWindow()
    prepare_ui_process()
    window.show()
    QTest.qWaitForWindowExposed(window)   # the officer opens the project in a window already on screen
    for _ in range(10):
        app.processEvents()
        time.sleep(0.01)
    bench = window.workbench
    bench.autosave_timer.stop()  # autosave is measured on its own below
    meter = BlockMeter(bench)
    verdicts: list[str] = []
    opens, open_blocks = [], []
    for run in range(1, args.repeat + 1):
        while bench.runner.current:
            app.processEvents()
            time.sleep(0.002)
        meter.start()
        before = resource.getrusage(resource.RUSAGE_SELF)
        watch = Stopwatch()
        bench.open_project(str(folder / "bench.tklproj"))
        while not bench.reports:
            app.processEvents()
            time.sleep(0.002)
        loaded, loaded_cpu = watch.wall, watch.cpu
        after = resource.getrusage(resource.RUSAGE_SELF)
        blocked_loading = meter.stop()
        opens.append((loaded, loaded_cpu, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,
                      load_average()))
        open_blocks.append(blocked_loading)
        ok_open = loaded <= TARGET_OPEN_S
        label = f"open project → scores shown{f' (run {run})' if args.repeat > 1 else ''}:"
        print(f"{label:<36s}{loaded:6.2f} s   CPU {loaded_cpu:5.2f} s  "
              f"target ≤ {TARGET_OPEN_S:g} s   "
              f"{verdict(ok_open)}{'' if ok_open or loaded_cpu > TARGET_OPEN_S else ' on wall time; PASS on CPU time'} "
              f"(load CSV, factors, score; in the background; load average {load_average():.1f})")
        print(f"    phases (ms after the open; task started–its result handled, process CPU ms): {meter.phases()}")
        print(f"    process CPU: user {after.ru_utime - before.ru_utime:.2f} s, system {after.ru_stime - before.ru_stime:.2f} s "
              f"(the kernel's share: memory touched for the first time in the process), "
              f"{after.ru_minflt - before.ru_minflt:,} minor page faults")
        print(f"longest event-loop block meanwhile:  {blocked_loading * 1000:6.0f} ms  target ≤ 100 ms   "
              f"{verdict(blocked_loading <= 0.1)}  (UI-thread CPU time of the longest: "
              f"{meter.longest_cpu * 1000:.0f} ms)")
        print(meter.where())
        # what the open does after the scores are shown (the releases' privacy models and risk,
        # in memory): finished before the next phase, so that an edit below does not wait for it
        settle = Stopwatch()
        while bench.runner.current:
            app.processEvents()
            time.sleep(0.002)
        print(f"    after the scores were shown, the open's remaining tasks (in memory: the releases' privacy "
              f"models and risk) ended in {settle.wall * 1000:.0f} ms (process CPU {settle.cpu * 1000:.0f} ms)")
    worst = max(opens)
    first, first_cpu, first_user, first_system, first_load = opens[0]
    verdicts.append(f"first open of the process → scores shown ≤ {TARGET_FIRST_OPEN_S:g} s: "
                    f"{'PASS' if first <= TARGET_FIRST_OPEN_S else 'MISS'} ({first:.2f} s; CPU {first_cpu:.2f} s = "
                    f"user {first_user:.2f} + system {first_system:.2f}; load average {first_load:.1f})")
    verdicts.append(f"open → scores shown ≤ {TARGET_OPEN_S:g} s: {'PASS' if worst[0] <= TARGET_OPEN_S else 'MISS'} "
                    f"(worst of {len(opens)}: {worst[0]:.2f} s, CPU {worst[1]:.2f} s; each "
                    f"{', '.join(f'{o[0]:.2f}' for o in opens)} s)")
    verdicts.append(f"no event-loop block > 100 ms while opening: {'PASS' if max(open_blocks) <= 0.1 else 'MISS'} "
                    f"(worst {max(open_blocks) * 1000:.0f} ms; each {', '.join(f'{b * 1000:.0f}' for b in open_blocks)} ms)")
    if args.open_only:
        return _finish(args, verdicts, bench, window, collector, folder)

    window.show_view("ahp")  # the expert edits in the AHP view (its sensitivity sweep follows each edit)
    latencies, blocks, cpu_blocks, cpus, wheres = [], [], [], [], []
    medical = bench.model.find("MedicalHealth").iri
    health, record = bench.model.find("Health").iri, bench.model.find("HealthRecord").iri
    for rating in (3, 5, 7, 9, 1 / 3):
        done = []

        def mark(done=done) -> None:
            done.append(time.perf_counter())

        bench.scoresChanged.connect(mark)
        meter.start()
        watch = Stopwatch()
        bench.edit_model("judgement", lambda m, r=rating: m.set_judgement(medical, health, record, r))
        while not done:
            app.processEvents()
            time.sleep(0.001)
        latencies.append(done[0] - watch.started)
        cpus.append(watch.cpu)
        blocks.append(meter.stop())
        cpu_blocks.append(meter.longest_cpu)
        wheres.append(meter.where())
        bench.scoresChanged.disconnect(mark)
    worst = max(latencies)
    print(f"AHP edit → new scores in every view:  median {np.median(latencies) * 1000:5.0f} ms, worst "
          f"{worst * 1000:5.0f} ms  target ≤ 300 ms   {verdict(worst <= 0.3)}  "
          f"(each: {', '.join(f'{t * 1000:.0f}' for t in latencies)} ms; CPU median "
          f"{np.median(cpus) * 1000:.0f} ms; issue 4's figure: median 68 ms)")
    print(f"longest event-loop block per edit:    {max(blocks) * 1000:5.0f} ms  target ≤ 100 ms   "
          f"{verdict(max(blocks) <= 0.1)}  (each: {', '.join(f'{b * 1000:.0f}' for b in blocks)} ms; "
          f"UI-thread CPU time of the longest: {max(cpu_blocks) * 1000:.0f} ms)")
    print(wheres[int(np.argmax(blocks))])
    verdicts.append(f"AHP edit → new scores ≤ 300 ms: {'PASS' if worst <= 0.3 else 'MISS'} (worst {worst * 1000:.0f} ms)")
    verdicts.append(f"no event-loop block > 100 ms per AHP edit: {'PASS' if max(blocks) <= 0.1 else 'MISS'} "
                    f"(worst {max(blocks) * 1000:.0f} ms)")
    while bench.runner.current:  # the last edit's sensitivity sweep (side lane)
        app.processEvents()
        time.sleep(0.002)

    # the recovery copy of the unsaved edits: a snapshot on the UI thread, written on a worker
    meter.start()
    watch = Stopwatch()
    recovery = bench.autosave()
    while bench.saving():
        app.processEvents()
        time.sleep(0.002)
    written, written_cpu = watch.wall, watch.cpu
    blocked_saving = meter.stop()
    print(f"autosave ({recovery.stat().st_size / 1e6:.1f} MB recovery copy, {len(sample):,} ids): written in "
          f"{written * 1000:.0f} ms, CPU {written_cpu * 1000:.0f} ms; longest event-loop block "
          f"{blocked_saving * 1000:.0f} ms  target ≤ 100 ms   {verdict(blocked_saving <= 0.1)}")
    print(meter.where())
    verdicts.append(f"no event-loop block > 100 ms while autosaving: {'PASS' if blocked_saving <= 0.1 else 'MISS'} "
                    f"(worst {blocked_saving * 1000:.0f} ms)")
    recovery.unlink(missing_ok=True)

    # a second, large release (added now, so that the figures above stay those of one release)
    risk = window.views["risk"]
    window.show_view("risk")  # views off screen wait until shown: the officer looks at the Risk view
    reports = bench.reports
    bench.add_release(ReleaseDefinition("most records", "filter", expression="workclass != 'workclass-00'"),
                      make_current=False)
    while bench.reports is reports or "most records" not in bench.reports or bench.runner.current:
        app.processEvents()
        time.sleep(0.002)

    def risk_shown(release: str) -> bool:
        return risk.lens is not None and risk.lens.release == release and not bench.runner.current

    while not risk_shown(bench.project.current_release):
        app.processEvents()
        time.sleep(0.002)
    switches, blocks, cpu_blocks, wheres = [], [], [], []
    sizes = {name: len(r.positions) for name, r in ((d.name, bench.resolved[d]) for d in bench.project.releases)}
    for release in ("most records", "10 % sample", "most records", "10 % sample"):
        meter.start()
        watch = Stopwatch()
        bench.set_current_release(release)
        while not risk_shown(release):
            app.processEvents()
            time.sleep(0.001)
        switches.append(watch.wall)
        blocks.append(meter.stop())
        cpu_blocks.append(meter.longest_cpu)
        wheres.append(meter.where())
    print("switch release → Risk view recomputed: " + ", ".join(f"{t:.2f} s" for t in switches)
          + f" (privacy models, attacker models, D(r) of {sizes['most records']:,} / {sizes['10 % sample']:,} "
            "records; in the background)")
    print(f"longest event-loop block per switch:  {max(blocks) * 1000:5.0f} ms  target ≤ 100 ms   "
          f"{verdict(max(blocks) <= 0.1)}  (each: {', '.join(f'{b * 1000:.0f}' for b in blocks)} ms; "
          f"UI-thread CPU time of the longest: {max(cpu_blocks) * 1000:.0f} ms)")
    print(wheres[int(np.argmax(blocks))])
    verdicts.append(f"no event-loop block > 100 ms per release switch: {'PASS' if max(blocks) <= 0.1 else 'MISS'} "
                    f"(worst {max(blocks) * 1000:.0f} ms)")
    return _finish(args, verdicts, bench, window, collector, folder)


def _finish(args, verdicts, bench, window, collector, folder) -> int:
    print(f"peak RSS {peak_rss_mb():.0f} MB; {machine()}")
    print(f"verdicts ({args.rows:,} rows; load average {load_average():.1f}: on a busy machine a MISS may be the load's):")
    for line in verdicts:
        print(f"  {line}")
    bench.undo_stack.setClean()
    bench._mark(False)
    window.close()
    collector.timer.stop()
    gc.enable()
    shutil.rmtree(folder, ignore_errors=True)  # the source CSV is large
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
