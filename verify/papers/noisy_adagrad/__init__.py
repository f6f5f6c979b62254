"""Claims of ``noisy_adagrad`` — Kairouz, Diaz, Rush, Thakurta (COLT 2021).

Each claim is one decorated ``check(budget, seed) -> Outcome``; the formulas live in
:mod:`theory.noisy_adagrad`, the algorithms and the ``low_rank_glm`` problem in
:mod:`kernels.noisy_adagrad`.  Monte-Carlo work goes through :func:`verify.runner.sweep` with
module-level task functions whose keyword arguments carry their seed.

The claims are grouped as the paper arranges its statements, one module per group; importing this package
imports every module, which registers every claim:

=======================  ==============================================================================================
module                   statements
=======================  ==============================================================================================
``regret``               §3: Theorem 3.1 (eq. (25), its O-form (13), its hypothesis on Ṽ and γ), Corollary 3 and
                         Remark 4 (App. C.5)
``regret_lemmas``        the lemmas of Theorem 3.1's proof: Lemma 12 (App. B.3, C.4), Lemma 13 (App. B.4) and
                         Lemma 16 (App. C.5)
``structural_lemmas``    Lemma 14 (App. C.2, contraction of the projection) and Theorem 15 (App. C.3, Davis–Kahan)
``privacy``              Theorem 10 (App. A.2, the Gaussian mechanism), Lemma 5 (§4.1, App. C.6, the
                         preconditioner's sensitivity) and §4.1's noise scales σ_b, σ_B against the accountant
``corollary6``           §4.1: Corollary 6 (private noisy AdaGrad at T = (εn)², App. C.7) and its dependence on k
``corollary6_proof``     Corollary 6's proof (App. C.7) with the rank k tracked
``unconstrained``        §5: Theorem 5.1, dimension independence of unconstrained DP-GD (App. C.8)
``audits``               the privacy audits of this paper's kernels, DP-GD and noisy AdaGrad
                         (``noisy_adagrad.audit.*``)
``_common``              what several modules share: the paper key, the sweep, the expectation decisions, the
                         ``*_sides`` mutants, σ calibrations and the kernel-conformance probe
=======================  ==============================================================================================

A mutant or a test that substitutes a module attribute names the module that reads it at call time
(e.g. ``verify.papers.noisy_adagrad.corollary6.half_budget_multiplier``), not this package.
"""

from verify.papers.noisy_adagrad import (
    audits,
    corollary6,
    corollary6_proof,
    privacy,
    regret,
    regret_lemmas,
    structural_lemmas,
    unconstrained,
)
from verify.papers.noisy_adagrad._common import PAPER
from verify.papers.noisy_adagrad.regret_lemmas import lemma12_proof_form

__all__ = [
    "PAPER",
    "audits",
    "corollary6",
    "corollary6_proof",
    "lemma12_proof_form",
    "privacy",
    "regret",
    "regret_lemmas",
    "structural_lemmas",
    "unconstrained",
]
