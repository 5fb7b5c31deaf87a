#!/usr/bin/env python3
"""Benchmark of issues 7 and 15: lint a large PyTorch codebase at close to the cost of parsing it.

Not a test (pytest collects no file here).  Run from a checkout with npu-lint installed:

    python tests/benchmarks/run_benchmark.py [--runs 3] [--subset examples|all|N] [--json PATH]

It fetches the real code of DESIGN.md section 7 once into the cache (tests/realcode.py), then
measures each command as a child process (wall time, CPU time of the child and its children, peak
memory) and prints the ratios against the targets of the issue; see docs/performance.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: the shared real-code module

import realcode  # noqa: E402  (needs the path above)

TOOLS = ("flake8", "pylint", "astroid")  # installed in the plain environment, same versions as here

FLOOR = r"""
import ast, sys, warnings
warnings.simplefilter("ignore")
with open(sys.argv[1], encoding="utf-8") as listing:
    paths = listing.read().splitlines()
for path in paths:
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        ast.parse(data, path)
    except (SyntaxError, ValueError):
        pass
"""

# (name, measured, baseline, target, "max" when measured/baseline must stay below, "min" above,
# "shown" for a ratio with no target of its own)
TARGETS = (
    ("npu-lint check --jobs 1 / ast.parse floor (goal 1.5)", "check_j1", "floor", 3.0, "max"),
    ("npu-lint check of one small script, warm process running / plain flake8 on it", "small_check_warm",
     "small_flake8_plain", 1.0, "max"),
    ("npu-lint check of one small script, cold start / plain flake8 on it", "small_check", "small_flake8_plain",
     None, "shown"),
    ("pylint + plugin / pylint, one small script", "small_pylint_plugin", "small_pylint_default", 1.15, "max"),
    ("pylint + plugin / pylint, project", "pylint_plugin", "pylint_default", 1.10, "max"),
    ("flake8 --select=E9 with npu-lint installed / without", "flake8_unselected", "flake8_plain", 1.05, "max"),
    ("flake8 --select=NPU / plain flake8 --select=E9", "flake8_npu", "flake8_plain", 2.0, "max"),
    ("second run (cache) / first run", "check_cached", "check_first", 0.10, "max"),
    ("speed-up of --jobs 2 over --jobs 1", "check_j1", "check_j2", 1.7, "min"),
)
SMALL_SCRIPT = HERE.parent.parent / "docs" / "examples" / "train_gpu.py"  # one real-sized training script
MEMORY_TARGET_MB = 400


# -- the machine --------------------------------------------------------------

def machine() -> dict:
    info = {"nproc": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    if hasattr(os, "sched_getaffinity"):
        info["nproc"] = len(os.sched_getaffinity(0))
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gb"] = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    info["versions"] = {name: version(name) for name in ("npu-lint", *TOOLS)}
    return info


def machine_busy() -> float | None:
    """CPU seconds the whole machine has been busy (Linux /proc/stat: every container on it)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(x) for x in handle.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


def load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


# -- measuring a child process ------------------------------------------------

def _tree_rss_kb(root: int) -> int:
    """Resident memory of a process and its descendants now (Linux /proc; 0 elsewhere)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
        except (OSError, IndexError, ValueError):
            continue
    members, changed = {root}, True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in members and pid not in members:
                members.add(pid)
                changed = True
    return sum(rss.get(pid, 0) for pid in members)


def measure(command: list[str], cwd: Path, output: Path, sample_tree: bool = False, env: dict | None = None) -> dict:
    """Run a command; wall and CPU seconds (the child and its reaped children), peak RSS in MB."""
    with open(output, "wb") as stdout, open(output.with_suffix(".err"), "wb") as stderr:
        busy = machine_busy()
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=stdout, stderr=stderr, env=env)
        peak_tree = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.2):
                peak_tree[0] = max(peak_tree[0], _tree_rss_kb(process.pid))

        sampler = threading.Thread(target=sample, daemon=True) if sample_tree else None
        if sampler:
            sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        busy_after = machine_busy()
        done.set()
        if sampler:
            sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)
    per_mb = 2**20 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KB on Linux
    result = {
        "wall": round(wall, 3), "cpu": round(usage.ru_utime + usage.ru_stime, 3),
        "max_rss_mb": round(usage.ru_maxrss / per_mb, 1),
        "status": process.returncode,
    }
    if busy is not None and busy_after is not None:  # CPU that others took from the machine meanwhile
        result["others_cpu"] = round(max(busy_after - busy - result["cpu"], 0.0), 2)
    if sample_tree:
        result["tree_rss_mb"] = round(peak_tree[0] / 1024, 1)
    return result


def median_of(runs: list[dict]) -> dict:
    out = {key: round(statistics.median(r[key] for r in runs), 3) for key in ("wall", "cpu")}
    out["min_wall"] = min(r["wall"] for r in runs)
    quiet = min(runs, key=lambda r: r.get("others_cpu", 0.0))  # the run others disturbed least
    out["quietest"] = {key: quiet[key] for key in ("wall", "cpu", "others_cpu") if key in quiet}
    if all("others_cpu" in r for r in runs):
        out["others_cpu"] = round(statistics.median(r["others_cpu"] for r in runs), 2)
    out["max_rss_mb"] = max(r["max_rss_mb"] for r in runs)
    if all("tree_rss_mb" in r for r in runs):
        out["tree_rss_mb"] = max(r["tree_rss_mb"] for r in runs)
    out["status"] = sorted({r["status"] for r in runs})
    out["runs"] = runs
    return out


# -- the plain environment (flake8 and pylint, no npu-lint) ----------------------

def plain_python(folder: Path) -> Path:
    """A venv with this environment's flake8, pylint and astroid versions, and no npu-lint."""
    pins = [f"{name}=={version(name)}" for name in TOOLS]
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    marker = folder / "pins.txt"
    if python.exists() and marker.exists() and marker.read_text().split() == pins:
        return python
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *pins], check=True)
    marker.write_text("\n".join(pins) + "\n")
    return python


# -- which files reach astroid ------------------------------------------------

def astroid_fraction(files: list[Path]) -> dict:
    """How many files (and bytes) pass the engine's trigger-word text scan, and how many reach
    astroid at all: counted by checking every file in this process with `build_module` wrapped,
    so the count is the engine's own, whatever its cheap stages are."""
    from npu_lint.core.source import SourceError, decode_source
    from npu_lint.engine import engine as engine_module
    from npu_lint.run.runner import lint_bytes

    engine = engine_module.Engine()
    counts = {"files": 0, "bytes": 0, "text_scan": 0, "text_scan_bytes": 0,
              "reaching_astroid": 0, "reaching_astroid_bytes": 0}
    built: list[int] = []
    real_build = getattr(engine_module, "build_module", None)

    def counting_build(text, *args, **kwargs):
        built.append(len(text.encode("utf-8", "surrogatepass")))
        return real_build(text, *args, **kwargs)

    if real_build is not None:
        engine_module.build_module = counting_build
    try:
        for path in files:
            try:
                data = path.read_bytes()
                text = decode_source(data).text
            except (OSError, SourceError):
                continue
            counts["files"] += 1
            counts["bytes"] += len(data)
            if engine.could_fire(text):
                counts["text_scan"] += 1
                counts["text_scan_bytes"] += len(data)
                if real_build is not None:
                    before = len(built)
                    lint_bytes(engine, data, str(path))
                    if len(built) > before:
                        counts["reaching_astroid"] += 1
                        counts["reaching_astroid_bytes"] += len(data)
    finally:
        if real_build is not None:
            engine_module.build_module = real_build
    if real_build is None:  # an engine without build_module: the text scan is all we can tell
        counts["reaching_astroid"], counts["reaching_astroid_bytes"] = counts["text_scan"], counts["text_scan_bytes"]
    return counts


# -- the benchmark -------------------------------------------------------------

def pylint_files(files: list[Path], roots: list[Path], subset: str) -> tuple[list[Path], str]:
    if subset == "all":
        return files, f"all {len(files)} files"
    if subset == "examples":
        examples = [root for root in roots if root.parts[-2:] == ("transformers-4.18.0", "examples")]
        chosen = [f for f in files if examples and examples[0] in f.parents]
        return chosen, f"transformers 4.18.0 examples/ ({len(chosen)} files)"
    count = int(subset)
    step = max(1, len(files) // count)
    chosen = files[::step][:count]
    return chosen, f"{len(chosen)} files, every {step}th of the whole set"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each command; the table shows medians (default 3)")
    parser.add_argument("--subset", default="examples",
                        help="files pylint is run on: examples (transformers' examples/, default), all, or a "
                             "number N of files spread over the whole set")
    parser.add_argument("--json", type=Path, help="where to write the results (default: in the cache folder)")
    parser.add_argument("--plain-python", type=Path,
                        help="python of an environment with flake8 and pylint but without npu-lint "
                             "(default: made once in the cache folder)")
    parser.add_argument("--skip", default="",
                        help="comma-separated parts to leave out: floor,check,jobs,cache,flake8,small,pylint")
    parser.add_argument("--instructions", default="",
                        help="comma-separated targets to count instructions of as well, once per command under "
                             "valgrind's callgrind (no other process's load changes a count): check, small, "
                             "flake8 (check takes about ten minutes)")
    parser.add_argument("--from-json", type=Path, help="print the table of an earlier run's JSON and exit")
    parser.add_argument("--reference", type=Path,
                        help="findings of an earlier version (a file written by --save-reference): the table "
                             "says whether check --jobs 1 found exactly the same")
    parser.add_argument("--save-reference", type=Path, help="write the findings of check --jobs 1 to this file")
    parser.add_argument("--from-log", type=Path,
                        help="rebuild the JSON (--json) from the `run i/n name: {...}` lines an interrupted run printed")
    args = parser.parse_args(argv)
    if args.from_log:
        import ast

        results: dict[str, list[dict]] = {}
        for line in args.from_log.read_text(encoding="utf-8").splitlines():
            if line.startswith("run ") and ": {" in line:
                name, _, measured = line.split(" ", 2)[2].partition(": ")
                results.setdefault(name, []).append(ast.literal_eval(measured))
        files = realcode.python_files(realcode.real_code_roots())
        medians = {name: median_of(runs) for name, runs in results.items()}
        report = {"machine": machine(), "started": {"load": []}, "finished": {"load": load()},
                  "files": len(files), "bytes": sum(f.stat().st_size for f in files),
                  "roots": [p.folder for p in realcode.PROJECTS], "pylint_subset": args.subset,
                  "runs": max(len(r) for r in results.values()), "medians": medians,
                  "memory_target_mb": MEMORY_TARGET_MB, "astroid_fraction": astroid_fraction(files)}
        report["ratios"] = ratios(medians)
        if args.json:
            args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(table(report))
        return 0
    if args.from_json:
        report = json.loads(args.from_json.read_text(encoding="utf-8"))
        for measured in report["medians"].values():
            quiet = min(measured["runs"], key=lambda r: r.get("others_cpu", 0.0))
            measured["quietest"] = {key: quiet[key] for key in ("wall", "cpu", "others_cpu") if key in quiet}
        report["ratios"] = ratios(report["medians"])
        print(table(report))
        return 0
    skip = set(filter(None, args.skip.split(",")))
    os.environ["NPU_LINT_DAEMON"] = "off"  # every npu-lint command starts cold, except small_check_warm
    from npu_lint.knowledge.fingerprint import package_fingerprint
    from npu_lint.run import result_cache

    compile_like_pip()

    fingerprint_before = result_cache.fingerprint()  # npu-lint's code and data, to see edits during the run

    roots = realcode.real_code_roots()
    files = realcode.python_files(roots)
    work = realcode.realcode_dir().parent / "benchmark"
    work.mkdir(parents=True, exist_ok=True)
    listing = work / "files.txt"
    listing.write_text("\n".join(map(str, files)) + "\n", encoding="utf-8")
    plain = args.plain_python or plain_python(realcode.realcode_dir().parent / "bench-plain-venv")
    empty_rc = work / "empty.pylintrc"
    empty_rc.write_text("")
    subset, subset_label = pylint_files(files, roots, args.subset)
    dev = sys.executable
    roots_args = [str(r) for r in roots]
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

    commands: dict[str, tuple[list[str], bool]] = {}  # name -> (command, sample the process tree)
    if "floor" not in skip:
        commands["floor"] = ([dev, "-c", FLOOR, str(listing)], False)
    check = [dev, "-m", "npu_lint", "check", "--no-cache", "--format", "json"]
    if "check" not in skip:
        commands["check_j1"] = ([*check, "--jobs", "1", *roots_args], False)
    if "jobs" not in skip:
        commands["check_j2"] = ([*check, "--jobs", "2", *roots_args], True)
        if jobs != 2:
            commands["check_default_jobs"] = ([*check, *roots_args], True)
    if "flake8" not in skip:
        commands["flake8_plain"] = ([str(plain), "-m", "flake8", "--isolated", "-j1", "--select=E9", *roots_args], False)
        commands["flake8_unselected"] = ([dev, "-m", "flake8", "--isolated", "-j1", "--select=E9", *roots_args], False)
        commands["flake8_npu"] = ([dev, "-m", "flake8", "--isolated", "-j1", "--select=NPU", *roots_args], False)
    if "small" not in skip:  # what pre-commit and editors pay: one process per file
        small = str(SMALL_SCRIPT)
        commands["small_check"] = ([dev, "-m", "npu_lint", "check", "--no-cache", small], False)
        commands["small_check_warm"] = commands["small_check"]  # asks the warm process started below
        commands["small_flake8_plain"] = ([str(plain), "-m", "flake8", "--isolated", small], False)
        base = ["-m", "pylint", f"--rcfile={empty_rc}", "--persistent=n", "--score=n", "--reports=n"]
        commands["small_pylint_default"] = ([dev, *base, small], False)
        commands["small_pylint_plugin"] = ([dev, *base, "--load-plugins=npu_lint", small], False)
    if "pylint" not in skip:
        base = ["-m", "pylint", "-j1", f"--rcfile={empty_rc}", "--persistent=n", "--score=n", "--reports=n"]
        commands["pylint_default"] = ([dev, *base, *map(str, subset)], False)
        commands["pylint_plugin"] = ([dev, *base, "--load-plugins=npu_lint", *map(str, subset)], False)

    results: dict[str, list[dict]] = {name: [] for name in commands}
    warm = WarmProcess(dev, work) if "small_check_warm" in commands else None
    if "cache" not in skip:
        results["check_first"], results["check_cached"] = [], []
    started = {"time": datetime.datetime.now().isoformat(timespec="seconds"), "load": load()}
    try:
        for run in range(args.runs):
            for name, (command, tree) in commands.items():  # interleaved, so that load drifts hit all alike
                if warm and name == "small_check_warm":
                    results[name].append(warm.measure(command, work / f"{name}.out"))
                else:
                    results[name].append(measure(command, work, work / f"{name}.out", sample_tree=tree))
                print(f"run {run + 1}/{args.runs} {name}: {results[name][-1]}", file=sys.stderr, flush=True)
            if "cache" not in skip:
                cache_dir = Path(tempfile.mkdtemp(prefix="npu-lint-bench-cache-"))
                try:
                    command = [dev, "-m", "npu_lint", "check", "--cache-dir", str(cache_dir), "--format", "json",
                               *roots_args]
                    for name in ("check_first", "check_cached"):
                        results[name].append(measure(command, work, work / f"{name}.out", sample_tree=True))
                        print(f"run {run + 1}/{args.runs} {name}: {results[name][-1]}", file=sys.stderr, flush=True)
                finally:
                    shutil.rmtree(cache_dir, ignore_errors=True)
    finally:
        if warm:
            warm.stop()

    instructions = count_instructions(commands, set(filter(None, args.instructions.split(","))), work)
    medians = {name: median_of(runs) for name, runs in results.items() if runs}
    report = {
        "instructions": instructions, "machine": machine(), "started": started, "finished": {"load": load()},
        "files": len(files), "bytes": sum(f.stat().st_size for f in files),
        "roots": [str(Path(*r.parts[-2:])) if r.name in ("examples", "src") else r.name for r in roots],
        "pylint_subset": subset_label, "runs": args.runs, "medians": medians,
        "memory_target_mb": MEMORY_TARGET_MB, "astroid_fraction": astroid_fraction(files),
    }
    report["ratios"] = ratios(medians)
    if "check_j1" in commands:
        report["findings"] = compare_findings(work / "check_j1.out", args.reference, args.save_reference)
    result_cache.fingerprint.cache_clear()
    package_fingerprint.cache_clear()
    report["npu_lint_changed_during_the_run"] = result_cache.fingerprint() != fingerprint_before
    target = args.json or work / "benchmark.json"
    target.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(table(report))
    print(f"\nJSON: {target}")
    return 0


class WarmProcess:
    """`npu-lint daemon start` for the whole run, so that `small_check_warm` is the same command line as
    `small_check`, answered by the warm process. Its CPU time is the command's own plus that of the
    child the daemon forked for it (the daemon reaps it with `wait4` and reports the sum)."""

    def __init__(self, python: str, cwd: Path):
        self.python, self.cwd = python, cwd
        self.env = {key: value for key, value in os.environ.items() if key != "NPU_LINT_DAEMON"}
        started = subprocess.run([python, "-m", "npu_lint", "daemon", "start", "--idle-timeout", "0"], cwd=cwd,
                                 env=self.env, capture_output=True, text=True)
        if started.returncode != 0:
            raise SystemExit(f"npu-lint daemon start failed: {started.stderr}")
        self.socket = self.status()["socket"]

    def status(self) -> dict:
        if getattr(self, "socket", None):  # asked in this process: a cold `daemon status` would load the CLI
            from npu_lint.frontends.warm_daemon import status_of

            return status_of(self.socket) or {}
        proc = subprocess.run([self.python, "-m", "npu_lint", "daemon", "status", "--json"], cwd=self.cwd,
                              env=self.env, capture_output=True, text=True)
        return json.loads(proc.stdout)

    def measure(self, command: list[str], output: Path) -> dict:
        before = self.status()
        result = measure(command, self.cwd, output, env=self.env)
        after = self.status()
        for _ in range(200):  # the child sends its exit status just before it exits: wait until reaped
            if not after.get("running_commands"):
                break
            time.sleep(0.01)
            after = self.status()
        if after.get("served") != before.get("served", -1) + 1:
            raise SystemExit("small_check_warm was not answered by the warm process")
        result["cpu"] = round(result["cpu"] + after["children_cpu_seconds"] - before["children_cpu_seconds"], 3)
        return result

    def stop(self) -> None:
        subprocess.run([self.python, "-m", "npu_lint", "daemon", "stop"], cwd=self.cwd, env=self.env,
                       capture_output=True)


# target -> the commands whose instructions it compares (single processes: callgrind follows no child)
INSTRUCTION_PAIRS = {"check": ("check_j1", "floor"), "small": ("small_check", "small_flake8_plain"),
                     "flake8": ("flake8_unselected", "flake8_plain")}


def count_instructions(commands: dict, wanted: set[str], cwd: Path) -> dict[str, int]:
    """Instructions each command of the wanted targets executes, counted by callgrind.

    On a shared machine wall and CPU time move with the neighbours' load (here `check` took
    10.5 to 14.5 s within one run); an instruction count does not, so a ratio of counts shows
    whether a change made the work smaller. Needs `valgrind`; without it, nothing is counted."""
    unknown = wanted - set(INSTRUCTION_PAIRS)
    if unknown:
        raise SystemExit(f"--instructions: unknown target(s) {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(INSTRUCTION_PAIRS)}")
    if not wanted:
        return {}
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("--instructions: valgrind is not installed; no instructions counted", file=sys.stderr)
        return {}
    counts: dict[str, int] = {}
    for name in sorted({name for target in wanted for name in INSTRUCTION_PAIRS[target]}):
        if name not in commands:
            continue
        process = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *commands[name][0]],
                                 cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace",
                                 env={**os.environ, "PYTHONHASHSEED": "0"})  # set order moves a count by ~1%
        collected = [line.rsplit(":", 1)[1] for line in process.stderr.splitlines() if "Collected :" in line]
        if collected:
            counts[name] = int(collected[-1].strip())
            print(f"instructions {name}: {counts[name]:,}", file=sys.stderr, flush=True)
    return counts


def instruction_ratios(counts: dict[str, int]) -> list[str]:
    """Table rows: each counted target's ratio of instructions against its target."""
    rows = []
    for label, measured, baseline, target, kind in TARGETS:
        if measured in counts and baseline in counts:
            value = counts[measured] / counts[baseline]
            if kind == "shown":
                rows.append(f"| {label} | {counts[measured] / 1e9:.2f} G / {counts[baseline] / 1e9:.2f} G | "
                            f"{value:.2f} | | |")
                continue
            met = value <= target if kind == "max" else value >= target
            rows.append(f"| {label} | {counts[measured] / 1e9:.2f} G / {counts[baseline] / 1e9:.2f} G | {value:.2f} | "
                        f"{'<=' if kind == 'max' else '>='} {target} | {'yes' if met else 'no'} |")
    return rows


def findings_of(output: Path) -> list[list]:
    """check --format json output as sorted [file relative to the real-code folder, code, row, column,
    message] rows, comparable across machines and versions."""
    base = realcode.realcode_dir()
    rows = []
    for item in json.loads(output.read_text(encoding="utf-8")):
        path = Path(item["filename"])
        relative = path.relative_to(base).as_posix() if path.is_relative_to(base) else path.as_posix()
        rows.append([relative, item["code"], item["location"]["row"], item["location"]["column"], item["message"]])
    return sorted(rows)


def compile_like_pip() -> None:
    """Byte-compile npu-lint as `pip install` does for a wheel: a checkout run with
    PYTHONDONTWRITEBYTECODE set (or from a read-only folder) would otherwise compile every
    module on every start, which no installed copy does (about 40 ms of each small run)."""
    import compileall

    import npu_lint

    compileall.compile_dir(os.path.dirname(npu_lint.__file__), quiet=1)


def compare_findings(output: Path, reference: Path | None, save: Path | None) -> dict:
    """The no-fidelity-lost check of issue 15: the same findings as a reference run."""
    rows = findings_of(output)
    if save:
        save.write_text(json.dumps(rows, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    summary: dict = {"count": len(rows)}
    if reference:
        before = {tuple(row) for row in json.loads(reference.read_text(encoding="utf-8"))}
        after = {tuple(row) for row in rows}
        summary.update(reference=str(reference), identical=before == after,
                       only_in_reference=sorted(before - after)[:20], only_now=sorted(after - before)[:20],
                       counts={"reference": len(before), "now": len(after)})
    return summary


def ratios(medians: dict) -> list[dict]:
    """Each target's ratio of medians (wall and CPU), and of the runs others disturbed least."""
    out = []
    for label, measured, baseline, target, kind in TARGETS:
        if measured in medians and baseline in medians:
            value = medians[measured]["wall"] / medians[baseline]["wall"]
            cpu_value = medians[measured]["cpu"] / medians[baseline]["cpu"]
            quiet = medians[measured]["quietest"]["wall"] / medians[baseline]["quietest"]["wall"]
            if kind == "shown":
                out.append({"name": label, "ratio": round(value, 3), "cpu_ratio": round(cpu_value, 3),
                            "quietest_ratio": round(quiet, 3), "target": "", "met": None, "met_when_quiet": None})
                continue
            met = (lambda v: v <= target) if kind == "max" else (lambda v: v >= target)
            out.append({"name": label, "ratio": round(value, 3), "cpu_ratio": round(cpu_value, 3),
                        "quietest_ratio": round(quiet, 3),
                        "target": f"{'<=' if kind == 'max' else '>='} {target}", "met": met(value),
                        "met_when_quiet": met(quiet)})
    return out


def table(report: dict) -> str:
    lines = [f"{report['files']} files, {report['bytes'] / 1e6:.1f} MB ({', '.join(report['roots'])}); "
             f"pylint on {report['pylint_subset']}; median of {report['runs']} runs; "
             f"load {report['started']['load']} -> {report['finished']['load']}", "",
             "| command | wall s | CPU s | peak RSS MB | others' CPU s |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, m in report["medians"].items():
        rss = f"{m['max_rss_mb']:.0f}" + (f" (all processes {m['tree_rss_mb']:.0f})" if "tree_rss_mb" in m else "")
        lines.append(f"| {name} | {m['wall']:.2f} | {m['cpu']:.2f} | {rss} | {m.get('others_cpu', '')} |")
    lines += ["", "| target | median wall | median CPU | quietest runs | target | met (median / quietest) |",
              "| --- | ---: | ---: | ---: | --- | --- |"]
    yes = lambda ok: "yes" if ok else "no"  # noqa: E731
    for r in report["ratios"]:
        met = "" if r["met"] is None else f"{yes(r['met'])} / {yes(r['met_when_quiet'])}"
        lines.append(f"| {r['name']} | {r['ratio']:.2f} | {r['cpu_ratio']:.2f} | {r['quietest_ratio']:.2f} | "
                     f"{r['target']} | {met} |")
    if "check_j1" in report["medians"]:
        peak = report["medians"]["check_j1"]["max_rss_mb"]
        ok = yes(peak <= report["memory_target_mb"])
        lines.append(f"| peak memory of npu-lint check --jobs 1 (MB) | {peak:.0f} | | | <= {report['memory_target_mb']} | "
                     f"{ok} |")
    counted = instruction_ratios(report.get("instructions") or {})
    if counted:
        lines += ["", "| target, in instructions (callgrind) | measured / baseline | ratio | target | met |",
                  "| --- | ---: | ---: | --- | --- |", *counted]
    f = report["astroid_fraction"]
    share = lambda part, whole: f"{part / max(whole, 1):.0%}"  # noqa: E731
    lines += ["", f"files passing the trigger-word text scan: {f['text_scan']} of {f['files']} "
              f"({share(f['text_scan'], f['files'])} of files, {share(f['text_scan_bytes'], f['bytes'])} of bytes); "
              f"reaching astroid: {f['reaching_astroid']} ({share(f['reaching_astroid'], f['files'])} of files, "
              f"{share(f['reaching_astroid_bytes'], f['bytes'])} of bytes)"]
    findings = report.get("findings")
    if findings and "identical" in findings:
        lines += ["", f"findings of check --jobs 1: {findings['counts']['now']} now, "
                  f"{findings['counts']['reference']} in the reference run: "
                  + ("identical" if findings["identical"] else
                     f"DIFFERENT (only in reference: {findings['only_in_reference'][:3]}, "
                     f"only now: {findings['only_now'][:3]})")]
    if report.get("npu_lint_changed_during_the_run"):
        lines += ["", "WARNING: npu-lint's code or data changed during the run (a live checkout?): the runs mix "
                  "versions, and the cache was missed; benchmark an installed copy"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
