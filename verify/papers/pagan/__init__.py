"""Claims of ``pagan`` — Asi, Duchi, Fallah, Javidbakht, Talwar, ICML 2021.

Each claim is one decorated function ``check(budget, seed) -> Outcome``; the formulas it tests live in
:mod:`theory.pagan`, the algorithms in :mod:`kernels`.  Importing this package registers every claim of the
paper; its modules follow the paper's arrangement:

=======================  ==============================================================================================
module                   covers
=======================  ==============================================================================================
``privacy``              §3, Lemma 3.1: the privacy promise of Algorithms 1 and 2 (``pagan.lemma3.1``)
``moments``              §3, Example 1 and Lemma 3.2: moments of ‖z‖_C (``pagan.example1``, ``pagan.example1.mu``,
                         ``pagan.lemma3.2``)
``rates``                §3 and §3.1, Theorems 1 and 2 with eqs. (7) and (9): measured excess loss against the upper
                         bounds (``pagan.theorem1``, ``pagan.theorem2``, ``pagan.eq9``, ``pagan.eq7.rate``;
                         :func:`rate_picture`)
``special_cases``        the rates' special cases: the Hölder chain after eq. (9) (``pagan.eq7``), §3.1's DP-SGD case
                         (``pagan.theorem1.dp_sgd``), §3.2's box (``pagan.section3.2.box``)
``algorithm3``           §4.1, Algorithm 3 and the first sentence of Theorem 3: its privacy
                         (``pagan.algorithm3.privacy``, ``pagan.algorithm3.privacy.large_eps``)
``theorem3``             §4.1, Theorem 3, eq. (10): Algorithm 3's accuracy (``pagan.theorem3``,
                         ``pagan.theorem3.floor``)
``estimated_geometry``   §4.1, Theorem 3's second part: PAGAN with Algorithm 3's estimate (``pagan.theorem3.pagan``)
``lower_bounds``         §5 on X∞: Theorem 4's reduction, Proposition 1 and Theorem 4 (``pagan.theorem4``,
                         ``pagan.proposition1.d2``/``.d3``, ``pagan.theorem4.risk.d2``/``.d3``)
``lower_bounds_l2``      §5 on the unit ℓ₂ ball: Proposition 2 and Theorem 5 (``pagan.proposition2``,
                         ``pagan.theorem5``)
``experiments``          §6: Figure 1 and §6.1 (``pagan.figure1``, ``pagan.section6.1``)
``audits``               privacy audits of the PAGAN family's kernels (``pagan.audit.<algorithm>``)
``_common``              settings, sweeps and helpers several of the modules above share
``_lower_bound_common``  §5: the lower bounds' runs, comparisons, exact edges and findings that ``lower_bounds`` and
                         ``lower_bounds_l2`` share
=======================  ==============================================================================================

A mutant or a test that substitutes a module attribute names the module that reads it (e.g.
``verify.papers.pagan.rates._rate_check``), not this package.
"""

from __future__ import annotations

from verify.papers.pagan import (  # noqa: F401 (imported to register their claims)
    _common,
    _lower_bound_common,
    algorithm3,
    audits,
    estimated_geometry,
    experiments,
    lower_bounds,
    lower_bounds_l2,
    moments,
    privacy,
    rates,
    special_cases,
    theorem3,
)
from verify.papers.pagan.audits import (
    PAGAN_AUDIT_CONFIGS,
    PAGAN_FAMILY_AUDITS,
    audit_pagan_family,
    pagan_family_audit_task,
)
from verify.papers.pagan.rates import rate_picture

__all__ = ["PAGAN_AUDIT_CONFIGS", "PAGAN_FAMILY_AUDITS", "audit_pagan_family", "pagan_family_audit_task",
           "rate_picture"]
