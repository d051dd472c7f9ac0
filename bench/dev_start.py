"""How long ``./dev start`` takes until the site answers, on a fresh checkout and again.

Exports a commit of this repository (``git archive``, so no ``.venv`` comes along) into a
temporary directory and times ``./dev start --port P --db …`` from launch until ``/healthz``
says ``ok``:

* cold: the first start of a fresh checkout (makes ``.venv`` and installs), ``--cold`` times,
  each in a fresh export;
* warm: starting again with nothing changed, ``--warm`` times in the last export.

Prints medians (and min/max) and the size of the ``.venv`` that ``./dev start`` built.
Usage: ``python bench/dev_start.py [--commit HEAD] [--cold 2] [--warm 7]``.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from site_first_frame import free_port

ROOT = Path(__file__).resolve().parents[1]


def export(commit: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def time_start(checkout: Path) -> float:
    """Seconds from launching ``./dev start`` until ``/healthz`` answers; then stops it."""
    port = free_port()
    started = time.monotonic()
    proc = subprocess.Popen(
        ["./dev", "start", "--port", str(port), "--db", str(checkout / "bench.sqlite3")],
        cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"./dev start exited with {proc.returncode}")
            with contextlib.suppress(OSError), urllib.request.urlopen(
                f"http://127.0.0.1:{port}/healthz", timeout=1
            ) as reply:
                if reply.read().strip() == b"ok":
                    return time.monotonic() - started
            time.sleep(0.02)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def size_mb(path: Path) -> float:
    total = sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())
    return total / 1e6


def summary(name: str, values: list[float]) -> str:
    return (f"{name}: median {statistics.median(values):.2f} s "
            f"(min {min(values):.2f}, max {max(values):.2f}, {len(values)} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default="HEAD", help="the commit to export (default HEAD)")
    parser.add_argument("--cold", type=int, default=2, help="fresh checkouts to start")
    parser.add_argument("--warm", type=int, default=7, help="starts with nothing changed")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="heartsuit-dev-start-"))
    try:
        cold: list[float] = []
        checkout = tmp
        for i in range(max(args.cold, 1)):
            checkout = export(args.commit, tmp / f"checkout-{i}")
            cold.append(time_start(checkout))
        warm = [time_start(checkout) for _ in range(args.warm)]
        print(summary("./dev start, fresh checkout (makes .venv)", cold))
        print(summary("./dev start, nothing changed", warm))
        print(f".venv built by ./dev start: {size_mb(checkout / '.venv'):.0f} MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
