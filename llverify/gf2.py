"""GF(2) linear algebra on matrices stored as bit-packed integer columns.

A matrix with ``n`` columns is a sequence of ints; bit ``r`` of column ``c`` is the
entry in row ``r``.  Column order matters: a *pivot column* is a column that is not
in the span of the columns before it (the pivots of the reduced row echelon form when
the columns are read left to right).  This is the order Triton's ``f2reduce`` uses, so
every solution chosen here ("free variables = 0") is the one Triton chooses.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence


class EchelonBasis:
    """Incremental column-echelon basis that remembers how each vector was formed.

    Each stored vector is keyed by its highest set bit and carries an *expression*:
    a bitmask over the pivot columns inserted so far whose XOR equals the vector.

    Examples:
        >>> basis = EchelonBasis()
        >>> [basis.insert(c) for c in (0b01, 0b11, 0b10)]
        [True, True, False]
        >>> basis.express(0b10)  # column 0 XOR column 1
        3
    """

    __slots__ = ("_vectors", "_count")

    def __init__(self) -> None:
        self._vectors: dict[int, tuple[int, int]] = {}
        self._count = 0

    @property
    def rank(self) -> int:
        """Number of independent vectors inserted."""
        return len(self._vectors)

    def insert(self, column: int) -> bool:
        """Insert the next column; True when it is a pivot (independent) column."""
        expression = 1 << self._count
        self._count += 1
        vectors = self._vectors
        while column:
            top = column.bit_length() - 1
            entry = vectors.get(top)
            if entry is None:
                vectors[top] = (column, expression)
                return True
            column ^= entry[0]
            expression ^= entry[1]
        return False

    def extend(self, columns: Iterable[int]) -> None:
        """Insert the next columns in order (``insert`` for each, in one call).

        Examples:
            >>> basis = EchelonBasis()
            >>> basis.extend([0b01, 0b11, 0b10])
            >>> basis.rank
            2
        """
        vectors = self._vectors
        count = self._count
        for column in columns:
            expression = 1 << count
            count += 1
            while column:
                top = column.bit_length() - 1
                entry = vectors.get(top)
                if entry is None:
                    vectors[top] = (column, expression)
                    break
                column ^= entry[0]
                expression ^= entry[1]
        self._count = count

    def express_all(self, targets: Iterable[int]) -> list[int | None]:
        """``express`` of each target, in one call.

        Examples:
            >>> basis = EchelonBasis()
            >>> basis.extend([0b01, 0b10])
            >>> basis.express_all([0b11, 0b100])
            [3, None]
        """
        vectors = self._vectors
        result: list[int | None] = []
        for target in targets:
            expression: int | None = 0
            while target:
                entry = vectors.get(target.bit_length() - 1)
                if entry is None:
                    expression = None
                    break
                target ^= entry[0]
                expression ^= entry[1]  # type: ignore[operator]
            result.append(expression)
        return result

    def express(self, target: int) -> int | None:
        """Bitmask of pivot columns whose XOR is ``target``, or None if not in the span."""
        expression = 0
        vectors = self._vectors
        while target:
            entry = vectors.get(target.bit_length() - 1)
            if entry is None:
                return None
            target ^= entry[0]
            expression ^= entry[1]
        return expression


def rank(columns: Sequence[int]) -> int:
    """Rank of the matrix whose columns are ``columns``.

    Examples:
        >>> rank([1, 2, 3, 0])
        2
    """
    distinct = set(columns)
    distinct.discard(0)
    if sum(map(int.bit_count, distinct)) == len(distinct):
        return len(distinct)  # distinct one-hot columns (most distributed layouts)
    return _eliminated_rank(distinct)


def _eliminated_rank(columns: Iterable[int]) -> int:
    """Rank of ``columns`` by Gaussian elimination on their top bits."""
    vectors: dict[int, int] = {}
    for column in columns:
        while column:
            top = column.bit_length() - 1
            other = vectors.get(top)
            if other is None:
                vectors[top] = column
                break
            column ^= other
    return len(vectors)


def rank_beside_units(units: int, columns: Collection[int]) -> int:
    """Rank of the unit vectors of the set bits of ``units`` together with ``columns``.

    Made for matrices whose columns are mostly unit vectors (a swizzled layout's): the
    caller passes those as one mask and only the others as ``columns``.  The unit vectors
    span exactly the coordinates of ``covered`` (at first ``units``), so a column counts
    modulo them as ``column & ~covered``; one that leaves a single bit adds that bit to
    ``covered`` (its unit vector is then in the span), which may reduce other columns to
    single bits on the next pass.  What no pass reduces to a single bit is eliminated the
    usual way.  The rank is the number of covered bits plus that elimination's rank.

    Examples:
        >>> rank_beside_units(0b1100, [0b0101, 0b1011])  # 0b0101 -> 0b0001, then 0b0010
        4
        >>> rank_beside_units(0b0001, [0b0110, 0b0111, 0b0001])
        2
    """
    covered = units
    rest = columns
    while True:
        left = []
        for column in rest:
            column &= ~covered
            if column & (column - 1):
                left.append(column)
            else:
                covered |= column  # a single bit (or 0, which adds nothing)
        if not left:
            return covered.bit_count()
        if len(left) == len(rest):
            break  # no column became a single bit: eliminate the rest
        rest = left
    return covered.bit_count() + _eliminated_rank(column & ~covered for column in left)


def dual_rows(columns: Iterable[int], width: int) -> dict[int, int] | None:
    """A basis among ``columns`` of the ``width``-bit space, each of its columns mapped to its
    *dual row*; None when the columns, each below ``2**width``, do not span that space.

    The dual row of a basis column ``p`` is the mask ``R`` with ``parity(q & R) == (q == p)``
    for every basis column ``q``: the rows of the basis matrix's inverse.  The coordinate of
    any ``x < 2**width`` along ``p``, in that basis, is then ``(x & R).bit_count() & 1``.
    The basis is the pivot columns (the first column not in the span of those before it).

    Examples:
        >>> rows = dual_rows([0b01, 0b11, 0b10], 2)
        >>> rows  # 0b10 = 0b01 ^ 0b11: coordinate 1 along both
        {1: 3, 3: 2}
        >>> [(0b10 & row).bit_count() & 1 for row in rows.values()]
        [1, 1]
        >>> dual_rows([0b01, 0b01], 2) is None
        True
    """
    basis = EchelonBasis()
    pivots = []  # (position among the inserted columns, column)
    for index, column in enumerate(columns):
        if column >> width:
            return None
        if basis.insert(column):
            pivots.append((index, column))
    if len(pivots) != width:
        return None
    # The coordinates of each unit vector: bit i of expression r is entry (i, r) of the
    # inverse (expressions name the inserted columns by position, only pivots appear).
    rows = dict.fromkeys(range(len(pivots) and pivots[-1][0] + 1), 0)
    for r, expression in enumerate(basis.express_all([1 << r for r in range(width)])):
        assert expression is not None  # the pivots span every unit vector
        while expression:
            low = expression & -expression
            rows[low.bit_length() - 1] |= 1 << r
            expression ^= low
    return {column: rows[index] for index, column in pivots}


def pivot_mask(columns: Sequence[int]) -> int:
    """Bitmask (bit ``c`` for column ``c``) of the pivot columns.

    Examples:
        >>> bin(pivot_mask([1, 1, 2, 3]))
        '0b101'
    """
    basis = EchelonBasis()
    mask = 0
    for index, column in enumerate(columns):
        if basis.insert(column):
            mask |= 1 << index
    return mask


def solve(columns: Sequence[int], targets: Sequence[int]) -> list[int] | None:
    """For each target t, the bitmask x over ``columns`` with XOR(columns[x]) == t.

    Only pivot columns are used (free variables are 0), which makes the solution
    unique.  Returns None when some target is outside the column span.

    Examples:
        >>> solve([1, 1, 2], [3, 1])
        [5, 1]
        >>> solve([1], [2]) is None
        True
    """
    basis = EchelonBasis()
    for column in columns:
        basis.insert(column)
    result = []
    for target in targets:
        expression = basis.express(target)
        if expression is None:
            return None
        result.append(expression)
    return result


def matrix_rows(columns: Sequence[int], num_rows: int) -> list[list[int]]:
    """Dense 0/1 rows of the matrix (row r, column c = bit r of columns[c]).

    Examples:
        >>> matrix_rows([1, 3], 2)
        [[1, 1], [0, 1]]
    """
    return [[(column >> row) & 1 for column in columns] for row in range(num_rows)]


def kernel_vector(columns: Sequence[int]) -> int | None:
    """A non-zero bitmask x over the columns with XOR(columns[x]) == 0, or None if the
    columns are independent.

    Examples:
        >>> bin(kernel_vector([1, 2, 3]))
        '0b111'
        >>> kernel_vector([1, 2]) is None
        True
    """
    vectors: dict[int, tuple[int, int]] = {}
    for index, column in enumerate(columns):
        expression = 1 << index
        while column:
            top = column.bit_length() - 1
            entry = vectors.get(top)
            if entry is None:
                vectors[top] = (column, expression)
                break
            column ^= entry[0]
            expression ^= entry[1]
        else:
            return expression
    return None


def transpose(columns: Sequence[int], num_rows: int) -> list[int]:
    """The rows of the matrix as bitmasks over the columns.

    Examples:
        >>> transpose([0b01, 0b11], 2)
        [3, 2]
    """
    rows = []
    for r in range(num_rows):
        mask = 0
        for c, column in enumerate(columns):
            if (column >> r) & 1:
                mask |= 1 << c
        rows.append(mask)
    return rows
