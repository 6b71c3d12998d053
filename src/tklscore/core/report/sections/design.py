"""The Design view's section of the report (issue 11 §6): how the designed release was
made (levels of each column, removed columns, suppression, perturbation), what it keeps of
the data (utility, per attribute) and its privacy models and risk. The scores themselves
are the report's scores section (the designed release is the report's release)."""

from __future__ import annotations

from collections.abc import Iterable

from tklscore.core.numbers import count, number, percent
from tklscore.core.release.figures import design_figures, privacy_rows
from tklscore.core.release.utility import UTILITY_MEANINGS, utility_rows
from tklscore.core.report.html import esc, table
from tklscore.core.report.model import ReportInput, Section


def designed_release_section(data: ReportInput) -> Iterable[Section]:
    result = data.design
    if result is None:
        return
    t, design = result.transformed, result.transformed.design
    of = (f"the {count(len(t.selected))} records of release '{design.selection.name}'"
          if design.selection is not None else f"all {count(len(t.selected))} source records")
    body = (f"<p>The release <b>{esc(design.name)}</b> is made from {of}: {count(len(t.published))} are published, "
            f"{count(len(t.suppressed))} suppressed (not published).</p>")
    rows = []
    for column in t.source.columns:
        g = t.generalised.get(column)
        hierarchy = g is not None and g.height > 0
        level = f"{g.level} of {g.height}" if hierarchy else "—"
        if column in design.removed:
            published = "removed"
        elif column in dict(design.microaggregate):
            published = f"class {dict(design.microaggregate)[column]}"
        elif column in dict(design.noise):
            published = f"± {number(dict(design.noise)[column])} % noise (seed {design.seed})"
        else:
            published = "generalised" if hierarchy and g.level else "as in the source"
        rows.append([column, data.roles.role_of(column).value, level, published])
    body += table(["column", "role", "level", "published"], rows, align_left=4)
    if design.suppress_below > 1:
        body += (f"<p>Records in classes smaller than {design.suppress_below} are suppressed, within a budget of "
                 f"{percent(design.suppression_limit)} of the records.</p>")
    utility = result.utility
    body += "<p>What the release keeps of the data (utility):</p>"
    body += table(["utility", "value", "what it means"],
                  [[name, shown, meaning] for name, shown, meaning in utility_rows(utility)], text_columns=(2,))
    if utility.per_attribute:
        body += table(["quasi-identifier", UTILITY_MEANINGS["precision"][0],
                       UTILITY_MEANINGS["non_uniform_entropy"][0]],
                      [[c, number(v["precision"]), number(v["non_uniform_entropy"], 5)]
                       for c, v in utility.per_attribute.items()])
    if result.measures:
        body += "<p>Privacy models and risk of the published table (linked against the source):</p>"
        body += table(["privacy model or risk", "value"],
                      [list(r) for r in privacy_rows(design_figures(result), result.measures)])
    if result.notes:
        body += "<p>Notes:</p><ul>" + "".join(f"<li>{esc(n)}</li>" for n in result.notes) + "</ul>"
    body += _recipe(data.design_recipe)
    yield Section(f"How '{design.name}' was designed", body)


def _recipe(recipe) -> str:
    """How to evaluate the release again outside the window: the command and its design JSON."""
    if recipe is None:
        return ""
    if isinstance(recipe, str):   # why the command line cannot reproduce it
        return f"<p>This release cannot be reproduced with the command line: {esc(recipe)}.</p>"
    others = [f for f in recipe.written if f != recipe.design_file]
    files = f"the design JSON below saved as <code>{esc(recipe.design_file)}</code>" + (
        f", and {', '.join(f'<code>{esc(f)}</code>' for f in others)} (the Design view's Copy as command writes "
        f"them)" if others else "")
    return (f"<p>To evaluate this release again outside the window, run this command in a folder holding "
            f"{files}:</p><pre>{esc(recipe.command)}</pre>"
            f"<p>The design JSON ({esc(recipe.design_file)}):</p><pre>{esc(recipe.design_json)}</pre>")
