"""`npu-lint daemon start|stop|status`: a warm process that runs `npu-lint` commands for this user.

It imports the CLI and everything the checks use, and checks a small training script once, so
that astroid's `builtins` model, torch's stub modules and the engine of the default settings are
built. Then it waits on a Unix socket in the machine's npu-lint cache (a folder only this user
may enter; the socket's name hashes the installed code and Python, warm_client.key). For each
command it forks: the child takes over the caller's stdin, stdout and stderr, working directory,
environment and umask, and runs `cli.main` exactly as the `npu-lint` command would; the parent
only waits for the next caller. Each child starts from the warm state and its changes die with
it, so one command never sees another's.

It ends after `--idle-timeout` seconds without a command (default 30 minutes), on `npu-lint
daemon stop`, and when the installed code changes or its socket is replaced.
"""
from __future__ import annotations

import gc
import io
import json
import os
import signal
import socket
import struct
import sys
import tempfile
import time
import traceback

from npu_lint.frontends import warm_client

DEFAULT_IDLE_SECONDS = 1800
TICK_SECONDS = 1.0
CODE_CHECK_SECONDS = 30.0
MAX_REQUEST_BYTES = 16 * 1024 * 1024
GO_SECONDS = 30.0  # a caller that neither says go nor closes (stopped?) within this: nothing runs

# Checked once at start: torch's commonest stub modules and the builtins a check reads get built.
WARM_UP_SCRIPT = '''\
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(8, 8), nn.ReLU()).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler()
loader = DataLoader(TensorDataset(torch.randn(4, 8)), batch_size=2, pin_memory=True)
dist.init_process_group(backend="nccl")
for (batch,) in loader:
    with torch.cuda.amp.autocast():
        loss = F.mse_loss(model(batch.cuda(non_blocking=True)), batch.to(device))
    scaler.scale(loss).backward()
    torch.cuda.synchronize()
'''


def start(idle_seconds: float) -> int:
    """Start the warm process in the background and return once it answers (or failed)."""
    if not warm_client.available():
        print("npu-lint daemon: needs fork and Unix sockets; not available on this platform", file=sys.stderr)
        return 2
    path = warm_client.socket_path()
    if path is None:
        print("npu-lint daemon: the cache folder's path is too long for a Unix socket; "
              "set NPU_LINT_CACHE to a shorter folder", file=sys.stderr)
        return 2
    running = status_of(path)
    if running:
        print(f"npu-lint daemon: already running (pid {running['pid']})")
        return 0
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
    except OSError as exc:
        print(f"npu-lint daemon: cannot make {folder}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not warm_client.folder_is_trusted(folder):
        print(f"npu-lint daemon: {folder} is not this user's alone; not starting", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    ready_read, ready_write = os.pipe()
    first = os.fork()
    if first == 0:  # detach: a new session, and a grandchild that init adopts
        os.close(ready_read)
        try:
            os.setsid()
            if os.fork() == 0:
                _become_daemon(path, idle_seconds, ready_write)
        finally:
            os._exit(0)
    os.close(ready_write)
    os.waitpid(first, 0)
    with os.fdopen(ready_read, "rb") as ready:
        answer = ready.read().decode("utf-8", "replace")
    if answer.startswith("ready "):
        print(f"npu-lint daemon: started (pid {answer.split()[1]}), idle timeout {idle_seconds:g} s")
        return 0
    print(f"npu-lint daemon: did not start: {answer.strip() or 'no answer'}", file=sys.stderr)
    return 2


def stop() -> int:
    answer = ask(warm_client.socket_path(), "stop")
    if answer is None:
        print("npu-lint daemon: not running")
    else:
        print(f"npu-lint daemon: stopped (pid {answer['pid']})" if answer else "npu-lint daemon: stopped")
    return 0


def status(as_json: bool) -> int:
    path = warm_client.socket_path()
    answer = status_of(path) if path else None
    if as_json:
        print(json.dumps(answer or {"running": False}))
    elif answer:
        served = answer["served"]
        print(f"npu-lint daemon: running (pid {answer['pid']}), {served} command{'' if served == 1 else 's'} served, "
              f"their CPU {answer['children_cpu_seconds']:.2f} s, socket {answer['socket']}")
    else:
        print("npu-lint daemon: not running")
    return 0 if answer else 1


def status_of(path: str | None) -> dict | None:
    return ask(path, "status") or None


def ask(path: str | None, op: str) -> dict | None:
    """The daemon's one-line answer to `op` ({} when it closed without one); None when no daemon
    answers at `path`."""
    connection = warm_client.connect(path) if path else None
    if connection is None:
        return None
    with connection:
        try:
            warm_client.send_message(connection, {"op": op, "protocol": warm_client.PROTOCOL})
            return warm_client.read_line(connection.makefile("r", encoding="utf-8")) or {}
        except OSError:
            return None


def _become_daemon(path: str, idle_seconds: float, ready_write: int) -> None:
    os.chdir("/")
    log = os.open(path[:-len(".sock")] + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(log, 2)  # a traceback of the daemon itself lands here
    os.close(null)
    os.close(log)
    try:
        listener = _warm_up_and_listen(path)
    except BaseException as exc:  # pylint: disable=broad-except  # report it to `start`, then end
        traceback.print_exc()
        os.write(ready_write, f"error {type(exc).__name__}: {exc}".encode())
        os.close(ready_write)
        return
    os.write(ready_write, f"ready {os.getpid()}".encode())
    os.close(ready_write)
    Daemon(path, listener, idle_seconds).serve()


def _warm_up_and_listen(path: str) -> socket.socket:
    from npu_lint.frontends import cli

    with tempfile.TemporaryDirectory(prefix="npu-lint-warm-") as folder:
        script = os.path.join(folder, "train.py")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(WARM_UP_SCRIPT)
        quiet = io.StringIO()
        real_stdout, sys.stdout = sys.stdout, quiet
        try:
            cli.main(["check", "--no-cache", "--exit-zero", "--format", "json", script])
        finally:
            sys.stdout = real_stdout
    gc.collect()
    gc.freeze()  # what is warm now is shared with every child: no collection copies its pages
    temporary = f"{path}.{os.getpid()}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(temporary)
    os.chmod(temporary, 0o600)
    listener.listen(16)
    os.replace(temporary, path)  # the newest daemon of a race owns the name; the other ends
    return listener


class Daemon:
    def __init__(self, path: str, listener: socket.socket, idle_seconds: float):
        self.path = path
        self.listener = listener
        self.idle_seconds = idle_seconds
        self.inode = os.stat(path).st_ino
        self.key = os.path.basename(path)[:-len(".sock")]
        self.started = time.time()
        self.last_used = time.monotonic()
        self.children: set[int] = set()
        self.served = 0
        self.children_cpu = 0.0
        self.stopping = False
        self.code_checked = time.monotonic()

    def serve(self) -> None:
        self.listener.settimeout(TICK_SECONDS)
        try:
            while not self.stopping:
                try:
                    connection, _ = self.listener.accept()
                except socket.timeout:
                    self._reap()
                    if self._should_end():
                        break
                    continue
                except InterruptedError:
                    continue
                with connection:
                    self._answer(connection)
                self._reap()
        finally:
            self._remove_socket()
            while self.children:  # children own their callers' commands: let them finish
                self._reap(block=True)
            log = self.path[:-len(".sock")] + ".log"
            if os.path.exists(log) and not os.path.getsize(log):
                os.unlink(log)  # nothing went wrong: nothing to keep

    def _should_end(self) -> bool:
        if self.children:
            return False
        if self.idle_seconds and time.monotonic() - self.last_used > self.idle_seconds:
            return True
        try:
            if os.stat(self.path).st_ino != self.inode:
                return True  # another daemon took the name, or someone removed it
        except OSError:
            return True
        if time.monotonic() - self.code_checked < CODE_CHECK_SECONDS:
            return False
        self.code_checked = time.monotonic()
        return warm_client.key(fresh=True) != self.key  # the installed code changed: clients look elsewhere

    def _remove_socket(self) -> None:
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass

    def _reap(self, block: bool = False) -> None:
        for pid in list(self.children):
            try:
                done, _status, usage = os.wait4(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                self.children.discard(pid)
                continue
            if done:
                self.children.discard(pid)
                self.children_cpu += usage.ru_utime + usage.ru_stime

    def _answer(self, connection: socket.socket) -> None:
        connection.settimeout(warm_client.CONNECT_SECONDS)
        fds: list[int] = []
        try:
            if not _same_user(connection):
                return
            message, fds = _receive(connection)
            if message.get("protocol") != warm_client.PROTOCOL:
                return  # the caller runs the command itself
            operation = message.get("op")
            if operation == "status":
                self._reap()
                self._reply(connection, self._status())
            elif operation == "stop":
                self.stopping = True
                self._reply(connection, {"pid": os.getpid()})
            elif operation == "run":
                self._run(connection, message, fds)
        except EOFError:
            pass
        except (OSError, ValueError, KeyError, TypeError):
            traceback.print_exc()
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _status(self) -> dict:
        return {"running": True, "pid": os.getpid(), "socket": self.path, "started": self.started,
                "served": self.served, "running_commands": len(self.children),
                "children_cpu_seconds": round(self.children_cpu, 6), "idle_timeout": self.idle_seconds}

    @staticmethod
    def _reply(connection: socket.socket, answer: dict) -> None:
        connection.sendall((json.dumps(answer) + "\n").encode())

    def _run(self, connection: socket.socket, message: dict, fds: list[int]) -> None:
        streams = dict(zip(message["fds"], fds))
        pid = os.fork()
        if pid == 0:
            code = 2
            try:
                self.listener.close()
                code = run_command(connection, message, streams)
            except BaseException:  # pylint: disable=broad-except  # before the command ran: say why
                traceback.print_exc()
            finally:
                os._exit(code)
        self.children.add(pid)
        self.served += 1
        self.last_used = time.monotonic()


def _same_user(connection: socket.socket) -> bool:
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True  # the folder's permissions are the guard where the kernel does not say
    _pid, uid, _gid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return uid == os.getuid()


def _receive(connection: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _flags, _address = socket.recv_fds(connection, 65536, 3)
    if not data:
        raise EOFError  # the caller went away before asking anything
    if len(data) < 4:
        raise ValueError("short request")
    size = int.from_bytes(data[:4], "big")
    if size > MAX_REQUEST_BYTES:
        raise ValueError("request too large")
    body = bytearray(data[4:])
    while len(body) < size:
        more = connection.recv(min(65536, size - len(body)))
        if not more:
            raise ValueError("truncated request")
        body += more
    return json.loads(bytes(body)), list(fds)


def _standard_stream(number: int, settings: list) -> io.TextIOWrapper:
    """A standard stream on descriptor `number` as Python makes one at start (create_stdio):
    buffered, descriptor left open, "\n" newlines, the caller's encoding, errors and buffering."""
    encoding, errors, line_buffering, write_through = settings
    raw = io.FileIO(number, "rb" if number == 0 else "wb", closefd=False)
    buffered = io.BufferedReader(raw) if number == 0 else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding=encoding, errors=errors, newline="\n",
                            line_buffering=line_buffering, write_through=write_through)


def run_command(connection: socket.socket, message: dict, streams: dict[int, int]) -> int:
    """In the forked child: become the caller's process as far as the command can tell, run it."""
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    null = os.open(os.devnull, os.O_RDWR)
    for number in (0, 1, 2):
        os.dup2(streams.get(number, null), number)
    os.close(null)
    for fd in streams.values():
        os.close(fd)
    os.chdir(message["cwd"])
    os.umask(message["umask"])
    os.environ.clear()
    os.environ.update(message["environ"])
    names = ("stdin", "stdout", "stderr")
    for number, (name, settings) in enumerate(zip(names, message["streams"])):
        stream = _standard_stream(number, settings) if settings else None
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    sys.argv = ["npu-lint", *message["argv"]]
    connection.settimeout(GO_SECONDS)
    connection.sendall((json.dumps({"pid": os.getpid()}) + "\n").encode())
    # Run only on the caller's word: a caller that gave up waiting for the pid above runs the
    # command itself, and closes the connection instead; the command must not run twice.
    try:
        if warm_client.read_line(connection.makefile("r", encoding="utf-8")) != {"go": True}:
            return 0
    except KeyboardInterrupt:  # the caller's Ctrl-C, forwarded as it said go
        return 130
    connection.settimeout(None)
    from npu_lint.frontends.cli import main

    try:
        code = main()
    except SystemExit as exc:  # argparse's --help and errors, as the interpreter would exit
        code = exc.code
    except BaseException:  # pylint: disable=broad-except  # a traceback, as the command would show
        traceback.print_exc()
        code = 1
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        connection.sendall((json.dumps({"exit": code}) + "\n").encode())
    except OSError:
        pass
    return code
