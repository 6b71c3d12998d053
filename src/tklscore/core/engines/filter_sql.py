"""A filter release's expression (pandas query syntax, as
:func:`tklscore.core.release.selection.filter_positions` evaluates it in memory) as a SQL
predicate that DuckDB and Spark SQL run over the source file, selecting the same records.

The expression is parsed with Python's :mod:`ast` and only a whitelist is translated:
column names (in backticks when they hold spaces), quoted text, numbers, ``==``, ``!=``,
``<``, ``<=``, ``>``, ``>=`` (chained too), ``in`` / ``not in`` a list or tuple,
``and``/``or``/``not`` (and pandas' ``&``/``|``/``~``, with the precedence pandas gives
them), parentheses. Anything else is an :class:`InputError` naming what is not supported
out of core.

Comparisons follow the in-memory evaluation: a continuous column compares as numbers,
every other column as its text (values as written); text never equals a number (``==`` is
false, ``!=`` true) and ordering text against a number is an error, as in pandas.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tklscore.core.errors import InputError, shorten

_HINT = ("use column names (in backticks when they contain spaces), ==, !=, <, <=, >, >=, in [...], "
         "and, or, not, parentheses, quoted text such as 'Flu' and numbers")
_ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_EQUAL = {ast.Eq: "=", ast.NotEq: "<>"}
_SWAPPED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}
_PLACEHOLDER = "__tkl_column_"


@dataclass(frozen=True)
class FilterColumn:
    """How the SQL reads a column: as its text (values as written, missing: the empty
    text) and, for a continuous column, as a number (``number`` None: compared as text)."""

    text: str
    number: str | None = None


@dataclass(frozen=True)
class FilterExpression:
    """A parsed filter: the columns it names, and its SQL once they are known."""

    expression: str
    tree: ast.Expression
    names: dict[str, str]        # placeholder identifiers → backticked column names

    @property
    def columns(self) -> list[str]:
        """The column names the expression uses, in order of first use."""
        seen: list[str] = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name):
                name = self.names.get(node.id, node.id)
                if name not in seen:
                    seen.append(name)
        return seen

    def to_sql(self, columns: dict[str, FilterColumn], literal=None) -> str:
        """The SQL predicate, given how the SQL reads each column the expression names."""
        return _Translator(self, columns, literal or sql_text).boolean(self.tree.body)


def parse_filter(expression: str) -> FilterExpression:
    """Parse a filter expression (an :class:`InputError` if it is empty or not valid)."""
    if not (expression or "").strip():
        raise InputError("the filter expression is empty")
    cleaned, names = _clean(expression)
    try:
        tree = ast.parse(cleaned.strip(), mode="eval")
    except SyntaxError as error:
        raise InputError(f"filter '{expression}' is not a valid expression ({error.msg})", hint=_HINT) from None
    return FilterExpression(expression, tree, names)


def filter_to_sql(expression: str, columns: dict[str, FilterColumn]) -> str:
    """``parse_filter(expression).to_sql(columns)``."""
    return parse_filter(expression).to_sql(columns)


def check_filter(expression: str, columns, continuous=frozenset()) -> None:
    """Refuse at once a filter that cannot be translated over these columns (continuous
    ones compared as numbers), before the engine reads the source."""
    filter_to_sql(expression, {c: FilterColumn("t", "n" if c in continuous else None) for c in columns})


def sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def sql_number(value: float) -> str:
    return f"CAST('{float(value)!r}' AS DOUBLE)"


def _clean(expression: str) -> tuple[str, dict[str, str]]:
    """Backticked names become identifiers, and ``&``/``|`` outside quotes become ``and``/
    ``or`` (pandas gives them the precedence of their boolean cousins)."""
    out, names, i, quote = [], {}, 0, None
    while i < len(expression):
        char = expression[i]
        if quote:
            out.append(char)
            if char == "\\" and i + 1 < len(expression):
                out.append(expression[i + 1])
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char == "`":
            end = expression.find("`", i + 1)
            if end < 0:
                raise InputError(f"filter '{expression}' opens a backtick that is not closed", hint=_HINT)
            placeholder = f"{_PLACEHOLDER}{len(names)}"
            names[placeholder] = expression[i + 1:end]
            out.append(f" {placeholder} ")
            i = end
        elif char == "&":
            out.append(" and ")
        elif char == "|":
            out.append(" or ")
        else:
            out.append(char)
        i += 1
    return "".join(out), names


class _Translator:
    def __init__(self, parsed: FilterExpression, columns: dict[str, FilterColumn], literal):
        self.parsed = parsed
        self.columns = columns
        self.literal = literal

    def refuse(self, what: str) -> InputError:
        return InputError(f"filter '{self.parsed.expression}': {what} is not supported out of core", hint=_HINT)

    # ------------------------------------------------------------------ true/false

    def boolean(self, node: ast.AST) -> str:
        if isinstance(node, ast.BoolOp):
            joiner = " AND " if isinstance(node.op, ast.And) else " OR "
            return "(" + joiner.join(self.boolean(v) for v in node.values) + ")"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.Invert)):
            return f"(NOT {self.boolean(node.operand)})"
        if isinstance(node, ast.Compare):
            parts, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                parts.append(self.compare(left, op, right))
                left = right
            return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"
        if isinstance(node, (ast.Name, ast.Constant)):
            raise InputError(f"filter '{self.parsed.expression}' does not give true/false for each record "
                             f"({self.unparse(node)} on its own)", hint=_HINT)
        raise self.refuse(self.describe(node))

    # ------------------------------------------------------------------ comparisons

    def compare(self, left: ast.AST, op: ast.cmpop, right: ast.AST) -> str:
        if isinstance(op, (ast.In, ast.NotIn)):
            return self.membership(left, isinstance(op, ast.NotIn), right)
        if type(op) not in _ORDER and type(op) not in _EQUAL:
            raise self.refuse(f"the operator '{_op_text(op)}'")
        a, b = self.operand(left), self.operand(right)
        if a[0] == "literal" and b[0] == "literal":
            raise self.refuse(f"comparing two constants ({self.unparse(left)} and {self.unparse(right)})")
        if a[0] == "literal":  # 30 < Age reads as Age > 30
            a, b, op = b, a, _SWAPPED[type(op)]()
        kind_a, kind_b = a[1], b[1]
        if kind_a != kind_b:
            if isinstance(op, ast.Eq):
                return "FALSE"
            if isinstance(op, ast.NotEq):
                return "TRUE"
            raise InputError(f"filter '{self.parsed.expression}' cannot be evaluated: it orders "
                             f"{self.shown(a)} against {self.shown(b)} (text and numbers do not compare)",
                             hint="compare a continuous column with numbers and other columns with quoted text")
        sign = _ORDER.get(type(op)) or _EQUAL[type(op)]
        return f"({a[2]} {sign} {b[2]})"

    def membership(self, left: ast.AST, negated: bool, right: ast.AST) -> str:
        column = self.operand(left)
        if column[0] != "column":
            raise self.refuse(f"'in' after {self.unparse(left)} (it needs a column on its left)")
        if not isinstance(right, (ast.List, ast.Tuple)):
            raise self.refuse(f"'in' {self.unparse(right)} (it needs a list such as ['a', 'b'])")
        members = [self.operand(element) for element in right.elts]
        if any(m[0] != "literal" for m in members):
            raise self.refuse(f"'in' a list holding a column ({self.unparse(right)})")
        alike = [m[2] for m in members if m[1] == column[1]]
        if not alike:
            return "TRUE" if negated else "FALSE"
        return f"({column[2]} {'NOT IN' if negated else 'IN'} ({', '.join(dict.fromkeys(alike))}))"

    def operand(self, node: ast.AST) -> tuple[str, str, str, str]:
        """``(column|literal, text|number, sql, what)``."""
        if isinstance(node, ast.Name):
            name = self.parsed.names.get(node.id, node.id)
            if name not in self.columns:
                raise InputError(f"filter '{self.parsed.expression}' names '{name}', which is not a column of "
                                 f"the source", hint=_HINT)
            column = self.columns[name]
            if column.number is not None:
                return "column", "number", column.number, f"the continuous column '{name}'"
            return "column", "text", column.text, f"the column '{name}'"
        number = _number(node)
        if number is not None:
            return "literal", "number", sql_number(number), f"the number {self.unparse(node)}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return "literal", "text", self.literal(node.value), f"the text {node.value!r}"
        raise self.refuse(self.describe(node))

    def unparse(self, node: ast.AST) -> str:
        text = ast.unparse(node)
        for placeholder, name in self.parsed.names.items():
            text = text.replace(placeholder, f"`{name}`")
        return text

    @staticmethod
    def shown(operand) -> str:
        return operand[3]

    def describe(self, node: ast.AST) -> str:
        if isinstance(node, ast.Call):
            return f"the call {self.unparse(node)}"
        if isinstance(node, ast.Attribute):
            return f"the attribute {self.unparse(node)}"
        if isinstance(node, ast.BinOp):
            return f"the arithmetic {self.unparse(node)}"
        if isinstance(node, ast.Constant):
            return f"the constant {self.unparse(node)}"
        return f"'{self.unparse(node)}'"


def _number(node: ast.AST) -> float | None:
    sign = 1.0
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -sign if isinstance(node.op, ast.USub) else sign
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        try:
            return sign * float(node.value)
        except OverflowError:  # an integer literal of hundreds of digits
            raise InputError(f"the number {shorten(node.value)} in the filter is beyond the largest number a column "
                             f"can hold (about 1.8e308)", hint="compare with a smaller number") from None
    return None


def _op_text(op: ast.cmpop) -> str:
    return {ast.Is: "is", ast.IsNot: "is not"}.get(type(op), type(op).__name__)
