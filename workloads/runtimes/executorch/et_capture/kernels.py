"""What a kernel that writes over a value's bytes reads of that value's old contents across
elements (arena-trace/1's `reads` on an update): nothing for an elementwise op whose operand
lies exactly where its output does (each element read only for the output at that element), and
for the part of an in-place op that leaves its target unread (`copy_`, `index_put_`, `fill_`);
otherwise the bytes of every operand that lies on the updated value, since the kernel may read
them after it wrote some of them (a gather, a permutation, a reduction). An operator not named
here reads all it touches (sound), and the trace counts it (`reads_undecided`).
"""

# aten (and ExecuTorch's quantize) operators that compute each output element from the input
# elements at the same index, when the shapes agree.
ELEMENTWISE = frozenset(
    "aten::" + n for n in """
    abs acos acosh add addcdiv addcmul asin asinh atan atan2 atanh bitwise_and bitwise_not
    bitwise_or bitwise_xor ceil clamp clamp_max clamp_min clone copy cos cosh div elu eq erf
    erfc exp exp2 expm1 fill floor floor_divide fmod frac ge gelu gt hardsigmoid hardswish
    hardtanh isinf isnan le leaky_relu lerp lgamma log log10 log1p log2 logical_and logical_not
    logical_or logical_xor logit lt masked_fill maximum minimum mish mul nan_to_num ne neg pow
    reciprocal relu relu6 remainder round rsqrt scalar_tensor sigmoid sign silu sin sinh softplus
    sqrt square sub tan tanh threshold trunc where xlogy zero zeros_like ones_like full_like
    """.split()
) | frozenset({
    "quantized_decomposed::quantize_per_tensor", "quantized_decomposed::dequantize_per_tensor",
})

# In-place operators that never read their target's old elements for other elements: they
# overwrite it (copy_, fill_, zero_) or write some of its elements from other operands
# (index_put_ reads the old element only at the index it accumulates into).
SELF_NOT_READ_ACROSS = frozenset({
    "aten::copy", "aten::fill", "aten::zero", "aten::index_put", "aten::index_copy",
    "aten::masked_fill", "aten::masked_scatter", "aten::slice_scatter", "aten::select_scatter",
})


def base_name(kernel):
    """`aten::add_.Tensor` -> `aten::add`: the operator without overload or in-place mark."""
    name = kernel.rsplit(".", 1)[0] if "." in kernel.split("::")[-1] else kernel
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name


def known(kernel):
    b = base_name(kernel)
    return b in ELEMENTWISE or b in SELF_NOT_READ_ACROSS


def reads_across(kernel, role, same_place):
    """Whether an operand that lies on the value being overwritten is read across elements:
    role "mutate" (the in-place target itself) or "read" (another operand); same_place: the
    operand has the output's shape and element size and starts where the output does."""
    b = base_name(kernel)
    if role == "mutate":
        return not (b in ELEMENTWISE or b in SELF_NOT_READ_ACROSS)
    return not (b in ELEMENTWISE and same_place)
