"""The package :mod:`verify.papers.adadps`: importing it registers every claim of its modules, its public functions
are re-exported from the modules that define them, and every quick claim draws a figure."""

import importlib
import inspect
import re
from pathlib import Path

from tests.papers.adadps.support import has_figure
from verify import registry
from verify.papers import adadps

#: every claim of the paper, with the module that defines its check
CLAIM_MODULES = {
    "adadps.theorem1": "privacy", "adadps.section4.1": "toy", "adadps.theorem2": "convex",
    "adadps.theorem3": "convex", "adadps.eq39": "private_rate", "adadps.theorem4": "nonconvex",
    "adadps.theorem5": "nonconvex", "adadps.table.adadps_best": "experiments", "adadps.table4": "experiments",
    "adadps.table8": "experiments", "adadps.table9": "experiments", "adadps.table10": "experiments",
    "adadps.section6.2": "federated", "adadps.figure6": "federated", "adadps.figure6.fedadam": "federated",
    "adadps.audit.dp_sgd": "audits", "adadps.audit.adadps_fixed": "audits", "adadps.audit.federated": "audits",
}
QUICK_CLAIMS = ("theorem1", "theorem2", "theorem3", "section4_1", "table", "section6_2", "figure6")


def test_importing_the_package_registers_every_claim_from_its_module():
    registry.load_all()
    got = {c.id: c.check.__wrapped__.__module__ for c in registry.REGISTRY.values() if c.paper == "adadps"}
    assert got == {cid: f"verify.papers.adadps.{m}" for cid, m in CLAIM_MODULES.items()}


def test_public_functions_are_reexported_from_their_modules():
    modules = {m: importlib.import_module(f"verify.papers.adadps.{m}") for m in set(CLAIM_MODULES.values())}
    for name in adadps.__all__:
        obj = getattr(adadps, name)
        if name in modules:
            assert obj is modules[name], name
        else:
            home = importlib.import_module(obj.__module__)
            assert getattr(home, name) is obj and home.__name__.startswith("verify.papers.adadps."), name


def test_every_substituted_path_names_the_module_that_reads_it():
    """A mutant substitutes a module attribute by its dotted path: the path must name a module of the package that
    defines the attribute and reads it (a path through the package itself would leave the reading module alone)."""
    paths = set()
    for source in Path(adadps.__file__).parent.glob("*.py"):
        paths |= set(re.findall(r'substituted\("(verify\.papers\.adadps\.[\w.]+)"', source.read_text()))
    assert len(paths) >= 4
    for path in paths:
        module_name, name = path.rsplit(".", 1)
        module = importlib.import_module(module_name)
        assert module is not adadps and name in vars(module), path
        uses = re.findall(rf"(?<![.\w]){name}\b", inspect.getsource(module))  # not the paths' ".name"
        assert len(uses) >= 2, path  # defined, and read


def test_every_claim_draws_a_figure(quick):
    assert all(has_figure(quick[name]) for name in QUICK_CLAIMS)
