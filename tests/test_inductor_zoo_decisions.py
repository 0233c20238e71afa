"""Decisions of the plug-in found by the model zoo (``bench.zoo``), each at the level of the
one call that made a model's code worse than stock's, asserting that the plug-in's answer is
at least as useful to Inductor as stock's.

convnext (torchvision's CNBlock, ``dynamic=True``, square images: one symbol ``s53`` for
height and width): after each downsampling the block's ``Linear`` reads the LayerNorm output
``(N, H, W, C)`` as ``(N*H*W, C)``.  ``ExternKernel.convert_to_reinterpret_view`` builds
that view's index through ``dynamic_reshape_indexer`` (a chain of ModularIndexing),
simplifies it with ``simplify_with_ranges(index, {r0: N*H*W, r1: C})`` and keeps a view only
when the answer is ``stride_vars . vars + offset`` exactly; otherwise it copies the tensor
into a new buffer (a kernel on Triton: ``tl.load(in_ptr0 + (x0 + 96*((x1 % (ks0*ks1)))))``).
Here the width is ``W = ((s53//4)**2) // (2*(s53//4))`` (duck sizing after the stem's and the
downsampler's strides), which equals ``s53//8``.  Stock merges the chain into
``ModularIndexing(r0, 1, N*H*W)`` with the modulus in the same form as r0's range and drops
it: ``C*r0 + r1``.  The plug-in simplified ``W`` in the index to ``s53//8`` but not in
r0's range, so it could not see ``r0 < s77*(s53//8)**2`` and answered
``r1 + C*ModularIndexing(r0, 1, s77*(s53//8)**2)``: not linear, so a copy.
"""

from __future__ import annotations

import pytest

sympy = pytest.importorskip("sympy")
pytest.importorskip("torch")

import indexalg.inductor as plug  # noqa: E402


@pytest.fixture()
def installed():
    plug.reset()
    with plug.enabled() as names:
        yield names
    plug.reset()


def _convnext_view():
    """The index, ranges and size environment of convnext's second-stage view."""
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing
    from torch.utils._sympy.value_ranges import ValueRanges

    s53 = sympy.Symbol("s53", integer=True, positive=True)
    s77 = sympy.Symbol("s77", integer=True, positive=True)
    r0 = sympy.Symbol("r0", integer=True, nonnegative=True)
    r1 = sympy.Symbol("r1", integer=True, nonnegative=True)
    env = ShapeEnv()
    env.var_to_range[s53] = ValueRanges(2, int(sys_maxsize()))
    env.var_to_range[s77] = ValueRanges(2, int(sys_maxsize()))
    q = FloorDiv(s53, 4)
    w = FloorDiv(q**2, 2 * q)  # the width as Inductor carries it: equals s53 // 8
    h = FloorDiv(s53, 8)
    c = 32
    index = (
        r1
        + c * h * w * ModularIndexing(r0, h * w, s77)
        + c * w * ModularIndexing(r0, w, h)
        + c * ModularIndexing(r0, 1, w)
    )
    return SizeVarAllocator(env), index, {r0: s77 * h * w, r1: c}, (r0, r1), c


def sys_maxsize() -> int:
    import sys

    return sys.maxsize - 1


def _is_view(sv, index, rvars) -> bool:
    """``convert_to_reinterpret_view``'s test: the index is exactly strides . vars + offset."""
    from torch._inductor.utils import sympy_dot

    strides = sv.stride_vars(index, rvars)
    return index == sympy_dot(rvars, strides) + sv.offset_var(index, rvars)


def test_convnext_view_index_stays_a_view(installed):
    from torch._inductor.sizevars import SizeVarAllocator

    sv, index, ranges, rvars, c = _convnext_view()
    stock = SizeVarAllocator._simplify_with_ranges.__wrapped_original__(sv, index, ranges)
    assert stock == c * rvars[0] + rvars[1]  # what stock answers: a view
    assert _is_view(sv, stock, rvars)
    ours = sv.simplify_with_ranges(index, ranges)
    assert _is_view(sv, ours, rvars), ours
    assert ours == stock


def test_convnext_first_stage_view_at_least_as_good_as_stock(installed):
    """The first stage's width is ``((s53//4)**2) // (s53//4)``: stock cannot drop the
    modulus there either (a copy in stock too); the plug-in must not be worse."""
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    sv, _index, _ranges, (r0, r1), _c = _convnext_view()
    s53, s77 = sorted(sv.shape_env.var_to_range, key=str)
    q = FloorDiv(s53, 4)
    w = FloorDiv(q**2, q)
    index = (
        r1
        + 64 * q * w * ModularIndexing(r0, q * w, s77)
        + 64 * w * ModularIndexing(r0, w, q)
        + 64 * ModularIndexing(r0, 1, w)
    )
    ranges = {r0: s77 * q * w, r1: 64}
    stock = SizeVarAllocator._simplify_with_ranges.__wrapped_original__(sv, index, ranges)
    ours = sv.simplify_with_ranges(index, ranges)
    assert _is_view(sv, ours, (r0, r1)) or not _is_view(sv, stock, (r0, r1)), (ours, stock)


def test_convnext_loops_merge_as_with_stock(installed):
    """The GPU zoo (convnext_tiny, dynamic): the block's tensors are laid out over
    ``[s77, s53//4, W, 96]`` with ``W = ((s53//4)**2) // (s53//4)`` as the shape environment
    spells it.  The plug-in simplified the strides' ``W`` to ``s53//4``, so
    ``_simplify_loops`` (which compares a stride times a size with the next stride
    syntactically) could not merge the loops: ``x0 = xindex % ks0; x1 = xindex // ks0`` in 24
    kernels, 53 -> 120 div/mod.  Size terms keep Inductor's spelling: the loops merge into one
    as with stock."""
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.utils._sympy.functions import FloorDiv

    sv, _index, _ranges, _rvars, _c = _convnext_view()
    s53, s77 = sorted(sv.shape_env.var_to_range, key=str)
    d = [sympy.Symbol(f"d{i}", integer=True, nonnegative=True) for i in range(4)]
    q = FloorDiv(s53, 4)
    w = FloorDiv(q**2, q)
    sizes = [s77, q, w, 96]
    index = 96 * q * w * d[0] + 96 * w * d[1] + 96 * d[2] + d[3]
    ranges = dict(zip(d, sizes))
    stock = SizeVarAllocator._simplify_with_ranges.__wrapped_original__(sv, index, ranges)
    ours = sv.simplify_with_ranges(index, ranges)

    def loops(formula):
        merged, _reindex, _prune = sv._simplify_loops_impl(d, sizes, [formula])
        return len(merged)

    assert loops(stock) == 1
    assert loops(ours) == 1, ours
