"""The quiz: one question a task, drawn per visit from templates whose answers the core computes.

A template turns the data a student sees into a multiple-choice question: the correct
option is computed (never keyed by hand), the wrong ones are plausible neighbours, and the
explanation says why the right one is right. Marking compares the chosen option with the
computed one, so no key can be wrong.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from tklscore.core.errors import InputError


@dataclass(frozen=True)
class Question:
    task: int
    template: str
    text: str
    options: tuple[str, ...]
    correct: int
    explanation: str

    def __post_init__(self):
        if not 0 <= self.correct < len(self.options) or len(set(self.options)) != len(self.options):
            raise ValueError(f"question '{self.template}': options must be distinct and hold the answer")


@dataclass(frozen=True)
class Template:
    """``build(rng)`` returns a :class:`Question` computed on the task's data."""

    task: int
    name: str
    build: Callable[[np.random.Generator], Question]


@dataclass(frozen=True)
class Mark:
    question: Question
    chosen: int | None

    @property
    def right(self) -> bool:
        return self.chosen == self.question.correct


@dataclass
class QuizResult:
    marks: list[Mark]
    finished: datetime = field(default_factory=lambda: datetime.now().astimezone())

    @property
    def score(self) -> int:
        return sum(mark.right for mark in self.marks)

    @property
    def total(self) -> int:
        return len(self.marks)


def options_around(correct, candidates: Sequence, rng: np.random.Generator, count: int = 4,
                   render: Callable = str) -> tuple[tuple[str, ...], int]:
    """``count`` distinct rendered options holding ``correct`` at a random place, the others
    drawn from ``candidates`` (values that differ from the correct one once rendered)."""
    right = render(correct)
    others = []
    for value in candidates:
        text = render(value)
        if text != right and text not in others:
            others.append(text)
    rng.shuffle(others)
    chosen = others[: count - 1] + [right]
    order = rng.permutation(len(chosen))
    options = tuple(chosen[i] for i in order)
    return options, options.index(right)


def draw(templates: Sequence[Template], seed: int | None = None) -> list[Question]:
    """One question per task (the task's template drawn at random), tasks in order."""
    rng = np.random.default_rng(seed)
    by_task: dict[int, list[Template]] = {}
    for template in templates:
        by_task.setdefault(template.task, []).append(template)
    questions = []
    for task in sorted(by_task):
        candidates = by_task[task]
        template = candidates[int(rng.integers(len(candidates)))]
        questions.append(template.build(rng))
    return questions


def mark(questions: Sequence[Question], answers: Sequence[int | None]) -> QuizResult:
    """Mark the chosen option indices; every question must be answered (as the prototype's Submit)."""
    if len(answers) != len(questions):
        raise InputError(f"the quiz has {len(questions)} questions but {len(answers)} answers were given")
    missing = [q.task for q, a in zip(questions, answers) if a is None]
    if missing:
        raise InputError("answer every question before submitting: task(s) "
                         + ", ".join(str(t) for t in missing) + " have no answer yet")
    for question, answer in zip(questions, answers):
        if not 0 <= answer < len(question.options):
            raise InputError(f"task {question.task}: there is no option {answer + 1}")
    return QuizResult([Mark(q, a) for q, a in zip(questions, answers)])


def results_html(result: QuizResult, student: str = "") -> str:
    """A stand-alone HTML page of the marked quiz: score, each question, the chosen and the right answer, why."""
    e = html.escape
    rows = []
    for mark_ in result.marks:
        q = mark_.question
        items = []
        for index, option in enumerate(q.options):
            style = ""
            if index == q.correct:
                style = ' style="color:#1b6e1b;font-weight:bold"'
            elif index == mark_.chosen:
                style = ' style="color:#a11;text-decoration:line-through"'
            tick = " ← your answer" if index == mark_.chosen else ""
            items.append(f"<li{style}>{e(option)}{e(tick)}</li>")
        verdict = "right" if mark_.right else "wrong"
        colour = "#1b6e1b" if mark_.right else "#a11"
        rows.append(f'<h3>Task {q.task} — <span style="color:{colour}">{verdict}</span></h3>'
                    f"<p>{e(q.text)}</p><ol>{''.join(items)}</ol><p><i>Why:</i> {e(q.explanation)}</p>")
    who = f"<p>Student: {e(student)}</p>" if student else ""
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Quiz results</title></head>"
            "<body style='font-family:sans-serif'>"
            f"<h1>PPDP quiz: {result.score} / {result.total}</h1>{who}"
            f"<p>Taken {e(result.finished.strftime('%Y-%m-%d %H:%M %Z'))}</p>{''.join(rows)}</body></html>")


def save_results(result: QuizResult, path: str | Path, student: str = "") -> Path:
    from tklscore.core.files.atomic import atomic_write

    path = Path(path)
    with atomic_write(path) as handle:
        handle.write(results_html(result, student))
    return path
