"""What the patient reads when clicking a box or an arrow, and what the analyzer found, in
plain words (HTML for the side panel). The facts and the analysis come from the core; these
functions only put them into sentences."""

from __future__ import annotations

import html

from tklscore.core.pia.facts import Triple
from tklscore.core.pia.preferences import PREFERENCE_MEANINGS
from tklscore.gui.patient.words import sentence, words


def node_html(key, graph, sample: bool = False) -> str:
    node = graph.nodes[key]
    name = html.escape(node.label)
    if node.kind == "patient":
        what = f"<p><b>{name}</b> appears in your record (blue).</p>"
    elif node.kind == "inferred":
        what = f"<p><b>{name}</b> appears only in facts that were worked out.</p>"
    else:
        what = f"<p><b>{name}</b> is an idea from general medical knowledge, the same for everybody.</p>"
    facts = [e for e in node.edges if e.isVisible() or sample]
    lines = [f"<li>{html.escape(e.toolTip())}</li>" for e in facts[:12]]
    more = f"<p>…and {len(facts) - 12} more.</p>" if len(facts) > 12 else ""
    drill = "<p><i>Its connections are now shown.</i></p>" if graph.visible_keys is not None else ""
    return what + (f"<p>What is known about it:</p><ul>{''.join(lines)}</ul>{more}" if lines else "") + drill


def edge_html(key, ontology: set, data: set, analysis=None, preferences: dict | None = None,
              suggested: dict | None = None) -> str:
    fact = Triple(*key)
    said = html.escape(sentence(fact))
    if fact in ontology:
        return (f"<p>“{said}”</p><p>This is <b>general medical knowledge</b>: true for everybody, not "
                "about you. Anyone can look it up, which is why it can be combined with your facts.</p>")
    parts = [f"<p style='font-size:12pt'>“<b>{said}</b>”</p>"]
    closure = analysis.assessment.closure if analysis is not None else None
    if fact in data:
        parts.append("<p>This fact is <b>in your record</b> and would be released.</p>")
    else:
        parts.append("<p>This fact is <b>not in your record</b>. It was <b>worked out</b> from other facts "
                     "and medical knowledge.</p>")
    if closure is not None and fact in closure and closure.is_inferred(fact):
        justifications = closure.justifications(fact)
        for i, just in enumerate(justifications[:4]):
            lead = ("How it is worked out" if len(justifications) == 1
                    else f"One way ({i + 1} of {len(justifications)})")
            body = "".join(f"<li>{html.escape(sentence(t))}"
                           + (" <i>(from your record)</i>" if t in data else
                              " <i>(medical knowledge)</i>" if t in ontology else " <i>(worked out)</i>")
                           + "</li>" for t in just.body)
            parts.append(f"<p><b>{lead}</b>, with the rule <i>{html.escape(words(just.rule.name))}</i>:</p>"
                         f"<ul>{body}</ul>")
    if analysis is not None:
        a = analysis.assessment
        violation = next((v for v in a.violations if v.triple == fact), None)
        if violation is not None:
            parts.append(f"<p style='color:#b71c1c'><b>Why this is a problem:</b> this is labelled "
                         f"<b>{html.escape(str(violation.label))}</b> privacy, more private than "
                         f"<b>{html.escape(str(analysis.threshold))}</b>, the most the hospital may release. "
                         "Yet anyone who gets the yellow facts can work it out.</p>")
        uses = [v for v, facts in a.participants.by_violation.items() if fact in facts]
        if uses:
            items = "".join(f"<li>{html.escape(sentence(v))}</li>" for v in uses)
            parts.append(f"<p style='background:#fff4ce'><b>This fact helps someone work out</b> something "
                         f"too private:</p><ul>{items}</ul>")
        if analysis.result.solution is not None:
            for alt in analysis.result.solution.alterations:
                if alt.source == fact:
                    change = ("would be left out" if alt.new_object is None else
                              f"would be released as “{html.escape(sentence(alt.source.with_object(alt.new_object)))}”")
                    parts.append(f"<p>Before release, this fact {change}.</p>")
    if fact in data:
        current, advised = (preferences or {}).get(fact), (suggested or {}).get(fact)
        if current is not None:
            parts.append(f"<p>Your preference: <b>{current} — {PREFERENCE_MEANINGS[current]}</b>.</p>")
        if advised is not None:
            parts.append(f"<p>Suggested: <b>{advised} — {PREFERENCE_MEANINGS[advised]}</b>.</p>")
    return "".join(parts)


def findings_html(analysis, inferred: list, preferences: dict) -> str:
    a, result = analysis.assessment, analysis.result
    parts = [(f"<h3>What the analyzer found</h3><p>{len(inferred)} facts about you can be worked out "
              "from your record.</p>")]
    if not a.violations:
        parts.append("<p><b>None of them is too private.</b> Your information can be released as it is.</p>")
        return "".join(parts)
    parts.append(f"<p><b style='color:#d32f2f'>{len(a.violations)} of them "
                 f"{'is' if len(a.violations) == 1 else 'are'} too private</b> to be released "
                 f"(the hospital may release up to <i>{html.escape(str(analysis.threshold))}</i> privacy):</p><ul>")
    for v in a.violations:
        parts.append(f"<li>{html.escape(sentence(v.triple))} (<i>{html.escape(str(v.label))}</i>)</li>")
    parts.append("</ul><h3>What would be changed before release</h3>")
    if result.solution is None or not result.valid:
        parts.append("<p>No change to the released facts can stop this; the hospital would have to "
                     "hold the release back.</p>")
    else:
        parts.append("<ul>")
        for alt in result.solution.alterations:
            old = html.escape(sentence(alt.source))
            if alt.new_object is None:
                parts.append(f"<li>leave out “{old}”</li>")
            else:
                new = html.escape(sentence(Triple(alt.source.s, alt.source.p, alt.new_object)))
                parts.append(f"<li>release “{new}” instead of “{old}” (less specific)</li>")
        parts.append("</ul>")
        if preferences:
            parts.append(f"<p>Your {len(preferences)} saved preferences were taken into account "
                         f"(impact {result.impact:g}; lower is chosen first).</p>")
    return "".join(parts)


# ---------------------------------------------------------------- what each function says first

WORKING = "<h3>Working it out…</h3><p>The analyzer is combining your facts with medical knowledge.</p>"
SAMPLE_INTRO = (
    "<h3>Explore medical knowledge</h3><p>The boxes are ideas (a disease, a medicine, a kind of "
    "doctor); the arrows say how they are related.</p><p>Only the most general ideas are shown "
    "first. <b>Click a box</b> to show what is connected to it; click an arrow to read what it "
    "means. <i>Show everything</i> shows the whole graph.</p><p>Drag to move around; use the "
    "mouse wheel or + and − to zoom.</p>")
KNOWLEDGE_INTRO = (
    "<p>This is general <b>medical knowledge</b> (an <i>ontology</i>): boxes are ideas, arrows "
    "say how they are related. It is the same for everybody.</p><p>Add your information with "
    "<b>Open a file…</b>, or press <b>Use the example patient</b> to see how it works. Your facts "
    "will appear in blue, connected to this knowledge.</p>")
DISCOVERIES_INTRO = (
    "<p>Purple dashed arrows are facts that were <b>not</b> in your record but can be worked out "
    "from it with medical knowledge.</p><p><b style='color:#d32f2f'>Red</b> ones are too private to be "
    "released; <b style='background:#f2b705'>&nbsp;yellow&nbsp;</b> ones are the facts from your record "
    "that make them possible.</p><p>Only these facts are shown; <i>Show everything</i> shows the rest. "
    "Click an arrow to see how it was worked out.</p>")
SUGGESTIONS = (
    "<h3>Suggestions</h3><p>Green arrows are the facts the analyzer suggests you protect: "
    "they help someone work out something too private about you. "
    "<b>3</b> means leaving out that one fact is enough; <b>2</b> means it is one of several.</p>"
    "<p>Your settings are wishes: the hospital takes them into account when it decides what to "
    "change, but safety comes first.</p>")
PREFERENCES_INTRO = (
    "<p>Click a <b>blue arrow</b> (a fact from your record) to choose how much you mind it being "
    "released. Then press <b>Save preferences</b>.</p>"
    "<p>Grey arrows are general medical knowledge and purple ones were worked out; you cannot set "
    "a preference on them.</p>")


def loaded_html(facts: int, preferences: int) -> str:
    """What a loaded record adds (``facts`` facts, ``preferences`` saved preferences)."""
    return (f"<p>Your record adds <b>{facts} facts</b> (blue arrows) to the medical knowledge.</p>"
            "<p>Click any box or arrow to see what it means. Next, <b>Discover information</b> shows "
            "what someone could work out from these facts.</p>"
            + (f"<p>{preferences} privacy preferences you saved earlier were loaded.</p>" if preferences else ""))
