"""Claims of ``adp`` — Wu et al., ADP-SGD: noise adapted to the stepsize (2021).

Each claim is one decorated function ``check(budget, seed) -> Outcome``; the formulas it tests live in
:mod:`theory.adp`, the algorithm and the ``smooth_nonconvex`` stand-in problem in :mod:`kernels.adp`.
Exact claims (Remark 4.1, Lemma 2.2, Theorem 4.1's calibration, Propositions 5.1/5.2's closed forms, the
adaptive stepsize's privacy) decide by computation with rounding or accountant-grid allowances (no statistical
test); the measured comparisons (Table 1's trend, Proposition 5.1's measured utilities) run both methods at a
matched accountant ε and decide through :mod:`verify.decide`.

The modules, as the paper arranges its statements (importing this package registers every claim):

- :mod:`verify.papers.adp.privacy` — Lemma 2.1 and Lemma 2.2 (Section 2) and Theorem 4.1 (Section 4, eq. (6));
- :mod:`verify.papers.adp.adaptive_stepsize` — the privacy of Algorithm 1 line 4's adaptive stepsize
  (Section 5.2);
- :mod:`verify.papers.adp.convergence` — Theorem 4.2's bound (7) and Proposition 5.1 "under the conditions of
  Theorem 4.2" (eqs. (7), (9), (10));
- :mod:`verify.papers.adp.m_ratios` — Remark 4.1 and its alternative relation α_t·α_{T−t+1} = b_t,
  Proposition 5.1's M_dp/M_adp = Θ(log T) and Proposition 5.2's bound ratio (Section 5);
- :mod:`verify.papers.adp.experiments` — Table 1's trend and footnote 3's privacy figures (Section 6);
- :mod:`verify.papers.adp.audits` — the privacy audits of the suite's ADP-SGD kernels (``adp.audit.*``);
- :mod:`verify.papers.adp._common` — shared helpers: M's rounding bound, Proposition 5.1's constants, the
  matched accountant σ and the ADP-SGD/DP-SGD sweep task that Proposition 5.1 and Table 1 both run.

A mutant or a test that substitutes a function names the module that reads it (e.g.
``verify.papers.adp.adaptive_stepsize.adaptive_step_delta``), not this package.
"""

from verify.papers.adp import adaptive_stepsize, audits, convergence, experiments, m_ratios, privacy
from verify.papers.adp._common import matched_sigma, relative_tolerance
from verify.papers.adp.adaptive_stepsize import adaptive_stepsize_privacy
from verify.papers.adp.audits import ADP_AUDITS, audit_adp
from verify.papers.adp.convergence import proposition5_1_from_theorem4_2, theorem4_2
from verify.papers.adp.experiments import footnote3, table1
from verify.papers.adp.m_ratios import proposition5_1, proposition5_2, remark4_1, remark4_1_alternative
from verify.papers.adp.privacy import lemma2_1, lemma2_2, theorem4_1

__all__ = [
    "ADP_AUDITS",
    "adaptive_stepsize",
    "adaptive_stepsize_privacy",
    "audit_adp",
    "audits",
    "convergence",
    "experiments",
    "footnote3",
    "lemma2_1",
    "lemma2_2",
    "m_ratios",
    "matched_sigma",
    "privacy",
    "proposition5_1",
    "proposition5_1_from_theorem4_2",
    "proposition5_2",
    "relative_tolerance",
    "remark4_1",
    "remark4_1_alternative",
    "table1",
    "theorem4_1",
    "theorem4_2",
]
