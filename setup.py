"""Packages of tklscore: ``src/tklscore`` and the top-level ``resources/`` folder, which is
installed as the package ``tklscore.resources`` with every subfolder and file, so that a
wheel, a zipapp and a frozen build find the resources through importlib.resources.
Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
folders = [HERE / "resources"] + sorted(p for p in (HERE / "resources").rglob("*")
                                        if p.is_dir() and not p.name.startswith((".", "__")))
resource_packages = [".".join(("tklscore", "resources") + p.relative_to(HERE / "resources").parts) for p in folders]

setup(
    packages=find_packages("src") + resource_packages,
    package_dir={"": "src", "tklscore.resources": "resources"},
    package_data={name: ["*"] for name in resource_packages},
)
