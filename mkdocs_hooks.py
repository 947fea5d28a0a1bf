"""MkDocs hooks (``hooks:`` in mkdocs.yml): the pictures of committed results on the site.

A page shows a committed result's picture as ``<img src="../results/NAME/FILE.png" ...>``, the
path that reads from ``docs/`` in the repository. The site's pages are built from ``docs/``
alone, so the hooks copy each picture a page shows into the site, at ``results/NAME/FILE.png``,
and point the page's ``src`` at it from where the page lands. A page that shows a picture that
is not committed fails the build."""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

PICTURE = re.compile(r'src="\.\./(results/[\w./=,+-]+\.png)"')


def _shown(config: MkDocsConfig) -> dict[str, Path]:
    """Every committed picture a page shows: its path in the site and its file."""
    docs = Path(config.docs_dir)
    out = {}
    for page in sorted(docs.glob("*.md")):
        for rel in PICTURE.findall(page.read_text(encoding="utf-8")):
            if not (docs.parent / rel).is_file():
                raise PluginError(f"{page.name} shows ../{rel}, which is not a file in the repository")
            out[rel] = docs.parent / rel
    return out


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for rel in sorted(_shown(config)):
        if files.get_file_from_path(rel) is None:
            files.append(File(rel, str(Path(config.docs_dir).parent), config.site_dir, config.use_directory_urls))
    return files


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return PICTURE.sub(lambda m: f'src="{get_relative_url(m.group(1), page.url)}"', html)
