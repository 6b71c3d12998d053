#!/usr/bin/env bash
# Build and smoke-test the installable forms of tklscore:
#   bash packaging/build.sh wheel     # dist/tklscore-*.whl, installed into a fresh venv, run from another folder
#   bash packaging/build.sh desktop   # dist/tklscore/ one-folder desktop application (PyInstaller) + smoke test
#   bash packaging/build.sh zipapp    # dist/tklscore.pyz (python -m zipapp of the wheel's package) + smoke test
#   bash packaging/build.sh all       # all three (what CI runs)
# Each smoke test runs `tklscore demo` and renders the Scores view offscreen
# (`gui --example thesis --view scores --screenshot`), then checks the outputs; the desktop
# build's also reads files in the frozen application started as run_apart starts it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}
BUILD=$ROOT/build/packaging
mkdir -p "$BUILD" dist
export QT_QPA_PLATFORM=offscreen
export PIP_DISABLE_PIP_VERSION_CHECK=1

step() { printf '\n== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

fresh_venv() {  # fresh_venv DIR: a new venv with the wheel installed (not editable)
  rm -rf "$1"
  "$PYTHON" -m venv "$1"
  "$1/bin/python" -m pip install --quiet --upgrade pip
  "$1/bin/python" -m pip install --quiet "$WHEEL"
}

# A smoke command that has not ended within SMOKE_TIMEOUT seconds is a hang: it is stopped with
# SIGABRT, which makes Python's fault handler print every thread's stack, and the build fails
# there (CI would otherwise wait for its own time limit without saying where it stopped).
SMOKE_TIMEOUT=${SMOKE_TIMEOUT:-180}
bounded() {  # bounded LABEL COMMAND...: run COMMAND, failing the build with its stacks if it hangs
  local label=$1 rc=0
  shift
  PYTHONFAULTHANDLER=1 timeout --signal=ABRT --kill-after=20 "$SMOKE_TIMEOUT" "$@" || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 134 ] || [ "$rc" -eq 137 ]; then
    echo "$label: '$*' did not end within $SMOKE_TIMEOUT s (stopped; its threads' stacks are above)" >&2
  fi
  return "$rc"
}

smoke() {  # smoke EXECUTABLE LABEL: demo and a GUI screenshot, run from a folder outside the checkout
  local exe=$1 label=$2 work
  work=$(mktemp -d)
  (cd "$work"
   bounded "$label" "$exe" --version
   bounded "$label" "$exe" demo > demo.txt
   grep -q "tkl-Score " demo.txt || { echo "$label: demo printed no tkl-Score"; cat demo.txt; exit 1; }
   grep -q "4.98258" demo.txt || { echo "$label: demo lacks Scenario 1's tkl-Score 4.98258"; cat demo.txt; exit 1; }
   # A hang of the window here was seen once in CI (session 10) and reproduced once in ~400 local runs; cause found and fixed in gui/app.py (the cycle collector re-enabled before the window was torn down):
   # it is retried once after its stacks are printed, so the log keeps what it was waiting for
   bounded "$label" "$exe" gui --example thesis --view scores --screenshot scores.png || {
     rc=$?
     case $rc in 124|134|137) echo "$label: retrying the screenshot once after that hang" >&2
                              bounded "$label" "$exe" gui --example thesis --view scores --screenshot scores.png ;;
                 *) exit "$rc" ;; esac; }
   size=$(stat -c %s scores.png)
   [ "$size" -gt 20000 ] || { echo "$label: screenshot is only $size bytes"; exit 1; }
   echo "$label: demo OK, screenshot $(stat -c %s scores.png) bytes")
  cp "$work/scores.png" "$BUILD/scores-$label.png"
  rm -rf "$work"
}

smoke_apart() {  # smoke_apart EXECUTABLE: the frozen application as the process run_apart starts (APART_FLAG)
  # The wheel's run_apart, told it is frozen, starts EXECUTABLE --tklscore-apart as the frozen
  # window does (Vocabulary.load_apart: a vocabulary the user opened; load_score_models: large
  # score model files) and reads its JSON answer: a value, and an InputError said as it was.
  local exe=$1 work
  work=$(mktemp -d)
  (cd "$work" && bounded desktop "$BUILD/wheel-venv/bin/python" - "$exe" <<'PY'
import sys
from pathlib import Path

sys.frozen, sys.executable = True, sys.argv[1]   # run_apart starts the frozen application itself
from tklscore.core.apart import APART_FLAG
from tklscore.core.errors import InputError
from tklscore.core.model.lseverity_model import thesis_lseverity_model
from tklscore.core.model.mscore_model import thesis_example_model
from tklscore.core.model.vocabulary import Vocabulary
from tklscore.core.model.weight_models import load_score_models

Path("v.ttl").write_text("@prefix x: <urn:x#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                         "x:Flu a rdfs:Class ; rdfs:label \"Flu\" ; rdfs:subClassOf x:Disease .\n"
                         "x:Disease a rdfs:Class .\n", encoding="utf-8")
vocabulary = Vocabulary.load_apart(["v.ttl"])
assert sorted(vocabulary.graph.nodes) == ["urn:x#Disease", "urn:x#Flu"], sorted(vocabulary.graph.nodes)
assert list(vocabulary.graph.edges) == [("urn:x#Disease", "urn:x#Flu")], list(vocabulary.graph.edges)
files = [str(thesis_lseverity_model().save("l.ttl")), str(thesis_example_model().save("m.ttl"))]
apart, here = load_score_models(files, apart=True), load_score_models(files, apart=False)
assert [w.fingerprint for w in apart] == [w.fingerprint for w in here] and len(apart[0].entries) > 0
Path("bad.ttl").write_text("@prefix x: <urn:x#> .\nx:a x:b\n", encoding="utf-8")
try:
    Vocabulary.load_apart(["bad.ttl"])
except InputError as error:
    assert error.file == "bad.ttl" and "cannot be read as turtle" in error.message, (error.file, error.message)
else:
    raise AssertionError("a broken vocabulary read in the frozen application raised nothing")
print(f"desktop: {APART_FLAG}: a vocabulary, the score models and a broken file's error read in the frozen application")
PY
  )
  rm -rf "$work"
}

build_wheel() {
  step "wheel"
  rm -f dist/tklscore-*.whl
  if [ ! -x "$BUILD/tools/bin/python" ]; then
    "$PYTHON" -m venv "$BUILD/tools"
    "$BUILD/tools/bin/python" -m pip install --quiet --upgrade pip
  fi
  "$BUILD/tools/bin/python" -m pip install --quiet "build>=1"
  "$BUILD/tools/bin/python" -m build --wheel --outdir dist . > "$BUILD/build-wheel.log" 2>&1 \
    || { tail -30 "$BUILD/build-wheel.log"; exit 1; }
  WHEEL=$(ls dist/tklscore-*.whl)
  WHEEL=$ROOT/$WHEEL
  python3 - "$WHEEL" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for needed in ("tklscore/resources/dso.ttl", "tklscore/resources/thesis_taxonomy.ttl",
               "tklscore/resources/pia/bob.rules", "tklscore/resources/patient/patient.css"):
    assert needed in names, f"{needed} is missing from the wheel"
print(f"{sys.argv[1]}: {len(names)} files, resources inside the package")
PY
  step "wheel: fresh venv, run from another folder"
  fresh_venv "$BUILD/wheel-venv"
  smoke "$BUILD/wheel-venv/bin/tklscore" wheel
}

build_desktop() {
  if [ -z "${WHEEL:-}" ]; then build_wheel; fi
  step "desktop: PyInstaller one-folder build"
  "$BUILD/wheel-venv/bin/python" -m pip install --quiet "pyinstaller>=6"
  rm -rf dist/tklscore "$BUILD/pyinstaller"
  (cd "$BUILD" && "$BUILD/wheel-venv/bin/pyinstaller" --noconfirm --clean --onedir --name tklscore \
      --distpath "$ROOT/dist" --workpath "$BUILD/pyinstaller" --specpath "$BUILD/pyinstaller" \
      --icon "$ROOT/packaging/tklscore.png" \
      --collect-submodules tklscore --collect-data tklscore \
      --collect-submodules rdflib --collect-data pyqtgraph --collect-submodules pyqtgraph \
      --exclude-module tkinter --exclude-module pytest --exclude-module hypothesis \
      "$ROOT/packaging/tklscore_main.py" > "$BUILD/pyinstaller.log" 2>&1) \
    || { tail -40 "$BUILD/pyinstaller.log"; exit 1; }
  mkdir -p dist/tklscore/share/applications dist/tklscore/share/icons/hicolor/256x256/apps \
           dist/tklscore/share/icons/hicolor/scalable/apps
  cp packaging/tklscore.desktop dist/tklscore/share/applications/
  cp packaging/tklscore.png dist/tklscore/share/icons/hicolor/256x256/apps/tklscore.png
  cp packaging/tklscore.svg dist/tklscore/share/icons/hicolor/scalable/apps/tklscore.svg
  cp packaging/install-desktop-entry.sh dist/tklscore/
  echo "dist/tklscore: $(du -sh dist/tklscore | cut -f1)"
  step "desktop: smoke test of the built binary"
  smoke "$ROOT/dist/tklscore/tklscore" desktop
  smoke_apart "$ROOT/dist/tklscore/tklscore"
}

build_zipapp() {  # the package as one file, run by a Python that has tklscore's dependencies
  if [ -z "${WHEEL:-}" ]; then build_wheel; fi
  step "zipapp: python -m zipapp"
  rm -rf "$BUILD/zipapp" dist/tklscore.pyz
  mkdir -p "$BUILD/zipapp"
  python3 - "$WHEEL" "$BUILD/zipapp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    wheel.extractall(sys.argv[2], [n for n in wheel.namelist() if n.startswith("tklscore/")])
PY
  printf 'import sys\nfrom tklscore.cli import main\nsys.exit(main())\n' > "$BUILD/zipapp/__main__.py"
  "$PYTHON" -m zipapp "$BUILD/zipapp" --output dist/tklscore.pyz --python "/usr/bin/env python3" --compress
  echo "dist/tklscore.pyz: $(du -h dist/tklscore.pyz | cut -f1)"
  step "zipapp: smoke test with the dependencies alone (tklscore itself uninstalled)"
  "$BUILD/wheel-venv/bin/python" -m pip uninstall --quiet --yes tklscore
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$BUILD/wheel-venv/bin/python" "$ROOT/dist/tklscore.pyz" > "$BUILD/tklscore-pyz"
  chmod +x "$BUILD/tklscore-pyz"
  (cd "$(mktemp -d)" && "$BUILD/wheel-venv/bin/python" - "$ROOT/dist/tklscore.pyz" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tklscore
from tklscore.core.files.resources import resource_path
assert tklscore.__file__.startswith(sys.argv[1]), tklscore.__file__
assert resource_path("dso.ttl").stat().st_size > 0
print(f"zipapp: tklscore imported from {tklscore.__file__}; resources extracted to {resource_path('dso.ttl').parent}")
PY
  )
  smoke "$BUILD/tklscore-pyz" zipapp
  WHEEL=""  # the wheel venv no longer holds tklscore
}

case "${1:-all}" in
  wheel) build_wheel ;;
  desktop) build_desktop ;;
  zipapp) build_zipapp ;;
  all) build_wheel; build_desktop; build_zipapp ;;
  *) echo "usage: bash packaging/build.sh [wheel|desktop|zipapp|all]" >&2; exit 2 ;;
esac
step "done"
