"""The docs: README.md is the front door (at most 200 lines, the two commands, a link to every page
under docs/), and docs/ builds as a site with ``mkdocs build --strict`` offline (mkdocs.yml: every
page in the nav, every link and anchor resolved, no plugin that fetches anything)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from markdown.extensions.toc import slugify

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
README = REPO / "README.md"
MAX_README_LINES = 200
OFFLINE_PLUGINS = {"search"}  # material's privacy and social plugins fetch from the network
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _mkdocs(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], capture_output=True, text=True, env=env, timeout=300)


def _pages() -> list[str]:
    return sorted(p.relative_to(REPO).as_posix() for p in DOCS.rglob("*.md"))


def _links(text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # no links inside code blocks
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {slugify(re.sub(r"`", "", h), "-") for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def test_the_site_builds_strictly_and_offline(tmp_path):
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    assert config["theme"]["name"] == "material"
    assert config["theme"].get("font") is False, "font: false, or the site asks Google Fonts for its fonts"
    plugins = {p if isinstance(p, str) else next(iter(p)) for p in config.get("plugins", [])}
    assert plugins <= OFFLINE_PLUGINS, f"plugins that may fetch from the network: {plugins - OFFLINE_PLUGINS}"
    done = _mkdocs(REPO / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    for page in _pages():
        html = tmp_path / "site" / Path(page).relative_to("docs").with_suffix("") / "index.html"
        if page == "docs/index.md":
            html = tmp_path / "site" / "index.html"
        assert html.is_file(), f"{page} was not built"
        assert "fonts.googleapis.com" not in html.read_text(), f"{page} loads Google Fonts"


def test_a_broken_anchor_fails_the_strict_build(tmp_path):
    """The build above passing means something: a link to a heading that does not exist fails it."""
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    with open(tmp_path / "docs" / "index.md", "a") as f:
        f.write("\nSee [the claims](claims.md#no-such-heading).\n")
    done = _mkdocs(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0 and "no-such-heading" in done.stdout + done.stderr, done.stdout + done.stderr


def test_the_readme_is_a_front_door():
    text = README.read_text()
    lines = text.count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move the detail into a docs/ page"
    for command in ("bash scripts/start.sh    #", "bash scripts/test.sh     #", "bash scripts/start.sh --class"):
        assert command in text, f"README.md lost `{command}`"
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text)
    assert images and all((REPO / t).is_file() for t in images), images


def test_the_readme_links_every_docs_page():
    linked = {t.split("#")[0] for t in _links(README.read_text())}
    missing = [p for p in _pages() if p not in linked]
    assert not missing, f"README.md's map of the docs does not link {missing}"


def test_every_link_of_the_readme_resolves():
    """Each relative link of README.md names a file that exists, and each #anchor a heading of that
    page."""
    for target in _links(README.read_text()):
        path, _, anchor = target.partition("#")
        assert (REPO / path).exists(), f"README.md links {target}: no such file"
        if anchor:
            assert anchor in _anchors(REPO / path), f"README.md links {target}: no such heading"


def test_every_page_is_in_the_nav():
    """mkdocs --strict fails on a page left out of the nav too (validation.omitted_files: warn); this
    says which, without a build."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())

    def walk(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for v in node.values():
                yield from walk(v)
        else:
            for v in node:
                yield from walk(v)

    in_nav = {"docs/" + p for p in walk(config["nav"])}
    assert set(_pages()) == in_nav, (sorted(set(_pages()) - in_nav), sorted(in_nav - set(_pages())))


def test_the_screenshots_land_where_the_docs_read_them():
    """scripts/screenshots.py writes docs/img/ by default, the folder every picture of the docs is in."""
    usage = subprocess.run([sys.executable, str(REPO / "scripts" / "screenshots.py"), "--help"],
                           capture_output=True, text=True, timeout=60).stdout
    assert "(default docs/img/)" in usage, usage
    for page in [README, *DOCS.glob("*.md")]:
        for target in _links(page.read_text()):
            if target.endswith(".png"):
                base = REPO if page == README else DOCS
                assert (base / target).resolve().parent == DOCS / "img", f"{page.name}: {target}"
                assert (base / target).is_file(), f"{page.name}: {target}"
