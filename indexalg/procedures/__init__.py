"""Named procedures: transformations that are not single rewrites (docs/architecture.md).

Each is a pure function ``(node, ctx) -> Expr | None`` of an expression and an analysis
context, registered with the node classes it applies to
(:class:`~indexalg.procedures.base.Procedure`); none calls back into the simplifier.  Each
is checked by translation validation (Z3 on input and output) in tests.
"""

from __future__ import annotations

from indexalg.procedures.base import Procedure
from indexalg.procedures.branches import BRANCH_PROCEDURES
from indexalg.procedures.compare import COMPARE_PROCEDURES
from indexalg.procedures.divsum import DIVSUM_PROCEDURES
from indexalg.procedures.factor import FACTOR_PROCEDURES
from indexalg.procedures.factored import FACTORED_PROCEDURES
from indexalg.procedures.floors import FLOOR_PROCEDURES
from indexalg.procedures.join import JOIN_PROCEDURES
from indexalg.procedures.junction import JUNCTION_PROCEDURES
from indexalg.procedures.minmax import MINMAX_PROCEDURES
from indexalg.procedures.residues import RESIDUE_PROCEDURES
from indexalg.procedures.select import SELECT_PROCEDURES

__all__ = ["Procedure", "PROCEDURES"]

#: Every procedure, in the order the simplifier tries them: nested divisions merge before
#: a sum's multiples are pulled out of a division (the other order can lose the merge);
#: digits join before the costlier quotient-remainder search of ``open_factors``.
PROCEDURES: tuple[Procedure, ...] = (
    FACTOR_PROCEDURES
    + DIVSUM_PROCEDURES
    + JOIN_PROCEDURES
    + FACTORED_PROCEDURES
    + BRANCH_PROCEDURES
    + COMPARE_PROCEDURES
    + JUNCTION_PROCEDURES
    + MINMAX_PROCEDURES
    + FLOOR_PROCEDURES
    + SELECT_PROCEDURES
    + RESIDUE_PROCEDURES
)
