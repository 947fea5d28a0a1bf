"""The documentation site as a reader meets it: built (``mkdocs build --strict``, into a
temporary folder), every picture and every link between its pages leads somewhere, and the home
page links every page."""

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from cribsim.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


class Links(HTMLParser):
    """A page's links (``href``), pictures and scripts (``src``) and the ids it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.targets.append((tag, a[key]))


def _read(page):
    p = Links()
    p.feed(page.read_text(encoding="utf-8"))
    return p


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(ROOT / "mkdocs.yml"),
                        "-d", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def _broken(site, page, parsed, ids):
    """Where ``page``'s internal links and pictures lead nowhere (no file, or no such id)."""
    bad = []
    for tag, target in parsed.targets:
        url = urlsplit(target)
        if url.scheme or url.netloc:
            continue  # (another site's: not this test's to reach)
        base = site if url.path.startswith("/") else page.parent  # (404.html links from the site's root)
        path = (base / unquote(url.path).lstrip("/")).resolve() if url.path else page
        if path.is_dir():
            path = path / "index.html"
        where = f"{page.relative_to(site)}: <{tag}> {target}"
        if not path.is_file() or site.resolve() not in path.resolve().parents:
            bad.append(f"{where} (no such file in the site)")
        elif url.fragment and path.suffix == ".html" and unquote(url.fragment) not in ids(path):
            bad.append(f"{where} (no such anchor)")
    return bad


def test_every_picture_and_internal_link_of_the_built_site_resolves(site):
    pages = sorted(site.rglob("*.html"))
    cache = {}

    def ids(path):
        if path not in cache:
            cache[path] = _read(path).ids
        return cache[path]

    bad = [b for page in pages for b in _broken(site, page, _read(page), ids)]
    assert not bad, "\n".join(bad)
    pictures = [t for page in pages for tag, t in _read(page).targets if tag == "img"]
    assert pictures, "the site shows no picture: the results page shows one"


def _nav_pages(nav):
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            yield from _nav_pages(value)
        else:
            yield value


def test_the_home_page_links_every_page():
    nav = set(_nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert nav == pages, "every page is in the site's navigation, and only pages that exist"
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w-]+\.md)(?:#[\w-]*)?\)", home))
    assert pages - {"index.md"} - linked == set()


def test_commands_page_says_what_cribsim_version_says(capsys):
    """The lanes ``cribsim --version`` names, and not the retired compiled (mypyc) lane."""
    with pytest.raises(SystemExit):
        main(["--version"])
    said = capsys.readouterr().out
    lanes = re.findall(r"pure Python|native lane", said)
    assert lanes, said
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    sentence = next(s for s in page.split("\n\n") if "--version" in s)
    assert all(lane in sentence for lane in lanes), sentence
    assert "compiled" not in sentence and "mypyc" not in page
