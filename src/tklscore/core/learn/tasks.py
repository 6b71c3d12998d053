"""The nine tasks of the PPDP teaching prototype (ppdp-prototype.md §4.2), on the workbench's engine,
and a tenth on what the prototype lacked (§0): suppression, usefulness and tkl/M/L.

A task names its dataset and a recipe (attribute types, actions, generalisation rules).
:func:`apply` runs the recipe through the release designer's transformations
(``core/release``) and measures the result with the risk lens (``core/risk``); the
answers a task reports are read from those, so they are what ``tklscore release`` and
``tklscore measures`` compute for the same data and recipe.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.learn import datasets
from tklscore.core.learn.join import join, parse_rule
from tklscore.core.release.hierarchy import Hierarchy, parse_rules
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.transform import LevelCache, ReleaseDesign, Transformed, transform
from tklscore.core.risk.measures import Measures, measure_table
from tklscore.core.tables.codes import factorize, group_ids
from tklscore.core.tables.loading import Table
from tklscore.core.tables.roles import Roles

LEGACY_T_THRESHOLD = 0.1
CITY_RULES = "\n".join(datasets.CITY_RULES)
TYPES = ("id", "qid", "sensitive", "nonsensitive")
KEEP, REMOVE, GENERALISE, NOISE = "Keep as is", "Remove column", "Generalise", "Add noise"
ACTIONS = (KEEP, REMOVE, GENERALISE, NOISE)   # what the student may do to a column


@dataclass(frozen=True)
class Recipe:
    """What the student does to the table: types, and for each column an action."""

    qi: tuple[str, ...]
    sensitive: str | None = None
    identifiers: tuple[str, ...] = ()                  # type ID: always removed from the published table
    intervals: tuple[tuple[str, int], ...] = ()        # generalise numbers to intervals of this size
    rules: tuple[tuple[str, str], ...] = ()            # generalise values by "a,b->General" lines
    noise: tuple[tuple[str, float], ...] = ()          # ±ε % uniform noise
    removed: tuple[str, ...] = ()                      # other columns removed
    join_rule: str | None = None                       # for two tables: "Left.col = Right.col"
    suppress_below: int = 0                            # rows of QID groups smaller than this are not published
    suppression_limit: float = 1.0                     # ... at most this share of the rows

    @property
    def published_qi(self) -> tuple[str, ...]:
        """The QID columns that are published (a removed QID is not, so it splits no group)."""
        return tuple(c for c in self.qi if c not in self.removed)

    def steps(self) -> list[str]:
        """The recipe in plain words, one step a line."""
        lines = []
        if self.join_rule:
            lines.append(f"Join the two tables with the rule {self.join_rule}.")
        if self.identifiers:
            lines.append(f"Mark {_names(self.identifiers)} as ID (identifiers are always removed).")
        lines.append(f"Mark {_names(self.qi)} as QID.")
        if self.sensitive:
            lines.append(f"Mark {self.sensitive} as Sensitive.")
        for column, size in self.intervals:
            lines.append(f"Generalise {column} to intervals of size {size}.")
        for column, text in self.rules:
            lines.append(f"Generalise {column} with the rules: " + "; ".join(text.splitlines()) + ".")
        for column, epsilon in self.noise:
            lines.append(f"Add noise of ±{epsilon:g} % to {column}.")
        for column in self.removed:
            lines.append(f"Remove the column {column}.")
        if self.suppress_below > 1:
            lines.append(f"Suppress (leave out) the rows of QID groups smaller than {self.suppress_below}, "
                         f"at most {_percent(self.suppression_limit)} of the rows.")
        kept = [c for c in self.qi if c not in dict(self.intervals) and c not in dict(self.rules)]
        if kept:
            lines.append(f"Keep {_names(kept)} as it is.")
        return lines


def recipe_from_columns(columns, join_rule: str | None = None) -> Recipe:
    """The student's recipe from each column's ``(name, type, action, parameter)`` (type: one
    of :data:`TYPES` or empty; action: one of :data:`ACTIONS`; parameter: an interval size,
    value rules ``a,b->General`` separated by ``;``, or the noise ε in %). Errors say in
    plain words which column and what to do."""
    kinds, intervals, rules, noise, removed = {}, [], [], [], []
    for column, kind, action, parameter in columns:
        kinds[column] = kind
        parameter = parameter.strip()
        if kind == "id" and action != REMOVE:
            raise InputError(f"{column} is an ID: identifiers are always removed; set its action "
                             f"to '{REMOVE}'")
        if action == REMOVE and kind != "id":
            removed.append(column)
        elif action == GENERALISE:
            if not parameter:
                raise InputError(f"{column}: type an interval size (a whole number) or rules such as "
                                 f"a,b->General to generalise it")
            if parameter.isdigit():
                if int(parameter) <= 0:
                    raise InputError(f"{column}: the interval size must be a positive whole number")
                intervals.append((column, int(parameter)))
            else:
                rules.append((column, "\n".join(p.strip() for p in parameter.split(";") if p.strip())))
        elif action == NOISE:
            try:
                epsilon = float(parameter)
            except ValueError:
                raise InputError(f"{column}: type the noise ε as a percentage, e.g. 10") from None
            if not 0 < epsilon < 100:
                raise InputError(f"{column}: the noise ε must lie between 0 and 100 %")
            noise.append((column, epsilon))
    sensitive = [c for c, k in kinds.items() if k == "sensitive"]
    if len(sensitive) > 1:
        raise InputError("Mark only one column as Sensitive (you marked " + ", ".join(sensitive) + ")")
    return Recipe(qi=tuple(c for c, k in kinds.items() if k == "qid"), sensitive=sensitive[0] if sensitive else None,
                  identifiers=tuple(c for c, k in kinds.items() if k == "id"), intervals=tuple(intervals),
                  rules=tuple(rules), noise=tuple(noise), removed=tuple(removed), join_rule=join_rule)


def _percent(share: float) -> str:
    return f"{share * 100:.4g} %"


def _names(columns) -> str:
    columns = list(columns)
    return columns[0] if len(columns) == 1 else ", ".join(columns[:-1]) + " and " + columns[-1]


R = Recipe(qi=("age", "gender", "city"), sensitive="job", identifiers=("name", "last name"),
           intervals=(("age", 10),), rules=(("city", CITY_RULES),))


@dataclass(frozen=True)
class Task:
    number: int
    title: str
    datasets: tuple[str, ...]
    model: str
    explanation: str
    recipe: Recipe

    @property
    def dataset(self) -> str:
        return " + ".join(self.datasets)

    @property
    def joins(self) -> bool:
        """Two tables, joined on the student's rule (MultiRelational k-anonymity)."""
        return len(self.datasets) == 2

    @property
    def practice(self) -> bool:
        return self.number == PRACTICE


TASKS = (
    Task(1, "k-anonymity on a larger table", ("Job_Large",), "k-anonymity",
         "Every QID group must hold at least k people, so that a person's row is one of at least k.",
         R),
    Task(2, "Generalising one more attribute", ("Job_Large",), "k-anonymity",
         "Generalising gender to 'any gender' merges groups: fewer, larger groups mean a larger k.",
         replace(R, rules=R.rules + (("gender", "Female,Male->any gender"),))),
    Task(3, "A small table", ("Job",), "k-anonymity",
         "The same recipe as task 2 (age in intervals of 10, towns by size and gender generalised to "
         "'any gender') on a table of only 20 people: small tables give small groups.",
         replace(R, rules=R.rules + (("gender", "Female,Male->any gender"),))),
    Task(4, "People with several rows: (X,Y)-anonymity", ("Disease_xy",), "(X,Y)-anonymity",
         "A person with several diseases has several rows; (X,Y)-anonymity counts the different people "
         "(Y = name and last name) in each QID group, not the rows.",
         Recipe(qi=("age", "gender", "city"), sensitive="disease", identifiers=("name", "last name"),
                intervals=(("age", 10),),
                rules=(("city", ",".join(datasets.CITIES) + "->Estonia"),))),
    Task(5, "Two tables: MultiRelational k-anonymity", ("Person_Relational", "Job_Relational"),
         "MultiRelational k-anonymity",
         "Join the person table with the job table first, then anonymise the joined table; the groups "
         "are counted in persons (the id).",
         Recipe(qi=("age", "gender"), sensitive="job", identifiers=("id",), intervals=(("age", 10),),
                removed=("name", "last name"), join_rule="Job_Relational.id = Person_Relational.id")),
    Task(6, "l-diversity on a monotonous table", ("Job_Large_Monotonous",), "l-diversity",
         "When a group holds one job only, knowing a person's group reveals their job, however large "
         "the group is.",
         R),
    Task(7, "l-diversity and guessing a value", ("Job_Large",), "l-diversity",
         "In a group with several different jobs, the chance to guess one person's job is the share of "
         "that job in the group.",
         R),
    Task(8, "t-closeness", ("Job_Large",), "t-closeness",
         "Each group's distribution of jobs is compared with the whole table's; the Earth Mover's "
         "Distance measures how far apart they are.",
         R),
    Task(9, "Noise on a sensitive number", ("Job_Large_Salary",), "noise (ε)",
         "Each salary is replaced by a random value within ±ε % of it; the QID groups are as in task 1.",
         Recipe(qi=("age", "gender", "city"), sensitive="salary", identifiers=("id",),
                intervals=(("age", 10),), rules=(("city", CITY_RULES),), noise=(("salary", 10.0),))),
    Task(10, "Suppression instead of generalisation", ("Job",), "k-anonymity with suppression",
         "Task 3 made the small table 2-anonymous by generalising gender. Here gender stays as it is; "
         "instead the rows that are alone in their QID group are left out of the release (record "
         "suppression). The table becomes 2-anonymous too, but those people are missing: compare the "
         "usefulness and the tkl, M and L scores with task 3's.",
         replace(R, suppress_below=2, suppression_limit=0.25)),
)


PRACTICE = 0


def practice(names) -> Task:
    """Free practice on one or two tables the student opened (bundled or imported): no
    recipe to follow and nothing to check. With two tables only MultiRelational
    k-anonymity applies: join them first (the prototype's rule)."""
    names = tuple(names)
    if not names:
        raise InputError("Tick a table to practise on, or import a CSV file")
    if len(names) > 2:
        raise InputError("Right now only 2 tables are supported: untick " + ", ".join(names[2:]))
    if len(names) == 2:
        return Task(PRACTICE, "Practice", names, "MultiRelational k-anonymity",
                    "Two tables describe the same people: type a join rule (for example "
                    f"{names[1]}.id = {names[0]}.id), then mark the joined table's columns and anonymise it.",
                    Recipe(qi=()))
    return Task(PRACTICE, "Practice", names, "any model",
                "Mark each column's type and action as you like and anonymise: every model's statistics, the "
                "usefulness and the misuse scores are shown.", Recipe(qi=()))


@dataclass
class Applied:
    """A recipe applied to a table: the published table, and the measures of the full one."""

    table: pd.DataFrame          # the source (joined for two tables)
    published: pd.DataFrame      # what would be released (identifiers removed, suppressed rows left out)
    full: pd.DataFrame           # the published rows with their identifiers, for (X,Y)
    recipe: Recipe
    measures: Measures
    class_ids: np.ndarray        # each published row's QID group
    groups: pd.DataFrame = field(default_factory=pd.DataFrame)   # one row per group: QID values, rows, persons, distinct
    transformed: Transformed | None = None      # the release designer's view of the same release
    levels: LevelCache | None = None
    designer: ReleaseDesigner | None = None     # None without a sensitive column (nothing to score)

    @property
    def class_sizes(self) -> np.ndarray:
        return self.groups["rows"].to_numpy()

    @property
    def repeated_people(self) -> bool:
        """Whether a QID group holds several rows of one person (the ID values repeat)."""
        if not self.recipe.identifiers or "persons" not in self.groups:
            return False
        return bool(self.groups["persons"].sum() < len(self.full))

    @property
    def most_persons(self) -> int:
        """The most different people (ID values) one QID group holds."""
        return int(self.groups["persons"].max())

    @property
    def most_distinct(self) -> int:
        """The most different sensitive values one QID group holds."""
        return int(self.groups["distinct"].max())

    @property
    def single_valued_groups(self) -> int:
        """The QID groups that hold a single sensitive value (anyone in them has it)."""
        return int((self.groups["distinct"] == 1).sum())

    @property
    def single_valued_rows(self) -> np.ndarray:
        """Per published row: its QID group holds one sensitive value only (anyone in it has it)."""
        if "distinct" not in self.groups:
            return np.zeros(len(self.full), dtype=bool)
        return (self.groups["distinct"].to_numpy() == 1)[self.class_ids]

    def sensitive_shares(self) -> pd.Series:
        """Each sensitive value's share of the published rows, largest first (the prototype's
        "Distribution of sensitive attributes")."""
        return self.full[self.recipe.sensitive].astype(str).value_counts(normalize=True)

    @property
    def suppressed(self) -> pd.DataFrame:
        """The source rows left out of the release by suppression."""
        return self.table.iloc[self.transformed.suppressed]

    def size_histogram(self) -> dict[int, int]:
        sizes, counts = np.unique(self.class_sizes, return_counts=True)
        return {int(s): int(c) for s, c in zip(sizes, counts)}


bundled = datasets.bundled


def source_table(task: Task, tables: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    tables = tables or bundled()
    if len(task.datasets) == 1:
        return tables[task.datasets[0]]
    left, right = task.datasets
    return join(tables[left], tables[right], [parse_rule(task.recipe.join_rule, left, right)], left, right)


def hierarchies(recipe: Recipe) -> dict[str, Hierarchy]:
    out = {column: Hierarchy.intervals(column, [size]) for column, size in recipe.intervals}
    out.update({column: Hierarchy.from_rules(column, text) for column, text in recipe.rules})
    return out


def continuous(recipe: Recipe, table: pd.DataFrame) -> tuple[str, ...]:
    """The sensitive column is a number to the measures and scores (ordered EMD, interval
    weights) when noise is added to it or every value is a number (salary)."""
    column = recipe.sensitive
    if column is None:
        return ()
    if column in dict(recipe.noise):
        return (column,)
    if column in dict(recipe.intervals) or column in dict(recipe.rules):
        return ()             # published as labels such as [50, 60)
    numbers = pd.to_numeric(table[column], errors="coerce")
    return (column,) if len(numbers) and numbers.notna().all() else ()


def check_actions(recipe: Recipe, table: pd.DataFrame) -> None:
    """Each action fits its column, or an error in plain words saying what to do instead."""
    for column, _ in recipe.intervals:
        text = _first_text(table[column])
        if text is not None:
            raise InputError(f"{column} holds text such as '{text}': interval sizes are for numbers; generalise "
                             f"it with value rules such as {text}->General instead")
    for column, rules in recipe.rules:
        covered = {member for _, members in parse_rules(rules, column) for member in members}
        missing = [v for v in dict.fromkeys(table[column].astype(str)) if v not in covered]
        if missing:
            shown = ", ".join(missing[:6]) + (" …" if len(missing) > 6 else "")
            raise InputError(f"{column}: {shown} {'has' if len(missing) == 1 else 'have'} no rule; add "
                             f"{'it' if len(missing) == 1 else 'them'} to a rule, e.g. {','.join(missing[:2])}->General")
    for column, _ in recipe.noise:
        if column in recipe.qi:
            raise InputError(f"{column} is a QID: noise is for a sensitive number (such as salary); generalise a "
                             f"QID instead")
        text = _first_text(table[column])
        if text is not None:
            raise InputError(f"{column} holds text such as '{text}': noise can only be added to numbers")


def _first_text(values: pd.Series) -> str | None:
    numbers = pd.to_numeric(values, errors="coerce")
    bad = numbers.isna().to_numpy()
    return str(values.iloc[int(np.flatnonzero(bad)[0])]) if bad.any() else None


def design(recipe: Recipe, seed: int = 0) -> ReleaseDesign:
    """The release designer's definition of what the recipe does."""
    return ReleaseDesign(name="learn", levels=tuple((c, 1) for c in hierarchies(recipe)),
                         suppress_below=recipe.suppress_below, suppression_limit=recipe.suppression_limit,
                         removed=frozenset(recipe.removed), noise=tuple(recipe.noise), seed=seed)


def apply(recipe: Recipe, table: pd.DataFrame, seed: int = 0) -> Applied:
    """The release a recipe makes of ``table`` and its measures (ID columns kept aside for (X,Y))."""
    missing = [c for c in (*recipe.qi, *recipe.identifiers, *recipe.removed,
                           *([recipe.sensitive] if recipe.sensitive else [])) if c not in table.columns]
    if missing:
        raise InputError(f"the table has no column {_names(missing)}")
    if not recipe.qi:
        raise InputError("QID not defined: mark at least one column as QID")
    if not recipe.published_qi:
        raise InputError("Every QID column is removed, so nothing in the table links a row to a person: keep at "
                         "least one QID column (generalise it instead of removing it)")
    if recipe.sensitive in recipe.removed:
        raise InputError(f"{recipe.sensitive} is the Sensitive column: keep it (or add noise to a number); to "
                         f"leave it out, set its type to Not defined")
    if recipe.suppress_below < 0 or not 0 <= recipe.suppression_limit <= 1:
        raise InputError("suppression needs a group size of at least 0 and a share of the rows between 0 and 100 %")
    check_actions(recipe, table)
    source = Table.from_frame(table, name="teaching table")
    roles = Roles(qi=recipe.qi, sa=(recipe.sensitive,) if recipe.sensitive else (),
                  continuous=continuous(recipe, table))
    built = hierarchies(recipe)
    designer = ReleaseDesigner(source, roles, built) if roles.sa else None
    levels = designer.levels if designer is not None else LevelCache(source, roles, built)
    transformed = transform(source, roles, design(recipe, seed), built, levels)
    if len(transformed.published) == 0:
        raise InputError(f"every row is suppressed: no QID group has {recipe.suppress_below} rows; "
                         f"generalise more or lower the group size below which rows are suppressed")
    full = transformed.published_table()
    published = full.drop(columns=list(recipe.identifiers))
    measures = measure_table(full, qi=recipe.published_qi, sa=roles.sa, identifier_columns=recipe.identifiers,
                             continuous=sorted(roles.continuous))
    classes = measures.equivalence_class
    count = int(classes.max()) + 1
    first = np.full(count, -1)
    first[classes[::-1]] = np.arange(len(classes))[::-1]
    groups = full.iloc[first][list(recipe.published_qi)].reset_index(drop=True)
    groups["rows"] = np.bincount(classes, minlength=count)
    if recipe.identifiers:
        persons, _ = group_ids([(classes, count)] + [factorize(full[c].to_numpy()) for c in recipe.identifiers],
                               len(full))
        groups["persons"] = _distinct_per_group(classes, persons, count)
    if recipe.sensitive:
        groups["distinct"] = _distinct_per_group(classes, factorize(full[recipe.sensitive].to_numpy()).codes,
                                                 count)
    return Applied(table, published, full, recipe, measures, classes, groups, transformed, levels, designer)


def _distinct_per_group(classes: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    pairs, n_pairs = group_ids([(classes, count), (values, int(values.max()) + 1)], len(classes))
    group_of_pair = np.zeros(n_pairs, dtype=np.int64)
    group_of_pair[pairs] = classes
    return np.bincount(group_of_pair, minlength=count)


def legacy_t_failures(applied: Applied, threshold: float = LEGACY_T_THRESHOLD) -> np.ndarray:
    """The prototype's t-check (not EMD): a group fails when a value present in it has a share
    that differs from its share in the whole table by more than ``threshold``; the failing
    groups' ids."""
    classes = applied.class_ids
    values = factorize(applied.full[applied.recipe.sensitive].to_numpy())
    count = int(classes.max()) + 1
    pairs, n_pairs = group_ids([(classes, count), values], len(classes))
    pair_rows = np.bincount(pairs, minlength=n_pairs)
    group_of_pair = np.zeros(n_pairs, dtype=np.int64)
    value_of_pair = np.zeros(n_pairs, dtype=np.int64)
    group_of_pair[pairs], value_of_pair[pairs] = classes, values.codes
    table_share = np.bincount(values.codes, minlength=values.cardinality) / len(classes)
    group_share = pair_rows / np.bincount(classes, minlength=count)[group_of_pair]
    failing = np.abs(group_share - table_share[value_of_pair]) > threshold
    return np.unique(group_of_pair[failing])


def answers(task: Task, tables: dict[str, pd.DataFrame] | None = None, seed: int = 0) -> dict:
    """The numbers the task asks about, computed on the task's data after its recipe."""
    applied = apply(task.recipe, source_table(task, tables), seed)
    m = applied.measures
    out = {"groups": m.classes.count, "smallest_group": m.classes.min, "largest_group": m.classes.max,
           "k": m.k, "group_sizes": applied.size_histogram()}
    if task.number == 4:
        out.update({"xy_k": m.models.xy_anonymity, "most_persons": applied.most_persons})
    if task.number == 5:
        out.update({"rows": len(applied.full), "persons_k": m.models.xy_anonymity})
    if task.number in (6, 7):
        out.update({"l_distinct": m.models.l_distinct, "most_distinct": applied.most_distinct,
                    "single_valued_groups": applied.single_valued_groups, "l_entropy": m.models.l_entropy})
    if task.number == 7:
        group, value, share = guess_example(applied)
        out.update({"example_group": group, "example_value": value, "guess_probability": share})
    if task.number == 8:
        failing = legacy_t_failures(applied)
        out.update({"t": m.models.t, "legacy_failing_groups": int(len(failing)),
                    "legacy_similar_groups": int(m.classes.count - len(failing))})
    if task.number == 9:
        before = pd.to_numeric(applied.table["salary"]).to_numpy()
        after = pd.to_numeric(applied.published["salary"]).to_numpy()
        out.update({"largest_change_percent": float(np.max(np.abs(after - before) / before) * 100)})
    out.update(release_answers(applied, task.datasets))
    return out


def export(applied: Applied, path) -> Path:
    """Write the anonymised (published) table as CSV, atomically and never over an input."""
    from tklscore.core.files.atomic import atomic_write

    path = Path(path)
    if path.suffix.lower() != ".csv":
        raise InputError(f"{path.name}: the anonymised table is exported as CSV; name the file ….csv")
    with atomic_write(path) as handle:
        applied.published.to_csv(handle, index=False, lineterminator="\n")
    return path


def release_answers(applied: Applied, dataset_names) -> dict:
    """Suppression, usefulness and tkl/M/L of an applied recipe, as ``tklscore release`` names them."""
    from tklscore.core.learn.scores import scores
    from tklscore.core.learn.usefulness import usefulness

    out = {"published_rows": int(len(applied.transformed.published)),
           "suppressed_rows": int(len(applied.transformed.suppressed)),
           "utility": usefulness(applied).current.as_dict()}
    scored = scores(applied, dataset_names)
    if scored is not None:
        out.update({"scores": scored.raw.as_dict(), "normalized": scored.normalised.as_dict(),
                    "original_scores": scored.original.as_dict()})
    return out


def guess_example(applied: Applied) -> tuple[dict, str, float]:
    """The most diverse group's QID values, its rarest value and the chance to guess it."""
    groups = applied.groups
    index = int(groups["distinct"].idxmax())
    rows = applied.full[applied.class_ids == index][applied.recipe.sensitive]
    counts = rows.value_counts(sort=False)
    value = str(counts.idxmin())
    qid = {c: str(groups.loc[index, c]) for c in applied.recipe.published_qi}
    return qid, value, float(counts.min() / len(rows))


def check_applied(task: Task, recipe: Recipe) -> list[str]:
    """What differs between the student's recipe and the task's, in plain words (empty: applied)."""
    want, got = task.recipe, recipe
    problems = []
    if set(got.qi) != set(want.qi):
        problems.append(f"The QIDs should be {_names(want.qi)}; you marked "
                        f"{_names(got.qi) if got.qi else 'none'}.")
    if got.sensitive != want.sensitive:
        problems.append(f"The sensitive column should be {want.sensitive}; you marked {got.sensitive or 'none'}.")
    if set(got.identifiers) != set(want.identifiers):
        problems.append(f"The ID columns should be {_names(want.identifiers)}.")
    if dict(got.intervals) != dict(want.intervals):
        for column, size in want.intervals:
            problems.append(f"Generalise {column} to intervals of size {size}.")
    want_rules = {c: _rule_sets(t) for c, t in want.rules}
    got_rules = {c: _rule_sets(t) for c, t in got.rules}
    for column, rules in want_rules.items():
        if got_rules.get(column) != rules:
            problems.append(f"Generalise {column} with the rules " + "; ".join(
                f"{','.join(sorted(m))}->{g}" for g, m in sorted(rules)) + ".")
    for column in set(got_rules) - set(want_rules):
        problems.append(f"Keep {column} as it is in this task.")
    if dict(got.noise) != dict(want.noise):
        for column, epsilon in want.noise:
            problems.append(f"Add noise of ±{epsilon:g} % to {column}.")
    if (max(got.suppress_below, 1), got.suppression_limit) != (max(want.suppress_below, 1), want.suppression_limit):
        if want.suppress_below > 1:
            problems.append(f"Suppress the rows of QID groups smaller than {want.suppress_below}, at most "
                            f"{_percent(want.suppression_limit)} of the rows.")
        elif got.suppress_below > 1:
            problems.append("Suppress no rows in this task.")
    return problems


def _rule_sets(text: str) -> frozenset:
    return frozenset((group.lower(), frozenset(members)) for group, members in parse_rules(text))


def task(number: int) -> Task:
    for t in TASKS:
        if t.number == number:
            return t
    raise InputError(f"there is no task {number}; the tasks are 1 to {len(TASKS)}")
