"""ColumnAction: a permutation (or selection) of the bases of one input dim."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from llverify.bits import as_int
from llverify.errors import DimensionError, LayoutError, LayoutTypeError
from llverify.layout import LinearLayout, _make

T = TypeVar("T")


class ColumnAction:
    """Maps column ``action[i]`` of ``in_dim`` to column ``i`` (Triton's ``ColumnAction``).

    Args:
        action: source column for each output column (may drop columns).
        in_dim: the input dim acted on.
        in_size_log2: number of columns of that dim.

    Examples:
        >>> from llverify import LinearLayout
        >>> action = ColumnAction([2, 0, 1], "register", 3)
        >>> action.apply(LinearLayout.identity_1d(8, "register", "o")).bases
        [('register', [[4], [1], [2]])]
        >>> action.apply_values(list("abcdefgh"))
        ['a', 'e', 'b', 'f', 'c', 'g', 'd', 'h']
    """

    __slots__ = ("_action", "_in_dim", "_in_size_log2")

    _action: tuple[int, ...]
    _in_dim: str
    _in_size_log2: int

    def __init__(self, action: Sequence[int], in_dim: str, in_size_log2: int) -> None:
        if not isinstance(in_dim, str):
            raise LayoutTypeError(f"Argument 'in_dim' must be a str, not {type(in_dim).__name__}.")
        size_log2 = as_int(in_size_log2, "in_size_log2")
        if size_log2 < 0:
            raise LayoutError(f"Argument 'in_size_log2' must be >= 0, not {size_log2}.")
        columns = tuple(as_int(a, f"action[{i}]") for i, a in enumerate(action))
        for i, a in enumerate(columns):
            if not 0 <= a < size_log2:
                raise LayoutError(
                    f"Argument 'action[{i}]' must be a column index in [0, {size_log2}), not {a}."
                )
        if len(set(columns)) != len(columns):
            raise LayoutError(f"Argument 'action' must not repeat a column, not {list(columns)}.")
        object.__setattr__(self, "_action", columns)
        object.__setattr__(self, "_in_dim", in_dim)
        object.__setattr__(self, "_in_size_log2", size_log2)

    @classmethod
    def identity(cls, in_dim: str, in_size_log2: int) -> ColumnAction:
        """The action that keeps every column in place."""
        return cls(range(as_int(in_size_log2, "in_size_log2")), in_dim, in_size_log2)

    @property
    def action(self) -> tuple[int, ...]:
        """Source column of each output column."""
        return self._action

    @property
    def in_dim(self) -> str:
        """The input dim acted on."""
        return self._in_dim

    @property
    def in_size_log2(self) -> int:
        """Number of columns of the input dim."""
        return self._in_size_log2

    def is_identity(self) -> bool:
        """True when every column stays in place and none is dropped."""
        return self._action == tuple(range(self._in_size_log2))

    def get_source_index(self, i: int) -> int:
        """Source column of output column i."""
        return self._action[i]

    def apply(self, layout: LinearLayout) -> LinearLayout:
        """The layout with the bases of ``in_dim`` permuted/selected."""
        if not isinstance(layout, LinearLayout):
            raise LayoutTypeError(
                f"Argument 'layout' must be a LinearLayout, not {type(layout).__name__}."
            )
        if not layout.has_in_dim(self._in_dim):
            raise DimensionError(
                f"ColumnAction on '{self._in_dim}' cannot act on a layout with in dims "
                f"{layout.get_in_dim_names()}."
            )
        index = layout._in_idx()[self._in_dim]
        cols = layout._cols[index]
        if len(cols) != self._in_size_log2:
            raise LayoutError(
                f"ColumnAction expects {self._in_size_log2} bases for '{self._in_dim}', but the "
                f"layout has {len(cols)}."
            )
        if self.is_identity():
            return layout
        new = tuple(cols[a] for a in self._action)
        return _make(
            layout._ins,
            layout._cols[:index] + (new,) + layout._cols[index + 1 :],
            layout._outs,
            layout._out_log2,
        )

    def apply_values(self, values: Sequence[T]) -> list[T]:
        """Reorder ``2**in_size_log2`` per-register values the way ``apply`` reorders bases.

        Output position i takes the value at the index formed by moving bit k of i to
        bit action[k] (Triton's ``ColumnAction::apply(ValueRange)``).
        """
        values = list(values)
        if len(values) != 1 << self._in_size_log2:
            raise LayoutError(
                f"Argument 'values' must have {1 << self._in_size_log2} entries, not {len(values)}."
            )
        result = []
        for i in range(1 << len(self._action)):
            source = 0
            for k, a in enumerate(self._action):
                if i >> k & 1:
                    source |= 1 << a
            result.append(values[source])
        return result

    def inverse(self) -> ColumnAction:
        """The inverse permutation (the action must drop no column)."""
        if len(self._action) != self._in_size_log2:
            raise LayoutError(f"Only a permutation can be inverted, but {self} drops columns.")
        inverse = [0] * len(self._action)
        for i, a in enumerate(self._action):
            inverse[a] = i
        return ColumnAction(inverse, self._in_dim, self._in_size_log2)

    def left_compose(self, other: ColumnAction) -> ColumnAction:
        """ret(x) = other(self(x)): new action[i] = self.action[other.action[i]]."""
        if not isinstance(other, ColumnAction):
            raise LayoutTypeError(
                f"Argument 'other' must be a ColumnAction, not {type(other).__name__}."
            )
        if (other._in_dim, other._in_size_log2, len(other._action)) != (
            self._in_dim,
            self._in_size_log2,
            len(self._action),
        ):
            raise LayoutError(f"Cannot compose {self} with {other}: dims or sizes differ.")
        return ColumnAction(
            [self._action[a] for a in other._action], self._in_dim, self._in_size_log2
        )

    def __str__(self) -> str:
        columns = ", ".join(map(str, self._action))
        return f"ColumnAction([{columns}], {self._in_dim}, {self._in_size_log2})"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ColumnAction):
            return NotImplemented
        return (self._action, self._in_dim, self._in_size_log2) == (
            other._action,
            other._in_dim,
            other._in_size_log2,
        )

    def __hash__(self) -> int:
        return hash((self._action, self._in_dim, self._in_size_log2))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ColumnAction is immutable; cannot set '{name}'.")
