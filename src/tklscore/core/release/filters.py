"""The filter language: a release "by filter" publishes the source records where a
condition holds, such as ``age >= 60 and `native country` in ['Cuba', 'Peru']``.

One language, read here and nowhere else: :func:`parse_filter` turns the text into a small
tree, refusing whatever is not in the whitelist below *by name* (a filter is text from a
user or from a project file, a document from a stranger: nothing in it ever runs); the
tree is evaluated over a table's columns with numpy (:func:`filter_mask`) and translated to
one SQL predicate that DuckDB and Spark SQL both run, the values passed as parameters
(:meth:`Filter.to_sql`). Both read the same rule for numbers (:func:`column_kind`,
:func:`numbers_of`, :func:`number_sql`) and for what may be compared with what
(:func:`_mode`), so every engine selects the same records.

The whitelist:

- column names, in backticks when they are not plain names (```native country```);
- text in quotes, ``'Flu'`` or ``"Flu"``; inside, ``\\'`` (``\\"``) is the quote and ``\\\\``
  a backslash, any other backslash is itself (``'a\\b'`` is a, backslash, b);
- numbers written in decimal, ``30``, ``-2.5``, ``1e3``;
- ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, chained too (``18 <= age < 65``);
- ``in`` / ``not in`` a list of values, ``['a', 'b']`` or ``('a', 'b')``;
- ``and``, ``or``, ``not`` (and ``&``, ``|``, ``~`` with the same meaning and precedence);
- parentheses.

Refused, each with its name: ``@`` variables, attribute access and method calls, function
calls, subscripts, names with double underscores, lambda, f-strings and other string
prefixes, arithmetic, ``is``, ``True``/``False``/``None`` and other Python words.

Comparing (the rule, in :func:`_mode`): a column holds *numbers* when every value it holds
is a number as written (:data:`NUMBER`; empty cells are missing and allowed) and at least
one is; else it holds *text*. A number compares with a column of numbers as numbers (a
missing value is never equal, less or greater: only ``!=`` holds); quoted text compares
with any column's values as written (``==``, ``!=``, ``in``; ordering text against a
column of numbers is refused: ``age >= '30'`` would order as text). A number against a
column of text, or two columns of different kinds ordered, is refused naming the column
and one of its values.
"""

from __future__ import annotations

import difflib
import keyword
import math
import re
from dataclasses import dataclass
from typing import Callable, Union

import numpy as np

from tklscore.core.errors import InputError, shorten

HINT = ("a filter compares columns with values: ==, !=, <, <=, >, >=, in [...], not in [...], joined by "
        "and, or, not and parentheses; column names in backticks when they hold spaces, quoted text such as "
        "'Flu', numbers such as 30")

# a number as written: decimal, an optional sign and exponent, spaces around; the same
# pattern is matched by Python (fullmatch) and by both SQL engines (regexp_extract from ^)
NUMBER = r"[ ]*[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?[ ]*"
_NUMBER = re.compile(NUMBER)
_LITERAL_NUMBER = re.compile(r"([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[^\W\d]\w*")
_ORDER = ("<", "<=", ">", ">=")
_SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_STRING_PREFIXES = {"f", "r", "b", "u", "fr", "rf", "br", "rb"}
_CONSTANTS = {"True", "False", "None"}
MAX_DEPTH = 100          # parentheses and 'not' nested in a filter


class FilterError(InputError):
    """A filter that is refused: not in the language, or not meaningful over the source."""


# ---------------------------------------------------------------------------- the tree

@dataclass(frozen=True)
class Column:
    name: str

    def __str__(self) -> str:
        return self.name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name) \
            and not keyword.iskeyword(self.name) else f"`{self.name}`"


@dataclass(frozen=True)
class Text:
    value: str

    def __str__(self) -> str:
        return "'" + self.value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class Number:
    value: float
    written: str

    def __str__(self) -> str:
        return self.written


Value = Union[Text, Number]


@dataclass(frozen=True)
class Comparison:
    """``column op value`` or ``column op column`` (a value on the left is swapped)."""

    left: Column
    op: str
    right: Union[Column, Text, Number]

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Membership:
    column: Column
    values: tuple
    negated: bool = False

    def __str__(self) -> str:
        return f"{self.column} {'not in' if self.negated else 'in'} [{', '.join(map(str, self.values))}]"


@dataclass(frozen=True)
class AllOf:
    parts: tuple


@dataclass(frozen=True)
class AnyOf:
    parts: tuple


@dataclass(frozen=True)
class Negation:
    part: object


Condition = Union[Comparison, Membership, AllOf, AnyOf, Negation]


def conditions(node) -> list:
    """The comparisons and memberships of a tree, in order."""
    if isinstance(node, (AllOf, AnyOf)):
        return [leaf for part in node.parts for leaf in conditions(part)]
    if isinstance(node, Negation):
        return conditions(node.part)
    return [node]


@dataclass(frozen=True)
class Filter:
    """A parsed filter: its text, its tree and the columns it names (in order of first use)."""

    expression: str
    tree: object
    columns: tuple

    def error(self, message: str, **where) -> FilterError:
        return FilterError(f"filter {_quoted(self.expression)}: {message}", **where)

    def require_columns(self, available) -> None:
        """A :class:`FilterError` naming the first column the filter names that the source lacks."""
        available = list(available)
        for name in self.columns:
            if name not in available:
                close = difflib.get_close_matches(name, available, 1, 0.6) or \
                    [c for c in available if c.lower() == name.lower()]
                shown = ", ".join(repr(shorten(c, 40)) for c in available[:20]) + (", …" if len(available) > 20 else "")
                raise self.error(f"'{name}' is not a column of the source"
                                 + (f"; did you mean '{close[0]}'?" if close else f" (its columns: {shown})"),
                                 hint="write a column's name as the source's header spells it, in backticks "
                                      "when it holds spaces or other signs")

    def kind_columns(self) -> list[str]:
        """The columns whose kind (numbers or text) decides how the filter compares them."""
        needed: list[str] = []
        for leaf in conditions(self.tree):
            if isinstance(leaf, Comparison):
                names = [leaf.left.name] + ([leaf.right.name] if isinstance(leaf.right, Column) else [])
                if isinstance(leaf.right, Text) and leaf.op in ("==", "!="):
                    names = []
            else:
                names = [leaf.column.name] if any(isinstance(v, Number) for v in leaf.values) else []
            for name in names:
                if name not in needed:
                    needed.append(name)
        return needed

    # ------------------------------------------------------------------ SQL

    def to_sql(self, columns: dict[str, "SqlColumn"], kinds: dict[str, "ColumnKind"]) -> tuple[str, list]:
        """The SQL predicate (DuckDB and Spark SQL) and its parameters, in order (``?``
        markers): ``columns`` says how the SQL reads each column, ``kinds`` holds the kind
        of each of :meth:`kind_columns`."""
        params: list = []
        return _Sql(self, columns, kinds, params).condition(self.tree), params


def _quoted(expression: str) -> str:
    return '"' + shorten(" ".join(expression.split()), 80) + '"'


# ---------------------------------------------------------------------------- reading

@dataclass(frozen=True)
class _Token:
    kind: str          # name, column, text, number, op, word, end
    value: object
    start: int
    end: int


def parse_filter(expression: str | None) -> Filter:
    """Read a filter; a :class:`FilterError` names what is refused, where, and why."""
    expression = expression or ""
    if not expression.strip():
        raise FilterError("the filter expression is empty", hint=HINT)
    parser = _Parser(expression, _tokens(expression))
    tree = parser.condition()
    if parser.peek().kind != "end":
        raise parser.unexpected(parser.peek())
    columns: list[str] = []
    for leaf in conditions(tree):
        names = ([leaf.left.name] + ([leaf.right.name] if isinstance(leaf.right, Column) else [])
                 if isinstance(leaf, Comparison) else [leaf.column.name])
        for name in names:
            if name not in columns:
                columns.append(name)
    return Filter(expression, tree, tuple(columns))


def _refuse(expression: str, start: int, reason: str, end: int | None = None) -> FilterError:
    fragment = expression[start:end if end is not None else _chain_end(expression, start)].strip()
    return FilterError(f"`{shorten(fragment, 60)}` — {reason}", hint=HINT)


def _chain_end(text: str, start: int) -> int:
    """The end of the construct starting at ``start``: names, dots, ``@`` and bracketed
    arguments (quotes respected), up to the first space or operator outside brackets."""
    depth, i, quote = 0, start, None
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (char.isalnum() or char in "_.@:"):
            break
        i += 1
    return i


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char.isspace():
            i += 1
            continue
        start = i
        if char == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise _refuse(text, i, "a backtick opens a column name that is not closed", n)
            name = text[i + 1:end]
            if not name.strip():
                raise _refuse(text, i, "an empty column name", end + 1)
            tokens.append(_Token("column", name, start, end + 1))
            i = end + 1
            _after_name(text, tokens[-1])
        elif char in "'\"":
            value, i = _text(text, i)
            tokens.append(_Token("text", value, start, i))
        elif char.isdigit() or (char == "." and i + 1 < n and text[i + 1].isdigit()):
            match = _LITERAL_NUMBER.match(text, i)
            i = match.end()
            if i < n and (text[i].isalnum() or text[i] in "_.'\""):
                end = _chain_end(text, start)
                name = text[start:end]
                if _NAME.fullmatch("x" + name[1:]) and any(c.isalpha() for c in name) \
                        and not name[:2].lower() == "0x":
                    raise _refuse(text, start, f"a column name that starts with a digit goes in backticks "
                                               f"(`{name}`)", end)
                raise _refuse(text, start, "not a number a filter reads (write decimal numbers such as 30, "
                                           "2.5 or 1e3)")
            if not math.isfinite(float(match.group())):
                raise _refuse(text, start, "a number too large to compare (beyond ±1.8e308)", i)
            tokens.append(_Token("number", match.group(), start, i))
        elif char == "@":
            raise _refuse(text, i, "'@' variables are not allowed in a filter")
        elif _NAME.match(text, i):
            name = _NAME.match(text, i).group()
            i += len(name)
            token = _Token("name", name, start, i)
            if name in ("and", "or", "not", "in"):
                tokens.append(_Token("word", name, start, i))
                continue
            if name.lower() in ("and", "or", "not", "in"):
                raise _refuse(text, start, f"'{name}' is not a word of a filter: write {name.lower()} in lower "
                                           f"case (a column named so goes in backticks, `{name}`)", i)
            if name.startswith("__") or name.endswith("__"):
                raise _refuse(text, start, "names with double underscores are not allowed in a filter")
            if name == "lambda":
                raise _refuse(text, start, "lambda expressions are not allowed in a filter", i)
            if i < n and text[i] in "'\"" and name.lower() in _STRING_PREFIXES:
                _, end = _text(text, i)
                what = "f-strings are" if "f" in name.lower() else f"string prefixes ({name}'...') are"
                raise _refuse(text, start, f"{what} not allowed in a filter: write plain quoted text", end)
            if name in _CONSTANTS:
                raise _refuse(text, start, f"{name} is not a value in a filter: compare with quoted text "
                                           f"('{name}') or a number", i)
            if keyword.iskeyword(name) or name in ("match", "case", "type"):
                if name == "is":
                    raise _refuse(text, start, "'is' is not allowed in a filter: write == or !=", i)
                if name not in ("match", "case", "type"):
                    raise _refuse(text, start, f"'{name}' is a Python word, not allowed in a filter", i)
            tokens.append(token)
            _after_name(text, token)
        else:
            two = text[i:i + 2]
            if two in ("==", "!=", "<=", ">="):
                tokens.append(_Token("op", two, start, i + 2))
                i += 2
            elif two in (">>", "<<", "**", "//"):
                raise _refuse(text, i, f"arithmetic ('{two}') is not allowed in a filter", i + 2)
            elif two == "<>":
                raise _refuse(text, i, "'<>' is not a comparison in a filter: write !=", i + 2)
            elif two in ("&&", "||"):
                raise _refuse(text, i, f"'{two}' is not allowed in a filter: write {'and' if two == '&&' else 'or'}",
                              i + 2)
            elif two == ":=":
                raise _refuse(text, i, "assignment (':=') is not allowed in a filter", i + 2)
            elif char in "<>&|~()[],":
                tokens.append(_Token("op", char, start, i + 1))
                i += 1
            elif char == "=":
                raise _refuse(text, i, "'=' is not a comparison in a filter: write ==", i + 1)
            elif char == "!":
                raise _refuse(text, i, "'!' alone is not allowed in a filter: write != or not", i + 1)
            elif char in "+-":
                tokens.append(_Token("op", char, start, i + 1))  # a sign: only before a number (the parser)
                i += 1
            elif char in "*/%^":
                raise _refuse(text, i, f"arithmetic ('{char}') is not allowed in a filter", i + 1)
            elif char == ".":
                raise _refuse(text, _chain_start(text, i), "attribute access ('.') is not allowed in a filter")
            elif char in "{}":
                raise _refuse(text, i, "sets and dictionaries ('{...}') are not allowed in a filter")
            elif char == ":":
                raise _refuse(text, i, "':' (slices, dictionaries) is not allowed in a filter", i + 1)
            elif char == ";":
                raise _refuse(text, i, "';' is not allowed in a filter: a filter is one condition", i + 1)
            elif char == "#":
                raise _refuse(text, i, "comments ('#') are not allowed in a filter", n)
            elif char == "\\":
                raise _refuse(text, i, "a backslash outside quotes is not allowed in a filter", i + 1)
            elif char in "\u2018\u2019\u201c\u201d\u00b4":
                raise _refuse(text, i, "typographic quotes are not quotes in a filter: write ' or \"", i + 1)
            else:
                raise _refuse(text, i, f"the character {char!r} is not allowed in a filter", i + 1)
    tokens.append(_Token("end", None, n, n))
    return tokens


def _chain_start(text: str, dot: int) -> int:
    i = dot
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_.)]`"):
        i -= 1
    return i


def _after_name(text: str, token: _Token) -> None:
    """A name followed by ``.``, ``(`` or ``[`` is an attribute, a call or a subscript: refused."""
    i = token.end
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if i >= len(text):
        return
    nxt = text[i]
    if nxt == ".":
        chain = text[token.start:_chain_end(text, token.start)]
        what = ("names with double underscores are" if "__" in chain else
                "method calls are" if "(" in chain else "attribute access ('.') is")
        raise _refuse(text, token.start, f"{what} not allowed in a filter")
    if nxt == "(":
        raise _refuse(text, token.start, "function calls are not allowed in a filter")
    if nxt == "[":
        raise _refuse(text, token.start, "subscripts ('[...]') are not allowed in a filter")


def _text(text: str, start: int) -> tuple[str, int]:
    """Quoted text from ``start`` (its quote): the value and the position after it."""
    quote, out, i = text[start], [], start + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in (quote, "\\"):
            out.append(text[i + 1])
            i += 2
            continue
        if char == quote:
            return "".join(out), i + 1
        out.append(char)
        i += 1
    raise _refuse(text, start, f"quoted text opened here is not closed (a {quote} is missing)", len(text))


class _Parser:
    """or := and ('or'|'|' and)* ; and := not ('and'|'&' not)* ; not := ('not'|'~') not | compare ;
    compare := operand (op operand)* | '(' or ')' ; op := == != < <= > >= in 'not in'."""

    def __init__(self, expression: str, tokens: list[_Token]):
        self.expression = expression
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def deeper(self) -> None:
        """One more level of parentheses or 'not' (deeper than :data:`MAX_DEPTH`: refused,
        before Python's recursion limit is near)."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            token = self.peek()
            raise FilterError(f"filter {_quoted(self.expression)} nests parentheses and 'not' more than "
                              f"{MAX_DEPTH} deep (at character {token.start + 1})", hint=HINT)

    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> _Token:
        token = self.peek()
        self.i += 1
        return token

    def at(self, *values) -> bool:
        token = self.peek()
        return token.kind in ("op", "word") and token.value in values

    def unexpected(self, token: _Token, wanted: str = "") -> FilterError:
        if token.kind == "end":
            return FilterError(f"filter {_quoted(self.expression)} ends too soon" + (f": {wanted} is missing"
                                                                                    if wanted else ""), hint=HINT)
        shown = self.expression[token.start:token.end]
        return FilterError(f"filter {_quoted(self.expression)} is not a condition at `{shorten(shown, 40)}` "
                           f"(character {token.start + 1})" + (f": {wanted} was expected" if wanted else ""),
                           hint=HINT)

    def condition(self):
        return self._joined(("or", "|"), self.conjunction, AnyOf)

    def conjunction(self):
        return self._joined(("and", "&"), self.negation, AllOf)

    def _joined(self, words, part, node):
        """``part (word part)*``: one part, or the node joining them."""
        parts = [part()]
        while self.at(*words):
            self.take()
            parts.append(part())
        return parts[0] if len(parts) == 1 else node(tuple(parts))

    def negation(self):
        if self.at("not", "~"):
            self.take()
            self.deeper()
            inner = self.negation()
            self.depth -= 1
            return Negation(inner)
        return self.comparison()

    def comparison(self):
        start = self.peek()
        if self.at("("):
            self.take()
            self.deeper()
            inner = self.condition()
            self.depth -= 1
            if not self.at(")"):
                raise self.unexpected(self.peek(), "a closing ')'")
            self.take()
            if self._comparison_op():
                raise self.unexpected(self.peek(), "'and', 'or' or the end (a condition in parentheses is not "
                                                   "compared)")
            return inner
        left = self.operand()
        parts = []
        while True:
            self._no_arithmetic(start)
            op = self._comparison_op()
            if op is None:
                break
            if op in ("in", "not in"):
                values = self.values()
                if not isinstance(left, Column):
                    raise FilterError(f"filter {_quoted(self.expression)}: '{op}' needs a column on its left, not "
                                      f"{left}", hint=HINT)
                parts.append(Membership(left, values, op == "not in"))
                break
            right = self.operand()
            parts.append(self._compare(left, op, right))
            left = right
        if not parts:
            shown = self.expression[start.start:self.peek().start].strip() or str(left)
            raise FilterError(f"filter {_quoted(self.expression)}: `{shorten(shown, 40)}` on its own is not a "
                              f"condition; compare it, e.g. {left} == 'value'" if isinstance(left, Column) else
                              f"filter {_quoted(self.expression)}: `{shorten(shown, 40)}` on its own is not a "
                              f"condition", hint=HINT)
        return parts[0] if len(parts) == 1 else AllOf(tuple(parts))

    def _no_arithmetic(self, start: _Token) -> None:
        token = self.peek()
        if token.kind == "op" and token.value in "+-":
            end = self.peek(1).end if self.peek(1).kind != "end" else token.end
            raise _refuse(self.expression, start.start, f"arithmetic ('{token.value}') is not allowed in a filter",
                          end)

    def _comparison_op(self) -> str | None:
        token = self.peek()
        if token.kind == "op" and token.value in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            return token.value
        if self.at("in"):
            self.take()
            return "in"
        if self.at("not") and self.peek(1).kind == "word" and self.peek(1).value == "in":
            self.take()
            self.take()
            return "not in"
        return None

    def _compare(self, left, op: str, right) -> Comparison:
        if not isinstance(left, Column) and not isinstance(right, Column):
            raise FilterError(f"filter {_quoted(self.expression)}: {left} {op} {right} compares two values, not a "
                              f"column", hint=HINT)
        if not isinstance(left, Column):
            left, op, right = right, _SWAPPED[op], left
        return Comparison(left, op, right)

    def operand(self):
        token = self.take()
        if token.kind in ("name", "column"):
            return Column(token.value)
        if token.kind == "text":
            return Text(token.value)
        if token.kind == "number":
            return Number(float(token.value), token.value)
        if token.kind == "op" and token.value in "+-" and self.peek().kind == "number":
            number = self.take()
            value = float(number.value)
            return Number(-value if token.value == "-" else value, token.value + number.value)
        if token.kind == "op" and token.value in "+-":
            raise _refuse(self.expression, token.start, f"arithmetic ('{token.value}') is not allowed in a filter",
                          self.peek().end)
        if token.kind == "op" and token.value == "[":
            raise FilterError(f"filter {_quoted(self.expression)}: a list is compared only with 'in' or 'not in', "
                              f"as in Job in ['a', 'b']", hint=HINT)
        raise self.unexpected(token, "a column, quoted text or a number")

    def values(self) -> tuple:
        opening = self.take()
        if not (opening.kind == "op" and opening.value in "[("):
            self.i -= 1
            raise self.unexpected(opening, "a list of values such as ['a', 'b']")
        closing = "]" if opening.value == "[" else ")"
        values = []
        while not self.at(closing):
            value = self.operand()
            if isinstance(value, Column):
                raise FilterError(f"filter {_quoted(self.expression)}: the list after 'in' holds the column "
                                  f"{value}; it holds values only (quoted text, numbers)", hint=HINT)
            values.append(value)
            if self.at(","):
                self.take()
            elif not self.at(closing):
                raise self.unexpected(self.peek(), f"',' or '{closing}'")
        self.take()
        return tuple(values)


# ---------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class ColumnKind:
    """Whether a column holds numbers (every value a number as written, at least one),
    and else a value that is not one and its row (for the message)."""

    numbers: bool
    example: str | None = None
    row: int | None = None


def numbers_of(texts) -> np.ndarray:
    """Each text as a number (float64) when it is one as written (:data:`NUMBER`, finite);
    NaN for the empty text and for text that is not a number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = np.asarray(texts, dtype=object)
    out = np.full(len(values), np.nan)
    if not len(values):
        return out
    matches = pc.match_substring_regex(pa.array(values, pa.large_string()), f"^{NUMBER}$")
    chosen = np.flatnonzero(matches.to_numpy(zero_copy_only=False))
    out[chosen] = np.fromiter((float(t) for t in values[chosen]), dtype=np.float64, count=len(chosen))
    out[~np.isfinite(out)] = np.nan   # 1e400 is not a number a comparison can use
    return out


def kind_of(texts, codes=None, row_of: Callable[[int], int] | None = None) -> ColumnKind:
    """:class:`ColumnKind` of a column's distinct texts (``codes``: each record's index
    into them, for the first record holding text; ``row_of`` its row as a user counts)."""
    values = np.asarray(texts, dtype=object)
    numbers = numbers_of(values)
    bad = np.isnan(numbers) & (values != "")
    if bad.any():
        if codes is None:
            first = int(np.argmax(bad))
            return ColumnKind(False, str(values[first]))
        position = int(np.argmax(bad[codes]))
        return ColumnKind(False, str(values[codes[position]]), row_of(position) if row_of else None)
    if not np.isfinite(numbers).any():
        return ColumnKind(False)
    return ColumnKind(True)


def number_sql(text: str) -> str:
    """SQL of the number a text (an expression never NULL) holds by :data:`NUMBER`, else NULL."""
    cast = f"TRY_CAST(TRIM({text}) AS DOUBLE)"
    return (f"CASE WHEN {text} <> '' AND regexp_extract({text}, '^{NUMBER}', 0) = {text} "
            f"AND ABS({cast}) < CAST('Infinity' AS DOUBLE) THEN {cast} END")


def kinds_sql(texts: dict[str, str], relation: str) -> str:
    """One pass over ``relation``: for each column (its text SQL), the first record holding
    a value that is not a number (``b{i}``) and how many records hold a number (``n{i}``)."""
    parts = []
    for i, text in enumerate(texts.values()):
        number = number_sql(text)
        parts.append(f"MIN(CASE WHEN {text} <> '' AND ({number}) IS NULL THEN __rid END) AS b{i}")
        parts.append(f"COUNT({number}) AS n{i}")
    return f"SELECT {', '.join(parts)} FROM {relation}"


def _mode(parsed: Filter, leaf, kinds: dict[str, ColumnKind], value=None) -> str:
    """How a comparison compares: ``"number"`` or ``"text"`` — or a :class:`FilterError`
    saying why it cannot. The one place of the rule, for memory and SQL alike."""
    if isinstance(leaf, Membership):
        column, op, value = leaf.column, "==", value
    else:
        column, op, value = leaf.left, leaf.op, leaf.right
    if isinstance(value, Text):
        if op in _ORDER and kinds[column.name].numbers:
            raise parsed.error(f"'{column.name}' holds numbers, so `{column} {op} {value}` would order them as "
                               f"text; write the number without quotes ({column} {op} {value.value.strip() or 0})",
                               hint="quoted text is compared with the values as written; numbers without quotes")
        return "text"
    if isinstance(value, Number):
        kind = kinds[column.name]
        if not kind.numbers:
            raise parsed.error(_not_numbers(column, kind) + f", so it cannot be compared with the number {value}",
                               hint=f"compare its values as written with quoted text, e.g. {column} == "
                                    f"{Text(kind.example if kind.example is not None else str(value))}")
        return "number"
    a, b = kinds[column.name], kinds[value.name]
    if a.numbers and b.numbers:
        return "number"
    if op in _ORDER and (a.numbers or b.numbers):
        texts = value if a.numbers else column
        raise parsed.error(_not_numbers(texts, kinds[texts.name]) + f", so `{column} {op} {value}` cannot order "
                           f"it against the numbers of '{(column if a.numbers else value).name}'",
                           hint="order numbers against numbers, text against text")
    return "text"


def _not_numbers(column: Column, kind: ColumnKind) -> str:
    if kind.example is None:
        return f"'{column.name}' holds no numbers (every cell is empty)"
    where = f" in row {kind.row}" if kind.row is not None else ""
    return f"'{column.name}' holds text such as {Text(shorten(kind.example, 40))}{where}, not only numbers"


# ---------------------------------------------------------------------------- in memory

def filter_mask(parsed: Filter, table) -> np.ndarray:
    """A boolean per record of ``table`` (a :class:`~tklscore.core.tables.loading.Table`):
    where the filter holds. Each comparison is made once per distinct value of its column
    (the table's factorised codes), then spread to the records."""
    parsed.require_columns(table.columns)
    kinds = {name: _memory_kind(table, name) for name in parsed.kind_columns()}
    return _Memory(parsed, table, kinds).condition(parsed.tree)


def _memory_kind(table, name: str) -> ColumnKind:
    codes = table.codes(name)
    return kind_of(codes.uniques, codes.codes, table.row_number)


class _Memory:
    def __init__(self, parsed: Filter, table, kinds: dict[str, ColumnKind]):
        self.parsed, self.table, self.kinds = parsed, table, kinds
        self._numbers: dict[str, np.ndarray] = {}

    def condition(self, node) -> np.ndarray:
        if isinstance(node, AllOf):
            return np.logical_and.reduce([self.condition(p) for p in node.parts])
        if isinstance(node, AnyOf):
            return np.logical_or.reduce([self.condition(p) for p in node.parts])
        if isinstance(node, Negation):
            return ~self.condition(node.part)
        if isinstance(node, Membership):
            return self.membership(node)
        return self.comparison(node)

    def _column(self, name: str):
        codes = self.table.codes(name)
        return codes.codes, np.asarray(codes.uniques, dtype=object)

    def _numbers_of(self, name: str) -> np.ndarray:
        if name not in self._numbers:
            self._numbers[name] = numbers_of(self._column(name)[1])
        return self._numbers[name]

    def comparison(self, leaf: Comparison) -> np.ndarray:
        mode = _mode(self.parsed, leaf, self.kinds)
        codes, uniques = self._column(leaf.left.name)
        if isinstance(leaf.right, Column):
            other_codes, other = self._column(leaf.right.name)
            if mode == "number":
                return _compare(self._numbers_of(leaf.left.name)[codes], leaf.op,
                                self._numbers_of(leaf.right.name)[other_codes])
            return _compare(uniques[codes], leaf.op, other[other_codes])
        if mode == "number":
            return _compare(self._numbers_of(leaf.left.name), leaf.op, leaf.right.value)[codes]
        return _compare(uniques, leaf.op, leaf.right.value)[codes]

    def membership(self, leaf: Membership) -> np.ndarray:
        codes, uniques = self._column(leaf.column.name)
        hit = np.zeros(len(uniques), dtype=bool)
        for value in leaf.values:
            if _mode(self.parsed, leaf, self.kinds, value) == "number":
                hit |= self._numbers_of(leaf.column.name) == value.value
            else:
                hit |= uniques == value.value
        return (~hit if leaf.negated else hit)[codes]


def _compare(a, op: str, b) -> np.ndarray:
    """Elementwise; a missing number (NaN) is never equal, less or greater (only != holds)."""
    result = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
              ">": np.greater, ">=": np.greater_equal}[op](a, b)
    return np.asarray(result, dtype=bool)


def why_nothing(parsed: Filter, table) -> str:
    """For a filter selecting no record: the comparisons that hold for no record, as a
    person reads them (``sex == 'Female'`` with some of the column's values)."""
    kinds = {name: _memory_kind(table, name) for name in parsed.kind_columns()}
    memory = _Memory(parsed, table, kinds)
    empty = [leaf for leaf in conditions(parsed.tree) if not memory.condition(leaf).any()]
    if not empty:
        return ""
    shown = []
    for leaf in empty[:3]:
        column = leaf.left if isinstance(leaf, Comparison) else leaf.column
        values = list(table.codes(column.name).uniques[:4])    # distinct, in order of first appearance
        shown.append(f"no record has {leaf} ('{column.name}' holds values such as "
                     f"{', '.join(str(Text(shorten(v, 30))) for v in values)})")
    return "; ".join(shown)


# ---------------------------------------------------------------------------- SQL

@dataclass(frozen=True)
class SqlColumn:
    """How the SQL reads a column: ``text`` its values as the loader writes them (never
    NULL; None when the engine cannot write them so) and ``number_text`` a text whose
    numbers are the loader's (for the rule; the same as ``text`` where that is known)."""

    text: str | None
    number_text: str


class _Sql:
    def __init__(self, parsed: Filter, columns: dict[str, SqlColumn], kinds, params: list):
        self.parsed, self.columns, self.kinds, self.params = parsed, columns, kinds, params

    def condition(self, node) -> str:
        if isinstance(node, (AllOf, AnyOf)):
            joiner = " AND " if isinstance(node, AllOf) else " OR "
            return "(" + joiner.join(self.condition(p) for p in node.parts) + ")"
        if isinstance(node, Negation):
            return f"(NOT {self.condition(node.part)})"
        if isinstance(node, Membership):
            return self.membership(node)
        return self.comparison(node)

    def param(self, value: Value) -> str:
        self.params.append(value.value if isinstance(value, Text) else float(value.value))
        return "?"

    def text(self, column: Column) -> str:
        text = self.columns[column.name].text
        if text is None:
            raise self.parsed.error(f"'{column.name}' holds floating-point numbers that this engine does not write "
                                    f"as the loader does, so they cannot be compared as text here",
                                    column=column.name,
                                    hint="compare the column with numbers, or use --engine duckdb or memory")
        return text

    def number(self, column: Column) -> str:
        # the column holds numbers by the rule: its non-empty values all cast as written
        return f"TRY_CAST(TRIM({self.columns[column.name].number_text}) AS DOUBLE)"

    def comparison(self, leaf: Comparison) -> str:
        mode = _mode(self.parsed, leaf, self.kinds)
        sign = {"==": "=", "!=": "<>"}.get(leaf.op, leaf.op)
        if mode == "text":
            right = self.text(leaf.right) if isinstance(leaf.right, Column) else self.param(leaf.right)
            return f"({self.text(leaf.left)} {sign} {right})"
        right = self.number(leaf.right) if isinstance(leaf.right, Column) else self.param(leaf.right)
        return f"COALESCE({self.number(leaf.left)} {sign} {right}, {'TRUE' if leaf.op == '!=' else 'FALSE'})"

    def membership(self, leaf: Membership) -> str:
        texts, numbers = [], []
        for value in leaf.values:
            (numbers if _mode(self.parsed, leaf, self.kinds, value) == "number" else texts).append(value)
        parts = []
        if texts:
            parts.append(f"{self.text(leaf.column)} IN ({', '.join(self.param(v) for v in texts)})")
        if numbers:
            parts.append(f"COALESCE({self.number(leaf.column)} IN ({', '.join(self.param(v) for v in numbers)}), "
                         f"FALSE)")
        hit = "(" + " OR ".join(parts) + ")" if parts else "FALSE"
        return f"(NOT {hit})" if leaf.negated else hit
