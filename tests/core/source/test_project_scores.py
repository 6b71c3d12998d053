"""score_project with the measures taken afterwards (measure_project): the same measures as
taken with the scores, none taken twice."""

from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.source import MemorySource, measure_project, score_project


def test_releases_measured_after_their_scores_are_those_measured_with_them():
    example = thesis_example()
    definitions = [ReleaseDefinition("Scenario 1", "ids", ids=tuple(example.published_ids)),
                   ReleaseDefinition("Whole", "filter", expression="City != ''")]
    weights = thesis_model().to_weights()
    together = score_project(MemorySource(example.source, example.roles), definitions, weights)
    source = MemorySource(example.source, example.roles)
    scored = score_project(source, definitions, weights, measure=False)
    assert scored.measures == {} and set(scored.reports) == {"Scenario 1", "Whole"}
    assert {n: r.scores for n, r in scored.reports.items()} == {n: r.scores for n, r in together.reports.items()}
    later = measure_project(source, definitions, scored.reports)
    assert sorted(later) == ["Scenario 1", "Whole"]
    for name, measures in together.measures.items():
        assert later[name].to_json_dict() == measures.to_json_dict()
    assert later["Scenario 1"].k == 2 and later["Whole"].k == 1
    again = score_project(source, definitions, weights, measure=False)   # kept by the source: they come along
    assert again.measures == later
