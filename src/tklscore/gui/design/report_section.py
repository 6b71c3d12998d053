"""The report's section on a designed release (issue 11 §6): how the release was made
(levels of each column, removed columns, suppression, perturbation), what it keeps of the
data (utility, per attribute) and its privacy models and risk. The scores themselves are
the report's scores section (the designed release is the report's release)."""

from __future__ import annotations

from collections.abc import Iterable

from tklscore.gui.report import (SECTION_BUILDERS, ReportInput, Section, _esc, _table, add_section_builder, fmt,
                                 scores_section)


def designed_release_section(data: ReportInput) -> Iterable[Section]:
    result = data.design
    if result is None:
        return
    from tklscore.core.release.figures import design_figures, privacy_rows

    t, design = result.transformed, result.transformed.design
    of = (f"the {len(t.selected):,} records of release '{design.selection.name}'" if design.selection is not None
          else f"all {len(t.selected):,} source records")
    body = (f"<p>The release <b>{_esc(design.name)}</b> is made from {of}: {len(t.published):,} are published, "
            f"{len(t.suppressed):,} suppressed.</p>")
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
            published = f"± {dict(design.noise)[column]:g} % noise (seed {design.seed})"
        else:
            published = "generalised" if hierarchy and g.level else "as in the source"
        rows.append([column, data.roles.role_of(column).value, level, published])
    body += _table(["column", "role", "level", "published"], rows, align_left=4)
    if design.suppress_below > 1:
        body += (f"<p>Records in classes smaller than {design.suppress_below} are suppressed, within a budget of "
                 f"{design.suppression_limit:.1%} of the records.</p>")
    utility = result.utility
    figures = utility.as_dict()
    rows = [["precision", fmt(figures["precision"], 4)], ["discernibility", f"{figures['discernibility']:,.0f}"],
            ["average class size / k", fmt(figures["average_class_size"], 3)],
            ["non-uniform entropy (bits)", f"{figures['non_uniform_entropy']:,.1f}"],
            ["suppressed share", f"{figures['suppressed_share']:.2%}"]]
    body += "<p>What the release keeps of the data (utility; 1 − precision is the utility loss):</p>"
    body += _table(["utility", "value"], rows)
    if utility.per_attribute:
        body += _table(["quasi-identifier", "precision", "non-uniform entropy (bits)"],
                       [[c, fmt(v["precision"], 4), f"{v['non_uniform_entropy']:,.1f}"]
                        for c, v in utility.per_attribute.items()])
    if result.measures:
        body += "<p>Privacy models and risk of the published table (linked against the source):</p>"
        body += _table(["privacy model or risk", "value"],
                       [list(r) for r in privacy_rows(design_figures(result), result.measures)])
    if result.notes:
        body += "<p>Notes:</p><ul>" + "".join(f"<li>{_esc(n)}</li>" for n in result.notes) + "</ul>"
    body += _recipe(data.design_recipe)
    yield Section(f"How '{design.name}' was designed", body)


def _recipe(recipe) -> str:
    """How to evaluate the release again outside the window: the command and its design JSON."""
    if recipe is None:
        return ""
    if isinstance(recipe, str):   # why the command line cannot reproduce it
        return f"<p>This release cannot be reproduced with the command line: {_esc(recipe)}.</p>"
    others = [f for f in recipe.written if f != recipe.design_file]
    files = f"the design JSON below saved as <code>{_esc(recipe.design_file)}</code>" + (
        f", and {', '.join(f'<code>{_esc(f)}</code>' for f in others)} (the Design view's Copy as command writes "
        f"them)" if others else "")
    return (f"<p>To evaluate this release again outside the window, run this command in a folder holding "
            f"{files}:</p><pre>{_esc(recipe.command)}</pre>"
            f"<p>The design JSON ({_esc(recipe.design_file)}):</p><pre>{_esc(recipe.design_json)}</pre>")


def _after_scores():
    following = SECTION_BUILDERS.index(scores_section) + 1 if scores_section in SECTION_BUILDERS else None
    return SECTION_BUILDERS[following] if following is not None and following < len(SECTION_BUILDERS) else None


add_section_builder(designed_release_section, before=_after_scores())  # right after the release's scores
