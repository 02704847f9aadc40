"""TileLang fragments and layouts as LinearLayouts, where their index maps are GF(2)-linear.

Three kinds of TileLang index map (text, read by :func:`~llverify.tilelang.index_map.
parse_index_map`; every map is evaluated at every point of its domain, with numpy):

* :func:`fragment_to_linear_layout`: a ``T.Fragment``: element ``(i, j, ...)`` (and the
  replica ``rep``) -> (thread, local index).  Its inverse is the register layout
  ``(register, lane, warp) -> (dim0, dim1, ...)``: register = local index, thread = lane +
  lanes * warp; a replicated element is held by several threads (a broadcast).
* :func:`access_to_linear_layout`: a thread-access map ``(thread, local) -> (i, j, ...)``
  (TileLang's ``thread_id_shared_access_*`` functions), the same register layout read
  directly.
* :func:`layout_to_linear_layout`: a ``T.Layout``: ``(i, j, ...) -> physical coordinates``,
  flattened row-major (TVM's order) to ``offset``: a shared-memory layout's
  ``coordinates -> offset`` (its inverse is Triton's ``offset -> coordinates``).

Every extent must be a power of 2, every result a GF(2)-linear function of the inputs'
bits (XOR of the images of the set bits; :class:`NotLinearError` names the result, the
point and the two values where it is not), and a fragment must give each (thread, local)
pair exactly one element.  The layout is then exact: :func:`llverify.prove_equal` proves or
refutes it against a vendor reference (``llverify.specs``).

Examples:
    >>> ll = fragment_to_linear_layout(
    ...     "lambda i, j: (i + 16 * (j // 4), j % 4)", (16, 16), lanes=64)
    >>> ll.apply({"register": 3, "lane": 37, "warp": 0})  # v_mfma 16x16x16 A: lane 37 holds k 8..11
    {'dim0': 5, 'dim1': 11}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from llverify.bits import is_power_of_2
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.layout import LinearLayout
from llverify.ops import NumpyOps
from llverify.proof.formula import Formula, FormulaError
from llverify.tilelang.index_map import IndexMap, parse_index_map

__all__ = [
    "NotLinearError",
    "access_to_linear_layout",
    "fragment_to_linear_layout",
    "layout_to_linear_layout",
]

#: The most points of a domain evaluated (2**22, like prove_equal's enumeration).
MAX_POINTS = 1 << 22


class NotLinearError(LayoutError):
    """A TileLang index map has no exact LinearLayout: not GF(2)-linear, or not a fragment.

    Attributes:
        result: which result of the map is at fault ("thread", "local", "dim0", ...), or None.
        point: the input point that shows it, ``{param: value}``, or None.
    """

    def __init__(
        self, message: str, result: str | None = None, point: dict[str, int] | None = None
    ) -> None:
        self.result = result
        self.point = point
        super().__init__(message)


def _map(text: Any, name: str) -> IndexMap:
    if isinstance(text, IndexMap):
        return text
    if not isinstance(text, str):
        raise LayoutTypeError(
            f"Argument '{name}' must be index-map text (a lambda or a def), not "
            f"{type(text).__name__} {shown(text)}."
        )
    return parse_index_map(text)


def _extents(values: Any, name: str) -> list[int]:
    if isinstance(values, int) and not isinstance(values, bool):
        values = (values,)
    if not isinstance(values, (tuple, list)) or not values:
        raise LayoutTypeError(f"Argument '{name}' must be a tuple of ints, not {shown(values)}.")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise LayoutError(f"Argument '{name}' must hold ints >= 1, not {shown(values)}.")
    return list(values)


def _lanes(lanes: Any) -> int:
    if isinstance(lanes, bool) or not isinstance(lanes, int) or not is_power_of_2(lanes):
        raise LayoutError(f"Argument 'lanes' must be a power of 2 (32, 64), not {shown(lanes)}.")
    return lanes


class _Domain:
    """Every point of ``params`` (sizes powers of 2), param 0 in the lowest bits."""

    def __init__(self, params: Sequence[str], sizes: Sequence[int], what: str) -> None:
        for param, size in zip(params, sizes):
            if not is_power_of_2(size):
                raise NotLinearError(
                    f"{what} is not GF(2)-linear: the extent {size} of '{param}' is not a "
                    "power of 2, so its values are not bit fields."
                )
        self.params = list(params)
        self.sizes = list(sizes)
        self.log2s = [s.bit_length() - 1 for s in sizes]
        self.total = 1 << sum(self.log2s)
        if self.total > MAX_POINTS:
            raise LayoutError(f"{what} has {self.total} points, more than {MAX_POINTS} evaluated.")
        self.flat = np.arange(self.total, dtype=np.int64)
        self.values: dict[str, Any] = {}
        shift = 0
        for param, log2 in zip(self.params, self.log2s):
            self.values[param] = (self.flat >> shift) & ((1 << log2) - 1)
            shift += log2

    def point(self, flat: int) -> dict[str, int]:
        return {p: int(v[flat]) for p, v in self.values.items()}

    def evaluate(self, formula: Formula, result: str, what: str) -> Any:
        ranges = {p: (0, s - 1) for p, s in zip(self.params, self.sizes)}
        try:
            bounds = formula.bounds(ranges)
        except FormulaError as error:
            raise LayoutError(f"{what}: its {result} {error}".rstrip()) from None
        if max(abs(v) for interval in bounds.values() for v in interval).bit_length() > 62:
            raise LayoutError(f"{what}: its {result} may pass 2**62.")
        values = np.broadcast_to(
            np.asarray(formula.evaluate(NumpyOps(), self.values, bounds), dtype=np.int64),
            (self.total,),
        )
        negative = np.flatnonzero(values < 0)
        if negative.size:
            at = self.point(int(negative[0]))
            raise NotLinearError(
                f"{what} is not GF(2)-linear: its {result} is {int(values[negative[0]])} < 0 "
                f"at {_spelt(at)}.",
                result,
                at,
            )
        return values

    def images(self, values: Any, result: str, what: str) -> list[int]:
        """The image of each input bit; NotLinearError where ``values`` is not their XOR."""
        if values[0]:
            raise NotLinearError(
                f"{what} is not GF(2)-linear: its {result} is {int(values[0])} at "
                f"{_spelt(self.point(0))} (an offset: a linear map sends 0 to 0).",
                result,
                self.point(0),
            )
        bits = sum(self.log2s)
        images = [int(values[1 << b]) for b in range(bits)]
        predicted = np.zeros(self.total, dtype=np.int64)
        for b, image in enumerate(images):
            predicted ^= np.where((self.flat >> b) & 1, image, 0)
        wrong = np.flatnonzero(predicted != values)
        if wrong.size:
            flat = int(wrong[0])
            at = self.point(flat)
            parts = [f"{self._bit_name(b)} -> {images[b]}" for b in range(bits) if (flat >> b) & 1]
            raise NotLinearError(
                f"{what} is not GF(2)-linear: its {result} is {int(values[flat])} at "
                f"{_spelt(at)}, but the XOR of its bits' images ({', '.join(parts)}) is "
                f"{int(predicted[flat])}.",
                result,
                at,
            )
        return images

    def _bit_name(self, bit: int) -> str:
        for param, log2 in zip(self.params, self.log2s):
            if bit < log2:
                return f"{param}={1 << bit}"
            bit -= log2
        raise AssertionError(bit)  # pragma: no cover - bit < total bits

    def per_param(self, images: Sequence[Any]) -> list[tuple[str, list[Any]]]:
        result, start = [], 0
        for param, log2 in zip(self.params, self.log2s):
            result.append((param, list(images[start : start + log2])))
            start += log2
        return result


def _spelt(point: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def _extent(values: Any, result: str, what: str) -> int:
    extent = int(values.max()) + 1
    if not is_power_of_2(extent):
        raise NotLinearError(
            f"{what} has no LinearLayout: its {result} takes the values 0..{extent - 1}, "
            f"and {extent} is not a power of 2.",
            result,
        )
    return extent


def _check_params(index_map: IndexMap, count: int, what: str, argument: str) -> None:
    if len(index_map.params) != count:
        raise LayoutError(
            f"Argument '{argument}': {what} takes {count} parameters, but the map "
            f"'{index_map.name}' takes {list(index_map.params)}."
        )


def _register_dims(ll: LinearLayout, threads: int, values: int, lanes: int) -> LinearLayout:
    """``(register, thread) -> ...`` with thread split into lane and warp."""
    return ll.reshape_ins(
        [
            ("register", values),
            ("lane", min(threads, lanes)),
            ("warp", max(1, threads // lanes)),
        ]
    )


def fragment_to_linear_layout(
    forward: Any = None,
    shape: Any = None,
    *,
    thread: Any = None,
    index: Any = None,
    replicate: int = 1,
    lanes: int = 32,
) -> LinearLayout:
    """A ``T.Fragment`` over ``shape`` as the register layout ``(register, lane, warp) ->
    (dim0, dim1, ...)``.

    Args:
        forward: the ``forward_fn`` text: ``(i, j, ...[, rep]) -> (thread, index, ...)``;
            or None, with ``thread`` and ``index`` given.
        shape: the fragment's shape (powers of 2).
        thread: the ``forward_thread_fn`` text (one result), when ``forward`` is None.
        index: the ``forward_index_fn`` text (one result or more: a local index of several
            dims, flattened row-major), when ``forward`` is None.
        replicate: TileLang's ``replicate``: with more than 1 the maps take ``rep`` last.
        lanes: threads per warp (32 for NVIDIA, 64 for AMD wave64).

    Raises :class:`NotLinearError` where no LinearLayout is equal to the fragment (the
    reason names the result and a point), LayoutError/ParseError for bad arguments.

    Examples:
        >>> ll = fragment_to_linear_layout(
        ...     thread="lambda i, j, rep: i + 16 * rep", index="lambda i, j, rep: j",
        ...     shape=(16, 4), replicate=2)
        >>> ll.get_in_dim_size("register"), ll.apply({"register": 2, "lane": 21, "warp": 0})
        (4, {'dim0': 5, 'dim1': 2})
        >>> fragment_to_linear_layout("lambda i, j: (i + j, 0)", (8, 8))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llverify.tilelang.fragment.NotLinearError: ... its thread is 2 at i=1, j=1, but the XOR of its bits' images (i=1 -> 1, j=1 -> 1) is 0.
    """  # noqa: E501
    dims = _extents(shape, "shape")
    lanes = _lanes(lanes)
    if isinstance(replicate, bool) or not isinstance(replicate, int) or replicate < 1:
        raise LayoutError(f"Argument 'replicate' must be an int >= 1, not {shown(replicate)}.")
    count = len(dims) + (replicate > 1)
    if forward is not None:
        if thread is not None or index is not None:
            raise LayoutError("Give either 'forward' or 'thread' and 'index', not both.")
        forward_map = _map(forward, "forward")
        _check_params(forward_map, count, "a fragment's forward_fn", "forward")
        if len(forward_map.outputs) < 2:
            raise LayoutError(
                f"Argument 'forward': '{forward_map.name}' must return (thread, index, ...), "
                f"not {len(forward_map.outputs)} result."
            )
        params = forward_map.params
        thread_formula, index_formulas = forward_map.outputs[0], forward_map.outputs[1:]
    else:
        if thread is None or index is None:
            raise LayoutError("Give 'forward', or both 'thread' and 'index'.")
        thread_map, index_map = _map(thread, "thread"), _map(index, "index")
        _check_params(thread_map, count, "a fragment's forward_thread_fn", "thread")
        _check_params(index_map, count, "a fragment's forward_index_fn", "index")
        if len(thread_map.outputs) != 1:
            raise LayoutError("Argument 'thread' must return one result (the thread).")
        if index_map.params != thread_map.params:
            raise LayoutError(
                f"Arguments 'thread' and 'index' must name their parameters alike, not "
                f"{list(thread_map.params)} and {list(index_map.params)}."
            )
        params = thread_map.params
        thread_formula, index_formulas = thread_map.outputs[0], index_map.outputs
    what = f"the fragment over {tuple(dims)}"
    sizes = dims + ([replicate] if replicate > 1 else [])
    domain = _Domain(params, sizes, what)
    threads_at = domain.evaluate(thread_formula, "thread", what)
    thread_images = domain.images(threads_at, "thread", what)
    threads = _extent(threads_at, "thread", what)
    local_at = np.zeros(domain.total, dtype=np.int64)
    for k, formula in enumerate(index_formulas):
        part = domain.evaluate(formula, f"index {k}", what)
        domain.images(part, f"index {k}", what)
        local_at = local_at * _extent(part, f"index {k}", what) + part
    local_images = domain.images(local_at, "local index", what)
    values = _extent(local_at, "local index", what)
    names = [f"dim{k}" for k in range(len(dims))] + (["rep"] if replicate > 1 else [])
    bases = [
        (name, [[local, thr] for local, thr in images])
        for name, (_, images) in zip(
            names, domain.per_param(list(zip(local_images, thread_images)))
        )
    ]
    forward_ll = LinearLayout.from_bases(
        bases, ["register", "thread"], [values, threads], require_surjective=False
    )
    if not forward_ll.is_invertible():
        raise NotLinearError(_not_a_fragment(domain, threads_at, local_at, threads, values, what))
    inverse = forward_ll.invert().sublayout(["register", "thread"], names[: len(dims)])
    return _register_dims(inverse, threads, values, lanes)


def _not_a_fragment(
    domain: _Domain, threads_at: Any, local_at: Any, threads: int, values: int, what: str
) -> str:
    """Why a linear (element, rep) -> (thread, local) map is no bijection."""
    slots = threads_at * values + local_at
    order = np.argsort(slots, kind="stable")
    same = np.flatnonzero(slots[order][1:] == slots[order][:-1])
    if same.size:
        first, second = int(order[same[0]]), int(order[same[0] + 1])
        return (
            f"{what} is no fragment: {_spelt(domain.point(first))} and "
            f"{_spelt(domain.point(second))} both land on thread {int(threads_at[first])}, "
            f"local index {int(local_at[first])}."
        )
    return (
        f"{what} is no fragment: its {domain.total} (element, replica) points fill only "
        f"{domain.total} of the {threads * values} (thread, local index) slots of {threads} "
        f"threads x {values} registers."
    )


def access_to_linear_layout(
    access: Any, threads: int, values: int, shape: Any, *, lanes: int = 32
) -> LinearLayout:
    """A thread-access map ``(thread, local) -> (i, j, ...)`` (TileLang's
    ``thread_id_shared_access_*``) as the register layout ``(register, lane, warp) ->
    (dim0, dim1, ...)`` over ``shape``.

    Examples:
        >>> ll = access_to_linear_layout('''
        ... def thread_id_shared_access_64x4_to_16x16_layout_A(thread_id, local_id):
        ...     i = thread_id % 16
        ...     j = (thread_id // 16) * 4 + local_id
        ...     return i, j
        ... ''', threads=64, values=4, shape=(16, 16), lanes=64)
        >>> ll.apply({"register": 3, "lane": 37, "warp": 0})
        {'dim0': 5, 'dim1': 11}
    """
    index_map = _map(access, "access")
    dims = _extents(shape, "shape")
    lanes = _lanes(lanes)
    [threads, values] = _extents((threads, values), "threads, values")
    _check_params(index_map, 2, "a thread-access map (thread, local)", "access")
    if len(index_map.outputs) != len(dims):
        raise LayoutError(
            f"Argument 'access': '{index_map.name}' returns {len(index_map.outputs)} "
            f"coordinates, but 'shape' {tuple(dims)} has {len(dims)}."
        )
    what = f"the access map '{index_map.name}'"
    if not all(is_power_of_2(d) for d in dims):
        raise NotLinearError(
            f"{what} is not GF(2)-linear: 'shape' {tuple(dims)} must hold powers of 2."
        )
    domain = _Domain(index_map.params, [threads, values], what)
    columns = []
    for k, (formula, extent) in enumerate(zip(index_map.outputs, dims)):
        at = domain.evaluate(formula, f"dim{k}", what)
        beyond = np.flatnonzero(at >= extent)
        if beyond.size:
            point = domain.point(int(beyond[0]))
            raise LayoutError(
                f"{what}: its dim{k} is {int(at[beyond[0]])} at {_spelt(point)}, outside "
                f"the extent {extent} of 'shape' {tuple(dims)}."
            )
        columns.append(domain.images(at, f"dim{k}", what))
    images = list(zip(*columns))
    bases = [(name, [list(v) for v in vecs]) for name, vecs in domain.per_param(images)]
    ll = LinearLayout.from_bases(
        [("register", bases[1][1]), ("thread", bases[0][1])],
        [f"dim{k}" for k in range(len(dims))],
        dims,
        require_surjective=False,
    )
    return _register_dims(ll, threads, values, lanes)


def layout_to_linear_layout(layout: Any, shape: Any) -> LinearLayout:
    """A ``T.Layout`` over ``shape``: ``(i, j, ...) -> physical coordinates``, flattened
    row-major (the last fastest, TVM's order) to one ``offset``, as the LinearLayout
    ``(dim0, dim1, ...) -> offset`` (a shared-memory layout, as
    :func:`llverify.cute.to_linear_layout` gives it for CuTe).

    Examples:
        >>> ll = layout_to_linear_layout(
        ...     "lambda row, col: (row, ((col // 8) ^ (row % 4)) * 8 + col % 8)", (4, 32))
        >>> [ll.apply({"dim0": r, "dim1": 0})["offset"] for r in range(4)]
        [0, 40, 80, 120]
    """
    index_map = _map(layout, "layout")
    dims = _extents(shape, "shape")
    _check_params(index_map, len(dims), f"a layout over {tuple(dims)}", "layout")
    what = f"the layout '{index_map.name}' over {tuple(dims)}"
    domain = _Domain(index_map.params, dims, what)
    offset = np.zeros(domain.total, dtype=np.int64)
    for k, formula in enumerate(index_map.outputs):
        part = domain.evaluate(formula, f"result {k}", what)
        domain.images(part, f"result {k}", what)
        offset = offset * _extent(part, f"result {k}", what) + part
    images = domain.images(offset, "offset", what)
    size = _extent(offset, "offset", what)
    bases = [
        (f"dim{k}", [[v] for v in vecs]) for k, (_, vecs) in enumerate(domain.per_param(images))
    ]
    return LinearLayout.from_bases(bases, ["offset"], [size], require_surjective=False)
