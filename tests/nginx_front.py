"""A throwaway nginx in front of several ``heartsuit serve`` processes: the checked-in
``deploy/nginx/heartsuit.conf`` with its placeholders filled in, run by an nginx master of its own.

Not a test module itself (``tests/test_front_door.py`` and ``bench/hearts_tables.py --via
nginx`` use it). ``./dev test`` installs Debian's ``nginx`` package when it is missing (as it
installs PostgreSQL and Redis); the nginx here is started on a free port with its own prefix
directory (configuration, pid file, error and access logs, temporary files), in the foreground
as a child of the caller, and stopped afterwards: nothing of the system's nginx is used or
touched but its binary.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx" / "heartsuit.conf"


def nginx_binary() -> str | None:
    """The nginx to run: ``$HEARTSUIT_NGINX``, else on ``PATH``, else Debian's ``/usr/sbin``."""
    for candidate in (
        os.environ.get("HEARTSUIT_NGINX", ""),
        shutil.which("nginx"),
        "/usr/sbin/nginx",
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def render(
    backends: list[int],
    listen: str,
    *,
    server_name: str = "_",
    template: Path = TEMPLATE,
    max_fails: int = 1,
    fail_timeout_s: int = 5,
) -> str:
    """The template with its placeholders filled in: one ``server`` line per backend port on
    127.0.0.1. Raises ``ValueError`` if a placeholder is missing or one is left over."""
    lines = "\n    ".join(
        f"server 127.0.0.1:{port} max_fails={max_fails} fail_timeout={fail_timeout_s}s;"
        for port in backends
    )
    values = {"@LISTEN@": listen, "@SERVER_NAME@": server_name, "@BACKENDS@": lines}
    found: set[str] = set()
    out = []
    for line in template.read_text().splitlines():
        if not line.lstrip().startswith("#"):  # the comments name the placeholders too
            for name, value in values.items():
                if name in line:
                    found.add(name)
                    line = line.replace(name, value)
            if "@" in line:
                raise ValueError(f"a placeholder left in {template}: {line.strip()}")
        out.append(line)
    if found != set(values):
        raise ValueError(f"{template} lacks {sorted(set(values) - found)}")
    text = "\n".join(out)
    return text + "\n"


#: the main context around the site's file: a master of its own, its files in its prefix; the
#: access log names the process that answered each request ($upstream_addr)
MAIN = """\
{user}worker_processes 1;
worker_shutdown_timeout 5s;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 4096; }}
http {{
    log_format front '$remote_addr "$request" $status $upstream_addr';
    access_log {prefix}/access.log front;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    include {prefix}/heartsuit.conf;
}}
"""


@dataclass
class Front:
    """A running nginx: its port, its process and its files."""

    port: int
    process: subprocess.Popen[bytes]
    prefix: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.origin}{path}"

    def ws_url(self, path: str = "/ws") -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def error_log(self) -> str:
        path = self.prefix / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def access_log(self) -> str:
        path = self.prefix / "access.log"
        return path.read_text(errors="replace") if path.exists() else ""


@contextlib.contextmanager
def nginx_front(backends: list[int], prefix: Path, *, port: int | None = None) -> Iterator[Front]:
    """nginx on a free port of 127.0.0.1 (or ``port``) in front of the processes listening on
    ``backends``, with the checked-in configuration; stopped (SIGQUIT, then SIGKILL) afterwards."""
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
    port = port or free_port()
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / "tmp").mkdir(exist_ok=True)
    (prefix / "heartsuit.conf").write_text(render(backends, f"127.0.0.1:{port}"))
    # a master started by root hands its workers to "nobody", who could not reach this prefix
    user = "user root;\n" if os.geteuid() == 0 else ""
    (prefix / "nginx.conf").write_text(MAIN.format(prefix=prefix, user=user))
    command = [
        binary,
        "-p",
        str(prefix),
        "-c",
        str(prefix / "nginx.conf"),
        "-e",
        str(prefix / "error.log"),
    ]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    if checked.returncode != 0:
        raise RuntimeError(f"nginx -t refused the configuration:\n{checked.stderr}")
    process = subprocess.Popen(
        [*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    front = Front(port, process, prefix)
    try:
        deadline = time.monotonic() + 20
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"nginx exited: {front.error_log()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not start: {front.error_log()}")
            time.sleep(0.05)
        yield front
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT)  # finish what is open, then stop
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
