"""Screenshots of the domain expert's tkl-Data Model of UCI Adult (issue 20), in docs/screenshots/:

- expert-model-new.png: the Model view just after File ▸ New model from source… (classes
  suggested, every value "not yet judged");
- expert-model.png: the Model view of the finished model (tests/adult_model.py's choices);
- expert-ahp.png: the AHP view judging that model's largest criteria group, just after the
  expert moved one judgement (its effect on the priorities, weight factors and score shown);
- expert-model-20k.png: a model with a 20,000-value column, searched.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshots_expert.py [OUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import screenshots  # noqa: E402  (settle, save, session; it runs itself in the checkout's .venv)

if __name__ == "__main__":
    screenshots._run_in_venv()

ROOT = screenshots.ROOT
sys.path.insert(0, str(ROOT / "tests"))
settle, save, SIZE = screenshots.settle, screenshots.save, screenshots.SIZE


def adult_window(app, settings, source: Path, roles):
    from tklscore.gui.main_window import MainWindow

    window = MainWindow(settings=settings)
    window.resize(*SIZE)
    window.show()
    window.workbench.autosave_timer.stop()
    window.workbench.open_source(str(source), roles=roles)
    settle(app, window)
    return window


def main(out: Path) -> None:
    import adult_model
    import pandas as pd

    from tklscore.core.model.vocabulary import Vocabulary
    from tklscore.core.release.selection import ReleaseDefinition
    from tklscore.core.tables.roles import Roles
    from tklscore.gui.ahp.saaty_slider import position_of
    from tklscore.gui.model.new_model_dialog import NewModelChoices

    app, scratch, settings = screenshots.session(out)
    adult = ROOT / "tests" / "data" / "adult" / "adult.csv"

    window = adult_window(app, settings, adult, adult_model.ROLES)
    bench, view = window.workbench, window.views["model"]
    window.show_view("model")
    view.new_model_from_source(NewModelChoices(Vocabulary.shipped("dpv-2.3")))
    settle(app, window)
    save(app, window, out / "expert-model-new.png")

    model = adult_model.build(bench.table, Vocabulary.shipped("dpv-2.3"))
    bench.replace_model("The expert's model", model, "built from adult.csv, judged and labelled (not saved yet)")
    bench.add_release(ReleaseDefinition("every second record", "ids",
                                        ids=tuple(str(i) for i in range(0, len(bench.table), 2))))
    settle(app, window)
    view.select(bench.model.nodes.value_of("occupation", "Armed-Forces"))
    save(app, window, out / "expert-model.png")
    window.show_view("ahp")
    settle(app, window)
    ahp = window.views["ahp"]   # the expert moves Social vs Tracking from 5 to 3: its effect is shown
    ahp.sliders[(1, 2)].slider.setValue(position_of(3.0))
    settle(app, window)
    save(app, window, out / "expert-ahp.png")
    bench.undo_stack.setClean()
    bench._mark(False)
    window.close()

    frame = pd.DataFrame({"zip": [f"{i:05d}" for i in range(20_000)],
                          "diagnosis": [f"D{i:05d}" for i in range(20_000)]})
    clinic = scratch / "clinic.csv"
    frame.to_csv(clinic, index=False)
    window = adult_window(app, settings, clinic, Roles(qi=["zip"], sa=["diagnosis"]))
    window.show_view("model")
    view = window.views["model"]
    view.new_model_from_source(NewModelChoices(Vocabulary.shipped("dpv-2.3")))
    settle(app, window)
    view.model_search.setText("D1234")
    view.select_shown_values()
    view.label_combo.setCurrentText("restricted")
    save(app, window, out / "expert-model-20k.png")
    window.workbench.undo_stack.setClean()
    window.workbench._mark(False)
    window.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots")
