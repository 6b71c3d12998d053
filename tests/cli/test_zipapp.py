"""tklscore runs as a zipapp (the package zipped with its resources, as packaging/build.sh
zipapp builds it from the wheel): the resources are found inside the zip, from any folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipapp

from paths import ROOT



def test_zipapp_runs_demo_and_finds_its_resources(tmp_path):
    staging = tmp_path / "staging"
    shutil.copytree(ROOT / "src" / "tklscore", staging / "tklscore",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "resources", staging / "tklscore" / "resources",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (staging / "__main__.py").write_text("import sys\nfrom tklscore.cli import main\nsys.exit(main())\n")
    pyz = tmp_path / "tklscore.pyz"
    zipapp.create_archive(staging, pyz, compressed=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    demo = subprocess.run([sys.executable, str(pyz), "demo"], capture_output=True, text=True, cwd=elsewhere)
    assert demo.returncode == 0, demo.stderr
    assert "4.98258" in demo.stdout  # Scenario 1's tkl-Score
    check = ("import sys; sys.path.insert(0, sys.argv[1]); import tklscore; "
             "from tklscore.core.files.resources import resource_path; "
             "assert tklscore.__file__.startswith(sys.argv[1]), tklscore.__file__; "
             "print(resource_path('dso.ttl').read_text(encoding='utf-8'))")
    done = subprocess.run([sys.executable, "-c", check, str(pyz)], capture_output=True, text=True, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (ROOT / "resources" / "dso.ttl").read_text(encoding="utf-8") + "\n"
