"""Claims of ``adadps`` — Li, Zaheer, Reddi, Smith, Private Adaptive Optimization with Side Information (ICML 2022).

Each claim is one decorated ``check(budget, seed) -> Outcome``; the formulas live in
:mod:`theory.adadps`, the algorithms and problems in :mod:`kernels.adadps`.  Monte-Carlo work goes
through :func:`verify.runner.sweep` with module-level task functions (explicit seeds).

Learning-rate (and clip) grids are fixed before any run, and are the same for every method a
claim compares: the paper's grids (App. B: learning rates {0.0005, ..., 2}, clipping {0.01, ..., 3}) or
documented subsets of them at the quick budget.  Tuning uses its own seeds (and, for test accuracy,
a validation split); the reported numbers come from fresh seeds.

The modules follow the paper's arrangement:

=================  ==========================================================================================
``_common``        shared settings, grids, problems, task functions and the central mechanism probe
``privacy``        Section 4, Theorem 1: privacy of Algorithm 1 (``adadps.theorem1``)
``toy``            Section 4.1, the toy example and its stated (4.13, 10⁻³)-DP (``adadps.section4.1``)
``convex``         Section 5.1, Theorems 2 and 3 (``adadps.theorem2``, ``adadps.theorem3``)
``private_rate``   App. A.1, eq. (39): Theorem 2's private rate (``adadps.eq39``)
``nonconvex``      Section 5.2, Theorems 4 and 5 (``adadps.theorem4``, ``adadps.theorem5``)
``experiments``    Section 6.1 and App. C: Tables 6, 4 (TF-IDF), 8, 9, 10 (``adadps.table*``)
``federated``      Section 6.2: user-level privacy and Figure 6 (``adadps.section6.2``, ``adadps.figure6*``)
``audits``         privacy audits of the kernels (``adadps.audit.*``)
=================  ==========================================================================================

Importing this package imports every module, which registers every claim.  The public functions are re-exported
here; a mutant or a test that replaces a module attribute names the module that reads it
(e.g. ``verify.papers.adadps.federated.FED_PAPER``), not this package.
"""

from __future__ import annotations

from verify.papers.adadps import audits, convex, experiments, federated, nonconvex, privacy, private_rate, toy
from verify.papers.adadps._common import f_star_logistic, make_problem
from verify.papers.adadps.audits import (
    audit_accountant_epsilon,
    audit_central,
    audit_central_task,
    audit_federated,
    audit_federated_claim,
    audit_federated_task,
)
from verify.papers.adadps.convex import (
    assumption2_bound,
    assumption3_failure_rate,
    glm_kernel_monte_carlo,
    theorem2,
    theorem2_path,
    theorem2_sample,
    theorem2_slacks,
    theorem3,
)
from verify.papers.adadps.experiments import dp_adam_pub, t9_side_info, table, table4, table8, table9, table10
from verify.papers.adadps.federated import figure6, figure6_fedadam, one_round_epsilon, section6_2
from verify.papers.adadps.nonconvex import (
    theorem4,
    theorem4_constants,
    theorem5,
    theorem5_constants,
    tight_quadratic,
    tight_quadratic_constants,
)
from verify.papers.adadps.privacy import theorem1
from verify.papers.adadps.private_rate import eq39, eq39_ratio, eq39_smallest
from verify.papers.adadps.toy import section4_1, toy_privacy

__all__ = [
    "audits", "convex", "experiments", "federated", "nonconvex", "private_rate", "privacy", "toy",
    "assumption2_bound", "assumption3_failure_rate", "audit_accountant_epsilon", "audit_central",
    "audit_central_task", "audit_federated", "audit_federated_claim", "audit_federated_task", "dp_adam_pub", "eq39",
    "eq39_ratio", "eq39_smallest", "f_star_logistic", "figure6", "figure6_fedadam", "glm_kernel_monte_carlo",
    "make_problem", "one_round_epsilon", "section4_1", "section6_2", "t9_side_info", "table", "table10", "table4",
    "table8", "table9", "theorem1", "theorem2", "theorem2_path", "theorem2_sample", "theorem2_slacks", "theorem3",
    "theorem4", "theorem4_constants", "theorem5", "theorem5_constants", "tight_quadratic",
    "tight_quadratic_constants", "toy_privacy",
]
