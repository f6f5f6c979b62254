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

from verify import decide, stats  # noqa: E402
from verify.registry import (  # noqa: E402
    Budgets,
    Claim,
    Figure,
    Outcome,
    Panel,
    Result,
    Series,
    Verdict,
    by_budget,
    child_seed,
    claim,
    load,
)
from verify.runner import sweep  # noqa: E402

__all__ = ["Budgets", "Claim", "Figure", "Outcome", "Panel", "Result", "Series", "Verdict", "by_budget", "child_seed",
           "claim", "decide", "load", "stats", "sweep", "__version__"]
