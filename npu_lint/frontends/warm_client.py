"""The `npu-lint` command's side of the warm process (`npu-lint daemon start`, warm_daemon.py).

A one-file `npu-lint check` spends most of its time before it reads the file: importing astroid
and the checks, loading the engine, building astroid's model of `builtins` and torch's stub
modules. A warm process has done all that once; for each command it forks a child that runs the
very same CLI code on the caller's arguments, working directory, environment and terminal (the
caller's stdin, stdout and stderr are handed over as file descriptors), so what the command prints,
writes and exits with is what a cold run gives (tests/test_warm_daemon.py compares them).

This module is all the command imports before it knows whether a warm process answers: the
standard library's socket and json, and the stamp of the installed code. Anything unexpected
(no daemon, a dead one, an untrusted folder, an old protocol) means: run cold, as before. Only a
child that has started owns the command's outcome.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import sys

PROTOCOL = 1
ENV_SWITCH = "NPU_LINT_DAEMON"  # "off" (also 0, no, false): never ask a warm process
COMMANDS = frozenset({"check", "fix", "migrate", "rules", "explain"})
CONNECT_SECONDS = 2.0  # to connect and hear that the child started; a busy daemon answers in ms
_MAX_SOCKET_PATH = 100  # sockaddr_un holds 108 bytes on Linux, 104 on macOS


def available() -> bool:
    """fork, Unix sockets and descriptor passing: what the warm process needs of the platform."""
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


def wanted(argv: list[str]) -> bool:
    """Should this command line be asked of a warm process, if one runs?"""
    if os.environ.get(ENV_SWITCH, "").strip().lower() in ("0", "off", "no", "false"):
        return False
    return bool(argv) and argv[0] in COMMANDS and available()


def daemon_folder():
    from npu_lint.core.cache_location import cache_root

    return cache_root() / "daemon"


def key(fresh: bool = False) -> str:
    """What decides a warm process's answers besides the command: the installed code and data (as
    the engine snapshot stamps them), this Python and how it was started (its module path, text
    encodings), and the folders it imports from, whose times change when a package is installed
    or removed (astroid and the analysis of installed libraries look there). `fresh`: stat the
    installed files again (the daemon asks whether its own code changed under it)."""
    import locale

    from npu_lint.knowledge.fingerprint import package_stamp

    stamp = package_stamp.__wrapped__() if fresh else package_stamp()
    parts = [f"protocol {PROTOCOL}", stamp, sys.executable, repr(sys.path),
             f"utf8 {sys.flags.utf8_mode}", sys.getfilesystemencoding(), locale.getpreferredencoding(False)]
    for entry in sys.path:
        try:
            parts.append(str(os.stat(entry or os.curdir).st_mtime_ns))
        except OSError:
            parts.append("-")
    return hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def socket_path() -> str | None:
    """Where the warm process of this installation listens; None where no such path fits."""
    path = os.path.abspath(daemon_folder() / f"{key()}.sock")  # the daemon works from /
    return path if len(path.encode()) <= _MAX_SOCKET_PATH else None


def folder_is_trusted(folder) -> bool:
    """The socket folder belongs to this user and no one else may enter it: a socket there that
    someone else made could read the files and terminal handed to it."""
    try:
        status = os.stat(folder)
    except OSError:
        return False
    return status.st_uid == os.getuid() and not status.st_mode & 0o077


def connect(path: str | None = None) -> socket.socket | None:
    """A connection to the warm process, or None when none answers."""
    path = path or socket_path()
    if path is None or not folder_is_trusted(os.path.dirname(path)):
        return None
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(CONNECT_SECONDS)
    try:
        connection.connect(path)
    except OSError:
        connection.close()
        return None
    return connection


def send_message(connection: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode()
    payload = len(data).to_bytes(4, "big") + data
    if fds:
        sent = socket.send_fds(connection, [payload], list(fds))
        connection.sendall(payload[sent:])
    else:
        connection.sendall(payload)


def read_line(stream) -> dict | None:
    try:
        line = stream.readline()
    except (OSError, ValueError):
        return None
    try:
        return json.loads(line) if line else None
    except ValueError:
        return None


def _stream_settings(stream) -> list | None:
    """How Python set up this standard stream for this process, for the child to copy."""
    if stream is None:
        return None
    try:
        stream.fileno()
    except (OSError, ValueError, AttributeError):
        return None
    return [stream.encoding, stream.errors, bool(getattr(stream, "line_buffering", False)),
            bool(getattr(stream, "write_through", False))]


def request(argv: list[str]) -> dict:
    streams = [_stream_settings(s) for s in (sys.stdin, sys.stdout, sys.stderr)]
    umask = os.umask(0o022)
    os.umask(umask)
    return {"op": "run", "protocol": PROTOCOL, "argv": argv, "cwd": os.getcwd(), "environ": dict(os.environ),
            "umask": umask, "streams": streams}


def run(argv: list[str]) -> int | None:
    """Run the command in a warm process; its exit status, or None to run it here instead."""
    try:
        connection = connect()
    except OSError:
        return None
    if connection is None:
        return None
    with connection:
        try:
            message = request(argv)
        except OSError:  # no working directory any more: let the cold run say so
            return None
        fds = [number for number, stream in enumerate(message["streams"]) if stream is not None]
        message["fds"] = fds
        forwarding = _SignalForwarding()  # from before the request: a Ctrl-C may come at any moment
        try:
            try:
                for stream in (sys.stdout, sys.stderr):
                    if stream is not None:
                        stream.flush()
                send_message(connection, message, fds)
                replies = connection.makefile("r", encoding="utf-8")
                started = read_line(replies)
            except OSError:
                started = None
            if not started or "pid" not in started:
                if forwarding.pending:  # stopped before anything ran: the shell's status for it
                    return 128 + forwarding.pending[0]
                return None  # nothing ran: the command is this process's again
            if forwarding.pending:  # stopped before the child ran anything: it will not now
                return 128 + forwarding.pending[0]
            connection.settimeout(None)
            forwarding.child_started(started["pid"])
            try:
                connection.sendall(b'{"go": true}\n')  # from here on the command is the child's
            except OSError:
                return None  # the child is gone before it ran anything
            finished = read_line(replies)
        finally:
            forwarding.restore()
    if finished is None or "exit" not in finished:
        print("npu-lint: the warm process that ran this command ended without an exit status; "
              "`npu-lint daemon stop` ends it, NPU_LINT_DAEMON=off runs without it", file=sys.stderr)
        return 2
    return finished["exit"]


class _SignalForwarding:
    """Ctrl-C, a hang-up or a kill of this command reach the child that does its work; one that
    comes before the child is known is handed on as soon as it is."""

    NAMES = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")

    def __init__(self):
        self.child: int | None = None
        self.pending: list[int] = []
        self.previous = {}
        for name in self.NAMES:
            number = getattr(signal, name, None)
            if number is not None:
                self.previous[number] = signal.signal(number, self._received)

    def _received(self, number, _frame) -> None:
        if self.child is None:
            self.pending.append(number)
        else:
            self._send(number)

    def child_started(self, pid: int) -> None:
        self.child = pid
        for number in self.pending:
            self._send(number)

    def _send(self, number: int) -> None:
        try:
            os.kill(self.child, number)
        except OSError:
            pass

    def restore(self) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)
