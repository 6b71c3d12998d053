"""Question templates for the tasks (§4.2's nine and task 10): each computes its correct answer on the data.

Every template reads the numbers from :func:`tklscore.core.learn.tasks.answers` (the release
designer and the risk lens), so an answer key cannot disagree with what the student sees.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

from tklscore.core.learn import datasets
from tklscore.core.learn.quiz import Question, Template, options_around
from tklscore.core.learn.tasks import answers, task


@lru_cache(maxsize=16)
def _answers(number: int, seed: int) -> dict:
    return answers(task(number), datasets.generate(seed) if seed != datasets.DEFAULT_SEED else None)


def _near(value: int, rng: np.random.Generator, low: int = 0) -> list[int]:
    spread = {value - 2, value - 1, value + 1, value + 2, value + 3, value * 2, max(value // 2, low)}
    return [v for v in sorted(spread) if v >= low and v != value]


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.1f} %"


def _templates(seed: int) -> list[Template]:
    a = lambda number: _answers(number, seed)  # noqa: E731
    out: list[Template] = []

    def add(number: int, name: str, build):
        out.append(Template(number, name, build))

    def k_question(number: int, context: str):
        def build(rng):
            k = a(number)["k"]
            options, correct = options_around(k, _near(k, rng, 1), rng)
            return Question(number, "k", f"{context} What is the smallest QID group, i.e. the k for which the "
                                         f"table is k-anonymous?", options, correct,
                            f"The smallest QID group holds {k} rows, so the table is {k}-anonymous.")
        return build

    add(1, "k", k_question(1, "Apply the recipe to Job_Large."))

    def groups_1(rng):
        groups = a(1)["groups"]
        options, correct = options_around(groups, _near(groups, rng, 1), rng)
        return Question(1, "groups", "How many different QID groups (unique combinations of age band, gender "
                                     "and town size) does the anonymised Job_Large table have?", options, correct,
                        f"Counting the distinct QID combinations gives {groups} groups.")
    add(1, "groups", groups_1)

    def guess_1(rng):
        k = a(1)["k"]
        right = Fraction(1, k)
        wrong = [Fraction(1, v) for v in _near(k, rng, 1) if v > 0] + [Fraction(1, 1)]
        options, correct = options_around(right, wrong, rng, render=lambda f: _percent(float(f)))
        return Question(1, "guess", "An attacker knows a person's age, gender and town and finds their QID "
                                    "group. At worst (the smallest group), with what probability does a "
                                    "random pick from the group find the person's row?", options, correct,
                        f"The smallest group has {k} rows: 1/{k} = {_percent(1 / k)}.")
    add(1, "guess", guess_1)

    add(2, "k", k_question(2, "Generalise gender to 'any gender' as well."))

    def compare_2(rng):
        before, after = a(1)["k"], a(2)["k"]
        right = f"It increased: k went from {before} to {after}"
        wrong = [f"It decreased: k went from {before} to {max(before - 1, 1)}", "It did not change",
                 f"It increased: k went from {before} to {after + 3}"]
        options, correct = options_around(right, wrong, rng)
        return Question(2, "compare", "Compared with task 1, what happened to privacy once gender was "
                                      "generalised?", options, correct,
                        "Merging the two genders merges pairs of groups, so groups get larger and so does k.")
    add(2, "compare", compare_2)

    add(3, "k", k_question(3, "Apply task 2's recipe (with gender as 'any gender') to the small Job table."))

    def compare_3(rng):
        small, large = a(3)["k"], a(2)["k"]
        right = f"Job_Large: k = {large} there against {small} here"
        wrong = [f"Job: k = {small} here against {large} in Job_Large", "Both are equally anonymous",
                 "It cannot be said without knowing the jobs"]
        options, correct = options_around(right, wrong, rng)
        return Question(3, "compare", "Same recipe, two tables: which one is more anonymous?", options, correct,
                        "With the same recipe, the larger table fills each QID group with more people.")
    add(3, "compare", compare_3)

    def xy_4(rng):
        xy = a(4)["xy_k"]
        options, correct = options_around(xy, _near(xy, rng, 1) + [a(4)["k"]], rng)
        return Question(4, "xy", "Disease_xy, age in intervals of 10 and every town as 'Estonia': what is the "
                                 "smallest number of different people in a QID group (the k of (X,Y)-anonymity)?",
                        options, correct,
                        f"Counting distinct names in each group gives at least {xy} people, although the "
                        f"smallest group has {a(4)['k']} rows: people with several diseases have several rows.")
    add(4, "xy", xy_4)

    def rows_4(rng):
        k = a(4)["k"]
        options, correct = options_around(k, _near(k, rng, 1) + [a(4)["xy_k"]], rng)
        return Question(4, "rows", "Disease_xy, age in intervals of 10 and every town as 'Estonia': how many ROWS does the smallest QID "
                                   "group hold?",
                        options, correct, f"The smallest group holds {k} rows (of fewer different people).")
    add(4, "rows", rows_4)

    def order_5(rng):
        right = "Join the tables first, then anonymise the joined table"
        wrong = ["Anonymise each table first, then join them", "Anonymise only the larger table",
                 "The order does not matter"]
        options, correct = options_around(right, wrong, rng)
        return Question(5, "order", "Two tables describe the same people. In which order should they be "
                                    "anonymised and joined?", options, correct,
                        "Anonymising each table alone can distort too much or protect too little; "
                        "MultiRelational k-anonymity joins first.")
    add(5, "order", order_5)

    def groups_5(rng):
        groups = a(5)["groups"]
        options, correct = options_around(groups, _near(groups, rng, 1), rng)
        return Question(5, "groups", "After the join, with QID {age in intervals of 10, gender}: how many QID "
                                     "groups are there?", options, correct, f"There are {groups} groups.")
    add(5, "groups", groups_5)

    def l_6(rng):
        l = a(6)["l_distinct"]
        options, correct = options_around(l, [0, 2, 3, 4], rng)
        return Question(6, "l", "Job_Large_Monotonous with the standard recipe: how many different jobs does "
                                "the least diverse QID group hold?", options, correct,
                        f"At least one group holds {l} job only: anyone known to be in it has that job.")
    add(6, "l", l_6)

    def single_6(rng):
        single = a(6)["single_valued_groups"]
        options, correct = options_around(single, _near(single, rng, 0), rng)
        return Question(6, "single", "How many QID groups hold a single job (and so reveal it)?", options,
                        correct, f"{single} groups have only one distinct job.")
    add(6, "single", single_6)

    def guess_7(rng):
        item = a(7)
        group = ", ".join(f"{k} {v}" for k, v in item["example_group"].items())
        right = item["guess_probability"]
        size = round(1 / right) if right else 1
        wrong = [1 / max(size - 2, 1), 1 / (size + 2), 0.5, 1.0, 2 / size]
        options, correct = options_around(right, wrong, rng, render=_percent)
        return Question(7, "guess", f"In the group ({group}), what is the chance of guessing that a person's job "
                                    f"is {item['example_value']}?", options, correct,
                        f"{item['example_value']} is {_percent(right)} of that group's rows.")
    add(7, "guess", guess_7)

    def l_7(rng):
        l = a(7)["l_distinct"]
        options, correct = options_around(l, [1, l + 1, l + 2, l + 4], rng)
        return Question(7, "l", "Job_Large with the standard recipe: for which largest l is the table "
                                "(distinct) l-diverse?", options, correct,
                        f"The least diverse group holds {l} different jobs.")
    add(7, "l", l_7)

    def legacy_8(rng):
        failing, groups = a(8)["legacy_failing_groups"], a(8)["groups"]
        options, correct = options_around(failing, _near(failing, rng, 0) + [groups - failing], rng)
        return Question(8, "legacy", f"Of the {groups} QID groups, how many have a job whose share in the group "
                                     f"differs from its share in the whole table by more than 0.1?", options,
                        correct, f"{failing} groups differ: the distributions mostly do not match.")
    add(8, "legacy", legacy_8)

    def t_8(rng):
        t = a(8)["t"]
        wrong = [t / 2, min(t + 0.1, 1.0), max(t - 0.2, 0.0), 0.1, 1.0]
        options, correct = options_around(t, wrong, rng, render=lambda v: f"{v:.3f}")
        return Question(8, "t", "What is the smallest t for which the table is t-close (the largest Earth "
                                "Mover's Distance of a group)?", options, correct,
                        f"The farthest group's job distribution is {t:.3f} from the table's.")
    add(8, "t", t_8)

    def noise_9(rng):
        options, correct = options_around("At most 10 %", ["At most 1 %", "At most 20 %", "Exactly 10 %",
                                                           "Not at all"], rng)
        return Question(9, "noise", "Noise ε = 10 was added to the salaries. By how much can a salary change?",
                        options, correct,
                        f"Each salary is drawn within ±10 % of its value (the largest change here: "
                        f"{a(9)['largest_change_percent']:.1f} %).")
    add(9, "noise", noise_9)

    add(9, "k", k_question(9, "Job_Large_Salary with the standard recipe and noise on salary."))

    def suppressed_10(rng):
        item = a(10)
        rows, total = item["suppressed_rows"], item["suppressed_rows"] + item["published_rows"]
        options, correct = options_around(rows, _near(rows, rng, 0), rng)
        return Question(10, "suppressed", f"Job with the standard recipe, leaving out the rows of QID groups "
                                          f"smaller than 2: how many of the {total} rows are left out?",
                        options, correct,
                        f"{rows} rows are alone in their QID group; leaving them out makes every group hold at "
                        f"least 2 rows, so the table becomes {item['k']}-anonymous.")
    add(10, "suppressed", suppressed_10)

    def precision_10(rng):
        right = a(10)["utility"]["precision"]
        wrong = [1.0, a(1)["utility"]["precision"], right / 2, min(right + 0.25, 0.95), max(right - 0.25, 0.05)]
        options, correct = options_around(right, wrong, rng, render=lambda v: f"{v:.3f}")
        return Question(10, "precision", "Job with the standard recipe and the lone rows left out: what is the "
                                         "precision (1 = every QID value as it was, 0 = all replaced by *)?",
                        options, correct,
                        f"Age and town are generalised one level of two (½ of their detail lost) and a left-out "
                        f"row loses all its detail: the precision is {right:.3f}.")
    add(10, "precision", precision_10)

    def tkl_10(rng):
        suppressed, generalised = a(10)["normalized"]["tkl"], a(3)["normalized"]["tkl"]
        right = ("Leaving out the lone rows (task 10)" if suppressed < generalised else
                 "Generalising gender (task 3)")
        wrong = ["Generalising gender (task 3)" if right.startswith("Leaving") else
                 "Leaving out the lone rows (task 10)", "Both leave exactly the same tkl-Score",
                 "Neither: both raise the tkl-Score above the original's"]
        options, correct = options_around(right, wrong, rng)
        return Question(10, "tkl", "Both task 3 and task 10 make the Job table 2-anonymous. Which leaves less to "
                                   "misuse, by the tkl-Score divided by the original table's?", options, correct,
                        f"Task 10 keeps {suppressed:.3f} of the original's tkl-Score, task 3 {generalised:.3f}.")
    add(10, "tkl", tkl_10)
    return out


def prepare(number: int, seed: int = datasets.DEFAULT_SEED) -> dict:
    """Compute (and keep) one task's answers, so that drawing a quiz later is instant."""
    return _answers(number, seed)


def templates(seed: int = datasets.DEFAULT_SEED) -> list[Template]:
    """All templates over the teaching tables made with ``seed``."""
    return _templates(seed)


