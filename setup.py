"""The build: setuptools reads everything from pyproject.toml; this adds the compiled core.

With ``HEARTSUIT_COMPILE=1`` mypyc compiles the engine modules listed in
``src/heartsuit/hearts/compiled.py`` (``MODULES``) into extension modules beside their ``.py``
files, with a generated ``_built`` module recording the digest of the sources; without it (the
default, and what ``./dev start`` does) nothing is compiled and the package is pure Python.
``./dev test`` runs ``HEARTSUIT_COMPILE=1 python setup.py build_ext --inplace`` whenever those
sources change; ``HEARTSUIT_COMPILE=1 pip install --no-build-isolation .`` installs them (mypy,
setuptools, wheel and a C compiler needed). See the README, "The compiled engine".
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

SRC = Path(__file__).resolve().parent / "src"
HEARTS = SRC / "heartsuit" / "hearts"
GROUP = "heartsuit_core"


def compiled_core() -> list[Any]:
    if os.environ.get("HEARTSUIT_COMPILE", "") in ("", "0"):
        return []
    from mypyc.build import mypycify  # mypy's compiler: the dev extra has it

    core = runpy.run_path(str(HEARTS / "compiled.py"))
    core["write_built"](HEARTS)
    names = [*core["MODULES"], core["BUILT"]]
    return mypycify(
        [f"src/heartsuit/hearts/{name}.py" for name in names],
        opt_level="3",
        group_name=GROUP,
    )


class BuildExt(build_ext):
    """build_ext that first removes an in-place build's earlier extensions: one of a module no
    longer compiled would shadow its .py (the package refuses such a build at import)."""

    def run(self) -> None:
        if self.inplace and self.extensions:
            core = runpy.run_path(str(HEARTS / "compiled.py"))
            for old in [*core["extension_files"](HEARTS), *SRC.glob(f"{GROUP}__mypyc.*")]:
                old.unlink()
        super().run()


setup(ext_modules=compiled_core(), cmdclass={"build_ext": BuildExt})
