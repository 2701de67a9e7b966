"""Every relative link in the README and the docs leads somewhere in the repository.

A clone is all a reader has: a link to a file that moved, or to a heading that was
renamed, is a dead end for a newcomer.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted(
    page
    for page in ROOT.glob("*/**/*.md")
    if not any(
        # not the repository's own pages: hidden folders, npm's, and what a build leaves
        part.startswith(".") or part in ("node_modules", "build", "dist")
        for part in page.parts[len(ROOT.parts) :]
    )
)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of ``page``."""
    anchors = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def _links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def test_the_pages_are_found():
    names = {page.relative_to(ROOT).as_posix() for page in PAGES}
    assert {"README.md", "docs/architecture.md", "firmware_bridge/PROTOCOL.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_somewhere(page):
    dead = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            dead.append(f"{target}: no such file")
        elif ROOT not in where.parents and where != ROOT:
            dead.append(f"{target}: leaves the repository")
        elif anchor and where.suffix == ".md" and anchor not in _anchors(where):
            dead.append(f"{target}: no heading #{anchor} in {where.name}")
    assert not dead, f"{page.relative_to(ROOT)}: " + "; ".join(dead)


def test_a_dead_link_is_noticed(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[gone](missing.md) [here](#title) [there](#nowhere)\n")
    assert _links(page) == ["missing.md", "#title", "#nowhere"]
    assert _anchors(page) == {"title"}
