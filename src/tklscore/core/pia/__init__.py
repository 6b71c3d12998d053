"""PIA — the Pre-Release Inference Analyzer (Daniels 2018; spec ``pia.md``).

Pure library, no Qt, no network. The modules follow the dissertation's concepts:

* :mod:`~tklscore.core.pia.facts` — triples, local RDF loading, the ISA hierarchy
  (reflexive-transitive ancestors, θ parent/grandparent, depth);
* :mod:`~tklscore.core.pia.rules` — positive Horn rules in Jena rule syntax or N3;
* :mod:`~tklscore.core.pia.reasoner` — semi-naive forward chaining that keeps every
  justification, maintained under retraction/assertion by Delete/Rederive;
* :mod:`~tklscore.core.pia.privacy_labels` — label orders (total order or the
  (level, categories) lattice), patterns, the privacy mapping λ (LUB through ISA),
  monotonicity check, CSV/Turtle pattern files;
* :mod:`~tklscore.core.pia.violations` — MinimizeDB (Alg 2), violation detection (Alg 3),
  participants (Alg 5/6) through all justifications, an incremental violation monitor,
  and ``assess`` (Alg 1 up to disruption);
* :mod:`~tklscore.core.pia.solutions` — alterations, the quaternary powerset (Alg 7),
  costs (Table 3.4/3.5) and AlterData (Alg 8).

Typical use::

    from tklscore.core.pia import *
    data = load_triples("resources/pia/bob_data.ttl")
    onto = load_triples("resources/pia/bob_ontology.ttl")
    reasoner = Reasoner(load_rules("resources/pia/bob.rules"))
    mapping = load_patterns("resources/pia/bob_patterns.csv",
                            resolver=TermResolver(known=[t for tr in data + onto for t in tr]))
    result = assess(data, reasoner, mapping, "Medium", ontology=onto)
    result.violations            # [(Bob, likelyHas, Hepatitis-C) [High]]
    result.participants.facts    # the ground facts of the violation's inference paths
    with result.closure.altered(removals=[...], additions=[...]) as change:
        ...                      # re-check a candidate solution in milliseconds
"""

from tklscore.core.pia.facts import (
    DEFAULT_ISA_PREDICATES,
    ISA,
    PIA,
    ROOT,
    IsaHierarchy,
    Triple,
    load_triples,
    local_name,
    parse_graph,
)
from tklscore.core.pia.privacy_labels import (
    DEFAULT_ORDER,
    MAC_LEVELS,
    CategoryLattice,
    LabelOrder,
    MacLabel,
    MonotonicityViolation,
    PrivacyMapping,
    PrivacyPattern,
    TermResolver,
    TotalOrder,
    load_patterns,
    load_patterns_csv,
    load_patterns_turtle,
)
from tklscore.core.pia.reasoner import Change, Closure, Justification, Reasoner
from tklscore.core.pia.rules import (
    Atom,
    Rule,
    Var,
    load_rules,
    parse_jena_rules,
    parse_n3_rules,
)
from tklscore.core.pia.solutions import (
    Alteration,
    Solution,
    alter_data,
    alteration_cost,
    quaternary_digits,
    quaternary_powerset,
    solution_count,
)
from tklscore.core.pia.violations import (
    Assessment,
    Minimized,
    Participants,
    Violation,
    ViolationMonitor,
    assess,
    detect_violations,
    find_participants,
    minimize_db,
)

from tklscore.core.pia.disruption import DisruptionResult, exhaustive_disruption
from tklscore.core.pia.efficient import efficient_disruption
from tklscore.core.pia.preferences import load_preferences, load_safety, save_preferences, suggested_preferences

__all__ = [
                                     "DEFAULT_ISA_PREDICATES",
                                     "DEFAULT_ORDER",
                                     "ISA",
                                     "MAC_LEVELS",
                                     "PIA",
                                     "ROOT",
                                     "Alteration",
                                     "Assessment",
                                     "Atom",
                                     "CategoryLattice",
                                     "Change",
                                     "Closure",
                                     "IsaHierarchy",
                                     "Justification",
                                     "LabelOrder",
                                     "MacLabel",
                                     "Minimized",
                                     "MonotonicityViolation",
                                     "Participants",
                                     "PrivacyMapping",
                                     "PrivacyPattern",
                                     "Reasoner",
                                     "Rule",
                                     "Solution",
                                     "TermResolver",
                                     "TotalOrder",
                                     "Triple",
                                     "Var",
                                     "Violation",
                                     "ViolationMonitor",
                                     "alter_data",
                                     "alteration_cost",
                                     "assess",
                                     "detect_violations",
                                     "find_participants",
                                     "load_patterns",
                                     "load_patterns_csv",
                                     "load_patterns_turtle",
                                     "load_rules",
                                     "load_triples",
                                     "local_name",
                                     "minimize_db",
                                     "parse_graph",
                                     "parse_jena_rules",
                                     "parse_n3_rules",
                                     "quaternary_digits",
                                     "quaternary_powerset",
                                     "solution_count",
                                     "DisruptionResult",
                                     "exhaustive_disruption",
                                     "efficient_disruption",
                                     "load_preferences",
                                     "load_safety",
                                     "save_preferences",
                                     "suggested_preferences",
]
