"""Sphinx configuration of the neuroalgebra documentation (offline; PyPI packages only).

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (``tests/test_docs.py`` runs it in the default test
run).  The tutorials are ``notebooks/`` (``docs/tutorials`` is a link to it), rendered by myst-nb.  By default they
are shown as written (no execution: the build stays fast and needs no kernel); ``NEUROALGEBRA_DOCS_EXECUTE=1``
executes each in fast mode (``NEUROALGEBRA_FAST=1``) so the site carries their tables and plots.
"""

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

from algebra.version import __version__  # noqa: E402

project = "neuroalgebra"
author = "neuroalgebra contributors"
release = version = __version__

extensions = [
    "sphinx.ext.autodoc",
    "numpydoc",
    "myst_nb",
    "cli_reference",
]

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_default_options = {"members": False}
autodoc_typehints = "none"

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "tutorials/.ipynb_checkpoints"]
myst_heading_anchors = 3
# ``$...$`` and ``$$...$$`` in the tutorials' markdown are mathematics (rendered by MathJax, Sphinx's default for
# HTML); GFM tables are part of MyST itself.
myst_enable_extensions = ["dollarmath"]
# A notebook's ``text/markdown`` outputs (the tables notebooks print with ``display(Markdown(...))``) are parsed as
# MyST like the rest of the site; myst-nb's default, plain CommonMark, has no tables and leaves ``|---|`` as text.
nb_render_markdown_format = "myst"
suppress_warnings = ["myst.header", "misc.highlighting_failure"]  # a JSON template with placeholders (interval-inequality.md)

EXECUTE = os.environ.get("NEUROALGEBRA_DOCS_EXECUTE") == "1"
nb_execution_mode = "force" if EXECUTE else "off"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_in_temp = True  # notebooks that write figures to their working directory write them there, not into notebooks/
if EXECUTE:
    os.environ.setdefault("NEUROALGEBRA_FAST", "1")
    os.environ.setdefault("NEUROALGEBRA_OUT", tempfile.mkdtemp(prefix="neuroalgebra-docs-"))

html_theme = "alabaster"
html_static_path = []
