"""What every stylized problem with a data matrix shares: its sizes read off that matrix.

A problem record (a frozen dataclass in ``kernels/<family>_problems.py``) keeps its records as the rows of
one (n, d) array; :class:`DataMatrix` gives it ``n`` (records) and ``d`` (dimension) from that array, named by
the class attribute ``data_matrix``.
"""

from __future__ import annotations

from typing import ClassVar


class DataMatrix:
    """Mixin: ``n`` and ``d`` of the (n, d) array named by ``data_matrix`` (default ``"features"``)."""

    data_matrix: ClassVar[str] = "features"

    @property
    def n(self) -> int:
        """The number of records (rows of the data matrix).

        Returns
        -------
        int
            ``shape[0]`` of the (n, d) array named by ``data_matrix``.
        """
        return getattr(self, self.data_matrix).shape[0]

    @property
    def d(self) -> int:
        """The dimension (columns of the data matrix).

        Returns
        -------
        int
            ``shape[1]`` of the (n, d) array named by ``data_matrix``.
        """
        return getattr(self, self.data_matrix).shape[1]
