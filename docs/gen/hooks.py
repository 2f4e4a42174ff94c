"""mkdocs hook (mkdocs.yml `hooks:`): adds the generated pages to the site at build time, and fills
the generated tables of hand-written pages (a marker line each). Nothing generated is committed;
each generator reads the code or the results it documents."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atari_page  # noqa: E402
import cli_reference  # noqa: E402
import config_reference  # noqa: E402
import marked_tables  # noqa: E402
import middleware_reference  # noqa: E402
import performance_tables  # noqa: E402
import quickstart  # noqa: E402
from docgen_common import ROOT  # noqa: E402

GENERATED = {
    'quickstart.md': quickstart.render,
    'reference/cli.md': cli_reference.render,
    'reference/config.md': config_reference.render,
    'reference/middleware.md': middleware_reference.render,
    'benchmarks.md': performance_tables.render,
    'atari.md': atari_page.render,
}


def on_config(config, **kwargs):
    if ROOT not in sys.path:  # the generators import ding and dizoo from this checkout
        sys.path.insert(0, ROOT)
    return config


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File
    for src_uri, render in GENERATED.items():
        if files.get_file_from_path(src_uri) is not None:
            raise RuntimeError(f'docs/{src_uri} is generated at build time; remove the committed file')
        files.append(File.generated(config, src_uri, content=render()))
    return files


def on_page_markdown(markdown, page, **kwargs):
    return marked_tables.fill(page.file.src_uri, markdown)
