"""Sphinx configuration of dpverify's documentation: the pages of ``docs/`` (Markdown, through MyST) and the API
reference built from the docstrings (``python -m sphinx -b html docs OUT``)."""

import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

project = "dpverify"
author = "the dpverify authors"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = True
html_theme = "alabaster"
exclude_patterns = ["_build", "api/_build"]
