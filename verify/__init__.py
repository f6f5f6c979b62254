"""dpverify's claims layer: run kernels, compare with theory, decide verdicts, draw pictures.

The public API for writing claims of your own (any key but the five built-in paper keys)::

    from verify import claim, child_seed, Outcome, Figure, Panel, Series, Verdict, sweep, decide

    @claim("mylab.bound", kind="expectation", statement="E[X] ≤ 1 for ...", tests=1)
    def bound(budget: str, seed: int) -> Outcome:
        n = 8 if budget == "quick" else 64
        xs = sweep(my_task, [dict(seed=child_seed(seed, "mylab.bound", i)) for i in range(n)])
        d = decide.mean_at_most([float(o["x"]) for o in xs], 1.0, what="E[X] ≤ 1")
        return Outcome(verdict=d.verdict, evidence=d.phrase(), decisions=[d])

``dpverify verify --load FILE_OR_MODULE`` runs them; an installed package registers them through the
entry-point group ``dpverify.claims``; ``verify.testing.assert_verdict`` checks one inside pytest.
"""

__version__ = "0.1.0"

# The public names are imported on first use (PEP 562), not when the package is: ``python -m verify`` then
# installs its signal handlers before NumPy, SciPy and the registry load, so a Ctrl-C or SIGTERM during
# start-up ends the command with one line.  ``from verify import claim`` works as before.
_PUBLIC = {"Budgets": "registry", "Claim": "registry", "Figure": "registry", "Outcome": "registry",
           "Panel": "registry", "Result": "registry", "Series": "registry", "Verdict": "registry",
           "by_budget": "registry", "child_seed": "registry", "claim": "registry", "load": "registry",
           "sweep": "runner", "decide": None, "stats": None}

__all__ = ["Budgets", "Claim", "Figure", "Outcome", "Panel", "Result", "Series", "Verdict", "by_budget", "child_seed",
           "claim", "decide", "load", "stats", "sweep", "__version__"]


def __getattr__(name: str):
    """The public name ``name``, imported from its module on first use.

    Parameters
    ----------
    name : str
        An attribute of the package.

    Returns
    -------
    object
        The public object (a submodule for ``decide`` and ``stats``).

    Raises
    ------
    AttributeError
        When ``name`` is not one of :data:`__all__`.
    """
    import importlib

    if name not in _PUBLIC:
        raise AttributeError(f"module 'verify' has no attribute {name!r}")
    module = importlib.import_module(f"verify.{_PUBLIC[name] or name}")
    value = module if _PUBLIC[name] is None else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The package's attributes, the lazily imported public names included.

    Returns
    -------
    list of str
    """
    return sorted(set(globals()) | set(__all__))
