"""The built-in ledger: one claim pack per paper.

Each module registers its paper's claims with :func:`verify.claim` when it is imported, through the same
public API a user's claims file uses (``dpverify verify --load FILE_OR_MODULE``); the machinery they run on
(decisions, sweeps, audits, reports) lives beside this package in ``verify/``.  The five paper keys are
reserved for these packs.

=========================  ==================================================================================
module                     paper
=========================  ==================================================================================
``pagan``                  Asi et al., Private Adaptive Gradient Methods for Convex Optimization (ICML 2021)
``noisy_adagrad``          Kairouz et al., (Nearly) Dimension Independent Private ERM with AdaGrad Rates (COLT 2021)
``dp_adam_design``         Ganesh et al., On Design Principles for Private Adaptive Optimizers (2025)
``adadps``                 Li et al., Private Adaptive Optimization with Side Information (ICML 2022)
``adp``                    Adaptive Differentially Private Empirical Risk Minimization (ADP-SGD, 2021)
=========================  ==================================================================================

Each pack also holds the privacy audits of its paper's kernels (``<key>.audit.<mechanism>``).
"""

PACKS = tuple(f"verify.papers.{key}" for key in ("pagan", "noisy_adagrad", "dp_adam_design", "adadps", "adp"))
