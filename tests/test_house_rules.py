"""House rules a newcomer relies on: every module short enough to read in one sitting
(the game engines, one rule book each, excepted). Function length and complexity are
held by ruff (PLR0915, C901) in `make test`."""

from pathlib import Path

from engines import GAMES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("boardref", "engines", "firmware_bridge", "vision", "hardware", "bench", "tests")
MOST_LINES = 700


def _long_files(root: Path) -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.suffix not in (".py", ".js") or "node_modules" in path.parts:
                continue
            if package == "engines" and path.stem in GAMES:
                continue  # a game engine holds its whole rule book
            lines = path.read_text(encoding="utf-8").count("\n")
            if lines > MOST_LINES:
                found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def test_no_module_outside_the_game_engines_is_over_700_lines():
    assert not _long_files(ROOT)


def test_a_long_module_is_noticed(tmp_path):
    (tmp_path / "boardref").mkdir()
    (tmp_path / "boardref" / "big.py").write_text("x = 1\n" * (MOST_LINES + 1))
    assert _long_files(tmp_path) == [f"boardref/big.py: {MOST_LINES + 1} lines"]


def test_a_long_engines_module_that_is_no_game_engine_is_noticed(tmp_path):
    (tmp_path / "engines").mkdir()
    for name in ("records", "hakenschlagen"):
        (tmp_path / "engines" / f"{name}.py").write_text("x = 1\n" * (MOST_LINES + 1))
    assert _long_files(tmp_path) == [f"engines/records.py: {MOST_LINES + 1} lines"]
