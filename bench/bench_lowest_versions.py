"""Whether boardref works at the lowest versions its ``pyproject.toml`` allows.

Reads the runtime dependencies and the ``dev`` extra the tests need, writes a
constraints file pinning each to the lowest release its range admits, makes a fresh
venv in a temporary folder, installs the project there as pip installs it on a
table (from a copy of the source tree, not editable) with those constraints, and
then, from another folder holding only a copy of ``tests/``: every command's
``--help``, ruff over the source, and a chosen part of the test suite (panel and
service, a page in Chromium, engines, board link, sensors and camera; the firmware
under MicroPython where ``make micropython`` has been run). What pip picks for the
packages we do not name (click for typer, Starlette within FastAPI's range) is left
to it, as on a table, and reported. Prints what was installed and what passed, as
one JSON line; exits 1 when anything failed, so a lower bound that no longer works
is seen.

A lower bound found wrong is raised to the lowest release that passes; ``--pin
NAME==VERSION`` (again for more) tries another release of a dependency, or pins one
of theirs, without editing anything. It never changes ``pyproject.toml`` itself.

``--smoke`` (the test suite's run) installs nothing and needs no network: it reads
the bounds and writes the constraints file, each pin checked against its range.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version
from smoke import SMOKE

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent
#: the extras installed beside the runtime dependencies: what the tests need
EXTRAS = ("dev",)
#: the test files run against the install: the service and its panel (and its pages
#: in Chromium), the engines, the board link, the hardware bring-up and the camera
TESTS = (
    "tests/boardref/outputs/panel/test_panel.py",
    "tests/boardref/outputs/panel/test_browser_pages.py",
    "tests/boardref/outputs/panel/test_panel_server.py",
    "tests/boardref/runtime/test_config.py",
    "tests/boardref/eventlog/test_store.py",
    "tests/boardref/outputs/panel/test_openapi.py",
    "tests/boardref/outputs/panel/test_fuzz_panel.py",
    "tests/boardref/eventlog/test_history.py",
    "tests/boardref/outputs/test_fleet.py",
    "tests/boardref/sim/test_terminal_play.py",
    "tests/boardref/devices/test_camera.py",
    "tests/engines/test_sternhalma.py",
    "tests/engines/test_catch_the_hare.py",
    "tests/engines/test_hakenschlagen.py",
    "tests/engines/test_records.py",
    "tests/firmware_bridge/test_bridge_link.py",
    "tests/firmware_bridge/test_bridge_protocol.py",
    "tests/firmware_bridge/test_bridge_sim.py",
    "tests/firmware_bridge/test_bridge_device.py",
    "tests/hardware",
    "tests/vision/test_vision.py",
)
#: tests among those that read the source tree beside them (the example config, the
#: word tables), which an install does not have
DESELECTED = (
    "tests/boardref/runtime/test_config.py::test_the_example_config_is_valid",
    "tests/hardware/test_board_words.py",
)
#: the firmware under MicroPython (mpy-cross, the firmware tests' own fakes): run where
#: ``make micropython`` has put the WebAssembly port in the source tree
UNDER_MICROPYTHON = "tests/firmware_bridge/test_bridge_micropython.py"
#: where ``make micropython`` puts the port, found by the tests beside ``tests/``
NODE = ".node"
#: every pin's installed version is reported; these too, chosen by pip for ours
ALSO_REPORTED = ("click", "starlette", "pydantic-core", "anyio", "h11")


def lower_bound(requirement: Requirement) -> str | None:
    """The lowest version ``requirement`` admits as written (its ``>=``, ``==`` or
    ``~=``), or None where it names none."""
    for spec in requirement.specifier:
        if spec.operator in (">=", "==", "~=", "==="):
            return spec.version
    return None


def requirements(pyproject: Path, extras: tuple[str, ...] = EXTRAS) -> list[Requirement]:
    """The runtime dependencies and those of ``extras`` that apply on this machine."""
    with pyproject.open("rb") as file:
        project = tomllib.load(file)["project"]
    found = [(Requirement(text), "") for text in project["dependencies"]]
    for extra in extras:
        found += [(Requirement(text), extra) for text in project["optional-dependencies"][extra]]
    return [
        requirement
        for requirement, extra in found
        if requirement.marker is None or requirement.marker.evaluate({"extra": extra})
    ]


def lowest_release(requirement: Requirement) -> str | None:
    """The lowest release on the package index that ``requirement`` admits (a bound
    such as ``>=25`` need not be a release: pip would install the lowest one above)."""
    asked = run([sys.executable, "-m", "pip", "index", "versions", requirement.name], cwd=HERE)
    for text in asked.stdout.splitlines():
        if text.startswith("Available versions:"):
            releases = []
            for word in text.split(":", 1)[1].split(","):
                with contextlib.suppress(InvalidVersion):
                    releases.append(Version(word.strip()))
            admitted = sorted(requirement.specifier.filter(releases))
            return str(admitted[0]) if admitted else None
    sys.exit(f"pip could not list the releases of {requirement.name}: {asked.stderr.strip()}")


def pins(
    wanted: list[Requirement], extra: dict[str, str], released: bool = False
) -> dict[str, str]:
    """``{name: version}``: each requirement at its lower bound (with ``released``, the
    lowest release it admits), then ``extra``. A pin its own requirement does not
    admit is an error: the bound is misread."""
    pinned = {}
    for requirement in wanted:
        lowest = lowest_release(requirement) if released else lower_bound(requirement)
        if lowest is None:
            sys.exit(f"{requirement} names no lower bound, or none that was released")
        if lowest not in requirement.specifier:
            sys.exit(f"{requirement}: its lower bound {lowest} is outside its own range")
        pinned[canonicalize_name(requirement.name)] = lowest
    for name, version in extra.items():
        for requirement in wanted:
            if canonicalize_name(requirement.name) == name and version not in requirement.specifier:
                sys.exit(f"the pin {name}=={version} is outside {requirement}")
        pinned[name] = version
    return pinned


def write_constraints(pinned: dict[str, str], path: Path) -> Path:
    path.write_text("".join(f"{name}=={version}\n" for name, version in sorted(pinned.items())))
    return path


def run(command: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)


def in_venv(venv: Path, arguments: list[str], cwd: Path, env: dict | None = None):
    """The venv's own Python run with ``arguments``."""
    return run([str(venv / "bin" / "python"), *arguments], cwd=cwd, env=env)


def copy_tracked(source: Path, target: Path, under: str = "") -> None:
    """The files of ``source`` (or of its folder ``under``) that a clone would hold, as
    they are now (edits not yet committed included), copied to ``target``."""
    listed = run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", under or "."],
        cwd=source,
    )
    if listed.returncode:
        sys.exit(f"git could not list the source files: {listed.stderr.strip()}")
    for name in filter(None, listed.stdout.split("\0")):
        if (source / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, target / name)


def install(work: Path, constraints: Path) -> tuple[Path, dict]:
    """A fresh venv in ``work`` with the project installed (not editable) under
    ``constraints``: its folder and the install's outcome."""
    source, venv = work / "source", work / "venv"
    copy_tracked(PROJECT, source)
    made = run([sys.executable, "-m", "venv", str(venv)], cwd=work)
    if made.returncode:
        sys.exit(f"could not make a venv: {made.stderr.strip()}")
    began = time.monotonic()
    wanted = f"{source}[{','.join(EXTRAS)}]"
    pip = ["-m", "pip", "install", "--quiet", "--constraint", str(constraints), wanted]
    done = in_venv(venv, pip, work)
    # pip builds in the copy and leaves its build folder there, which ruff would read
    shutil.rmtree(source / "build", ignore_errors=True)
    outcome = {"ok": done.returncode == 0, "s": round(time.monotonic() - began, 1)}
    if done.returncode:
        outcome["error"] = done.stderr.strip()[-2000:]
    return venv, outcome


def installed_versions(venv: Path, names: list[str]) -> dict[str, str | None]:
    script = (
        "import json, sys\n"
        "from importlib.metadata import version, PackageNotFoundError\n"
        "def found(name):\n"
        "    try:\n"
        "        return version(name)\n"
        "    except PackageNotFoundError:\n"
        "        return None\n"
        "print(json.dumps({name: found(name) for name in sys.argv[1:]}))\n"
    )
    answer = in_venv(venv, ["-c", script, *names], venv)
    return json.loads(answer.stdout)


#: lists every command of the installed ``boardref`` (the words that name it)
COMMANDS = """
import json, click, typer.main
from boardref.cli.app import app
def walk(command, words):
    found = [words]
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            found += walk(sub, [*words, name])
    return found
print(json.dumps(walk(typer.main.get_command(app), [])))
"""


def command_helps(venv: Path, folder: Path) -> dict:
    """``boardref ... --help`` of every command: how many, and those that failed."""
    listed = in_venv(venv, ["-c", COMMANDS], folder)
    if listed.returncode:
        return {"commands": 0, "failed": {"(listing)": listed.stderr.strip()[-1500:]}}
    failed = {}
    commands = json.loads(listed.stdout)
    for words in commands:
        helped = run([str(venv / "bin" / "boardref"), *words, "--help"], cwd=folder)
        if helped.returncode or "Usage" not in helped.stdout:
            failed[" ".join(words) or "(boardref)"] = (helped.stderr or helped.stdout)[-1500:]
    return {"commands": len(commands), "failed": failed}


def lint(venv: Path, work: Path) -> dict:
    """ruff, at its lowest allowed version, over the source as ``make test`` runs it."""
    checked = run([str(venv / "bin" / "ruff"), "check", "--no-cache", "."], cwd=work / "source")
    return {"clean": checked.returncode == 0, "said": checked.stdout.strip()[-1500:]}


def test_results(report: Path) -> dict[str, dict[str, int]]:
    """``{test module: {passed, failed, skipped}}`` from pytest's JUnit XML report (a
    file that could not be collected is counted as ``(collecting)``)."""
    results: dict[str, dict[str, int]] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        module = case.get("classname") or "(collecting)"
        tally = results.setdefault(module, {"passed": 0, "failed": 0, "skipped": 0})
        if case.find("skipped") is not None:
            tally["skipped"] += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            tally["failed"] += 1
        else:
            tally["passed"] += 1
    return results


def run_tests(venv: Path, work: Path, tests: tuple[str, ...]) -> dict:
    """``tests`` run by the install's Python from a folder holding only the tests, so
    that ``import boardref`` finds the installed package and not the source."""
    folder = work / "outside"
    folder.mkdir()
    copy_tracked(PROJECT, folder, "tests")
    if (PROJECT / NODE).is_dir():
        (folder / NODE).symlink_to(PROJECT / NODE)
        tests = (*tests, UNDER_MICROPYTHON)
    report = work / "tests.xml"
    began = time.monotonic()
    ran = in_venv(
        venv,
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
        + [f"--deselect={test}" for test in DESELECTED]
        + list(tests),
        folder,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    where = in_venv(
        venv, ["-c", "import boardref; print(boardref.__file__)"], folder
    ).stdout.strip()
    outcome = {
        "exit": ran.returncode,
        "s": round(time.monotonic() - began, 1),
        "boardref_from_install": where.startswith(str(venv)),
        "firmware_under_micropython": UNDER_MICROPYTHON in tests,
        "files": test_results(report) if report.exists() else {},
    }
    if ran.returncode:
        # pytest says why it could not start (a conftest that fails to import) on stderr
        outcome["tail"] = (ran.stdout + ran.stderr).strip()[-3000:]
    return outcome


def pinned_by_hand(text: str) -> tuple[str, str]:
    """``(name, version)`` of a ``--pin NAME==VERSION``."""
    with contextlib.suppress(InvalidRequirement):
        requirement = Requirement(text)
        specs = list(requirement.specifier)
        if len(specs) == 1 and specs[0].operator == "==":
            return canonicalize_name(requirement.name), specs[0].version
    sys.exit(f"--pin {text}: write it as NAME==VERSION")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="write the constraints only")
    parser.add_argument("--full", action="store_true", help="(no long form; accepted)")
    parser.add_argument("--pin", action="append", default=[], metavar="NAME==VERSION")
    parser.add_argument("--tests", nargs="*", help="test files to run instead of the chosen")
    parser.add_argument("--keep", action="store_true", help="leave the venv (its path printed)")
    options = parser.parse_args()
    wanted = requirements(PROJECT / "pyproject.toml")
    extra = dict(map(pinned_by_hand, options.pin))
    pinned = pins(wanted, extra, released=not SMOKE)
    line: dict = {"bench": "lowest_versions", "python": sys.version.split()[0], "pins": pinned}
    if SMOKE:
        line["constraints"] = write_constraints(pinned, Path("constraints.txt")).read_text()
        print(json.dumps(line))
        return
    work = Path(tempfile.mkdtemp(prefix="boardref-lowest-"))
    try:
        venv, line["install"] = install(work, write_constraints(pinned, work / "constraints.txt"))
        if line["install"]["ok"]:
            line["installed"] = installed_versions(venv, [*pinned, *ALSO_REPORTED])
            line["help"] = command_helps(venv, work)
            line["ruff"] = lint(venv, work)
            line["tests"] = run_tests(venv, work, tuple(options.tests or TESTS))
    finally:
        if options.keep:
            line["kept"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    line["all_passed"] = (
        bool(
            line["install"]["ok"]
            and not line["help"]["failed"]
            and line["ruff"]["clean"]
            and line["tests"]["exit"] == 0
            and line["tests"]["boardref_from_install"]
        )
        if "tests" in line
        else False
    )
    print(json.dumps(line))
    if not line["all_passed"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
