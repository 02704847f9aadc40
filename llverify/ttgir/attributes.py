"""Attribute dictionaries of TTGIR (``{axis = 0 : i32, efficient_layout}``) with typed
accessors, and the module's attributes (``ttg.num-warps``, ``ttg.threads-per-warp``,
``ttg.num-ctas``, ``ttg.target``).

Examples:
    >>> attrs, end = parse_attribute_dict('{axis = 1 : i32, order = array<i32: 1, 0>, x}')
    >>> attrs.integer("axis"), attrs.integers("order"), attrs.flag("x"), attrs.flag("y"), end
    (1, (1, 0), True, False, 45)
    >>> text = 'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {'
    >>> module = ModuleAttributes(parse_attribute_dict(text, 18)[0])
    >>> module.num_warps, module.threads_per_warp, module.target
    (4, None, 'cuda:90')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from llverify.ttgir.syntax import (
    ModuleError,
    balanced_end,
    integer_literal,
    position,
    split_spans,
    top_level_find,
)

__all__ = ["MAX_COUNT", "Attributes", "ModuleAttributes", "parse_attribute_dict"]

#: the largest warps per CTA, lanes per warp or CTAs a module may declare: far above any GPU's
MAX_COUNT = 1 << 16


class Attributes(Mapping[str, str]):
    """An attribute dictionary: name -> the value as written ("" for a unit attribute), and
    where each value sits in the text it was read from."""

    def __init__(
        self,
        entries: dict[str, str],
        spans: dict[str, tuple[int, int]],
        entry_spans: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        self._entries = entries
        self._spans = spans
        self._entry_spans = entry_spans if entry_spans is not None else dict(spans)

    def __getitem__(self, name: str) -> str:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Attributes({self._entries!r})"

    @staticmethod
    def merge(parts: list[Attributes]) -> Attributes:
        """One dictionary of ``parts`` (a later value wins)."""
        if len(parts) == 1:
            return parts[0]
        entries = {name: part[name] for part in parts for name in part}
        spans = {name: part._spans[name] for part in parts for name in part}
        entry_spans = {name: part._entry_spans[name] for part in parts for name in part}
        return Attributes(entries, spans, entry_spans)

    def span(self, name: str) -> tuple[int, int] | None:
        """The (start, end) offsets of ``name``'s value in the text, or None."""
        return self._spans.get(name)

    def entry_span(self, name: str) -> tuple[int, int] | None:
        """The (start, end) offsets of the whole entry ``name = value`` in the text, or
        None."""
        return self._entry_spans.get(name)

    def bare(self, name: str) -> str | None:
        """The value without its trailing type (``16 : i32`` -> ``16``), or None."""
        value = self._entries.get(name)
        if value is None:
            return None
        colon = top_level_find(value, ":")
        return (value if colon < 0 else value[:colon]).strip()

    def integer(self, name: str) -> int | None:
        """An integer attribute (``axis = 0 : i32``), else None."""
        value = self.bare(name)
        return None if value is None else integer_literal(value)

    def integers(self, name: str) -> tuple[int, ...] | None:
        """An integer array (``array<i32: 1, 0>`` or ``[1, 0]``), else None."""
        value = self.bare(name)
        if value is None:
            return None
        if value.startswith("array<") and value.endswith(">"):
            _, _, body = value[6:-1].partition(":")
        elif value.startswith("[") and value.endswith("]"):
            body = value[1:-1]
        else:
            return None
        items = [integer_literal(item.strip()) for item in body.split(",") if item.strip()]
        numbers = tuple(item for item in items if item is not None)
        return numbers if len(numbers) == len(items) else None

    def boolean(self, name: str) -> bool | None:
        """``true``/``false`` (a unit attribute is true), else None."""
        value = self.bare(name)
        return {"": True, "true": True, "false": False}.get(value) if value is not None else None

    def flag(self, name: str) -> bool:
        """Whether ``name`` is set: a unit attribute or ``true``."""
        return self.boolean(name) is True

    def string(self, name: str) -> str | None:
        """A string attribute (``"cuda:90"``) without its quotes, else None."""
        value = self.bare(name)
        if value is None or len(value) < 2 or value[0] != '"' or value[-1] != '"':
            return None
        return value[1:-1]


def parse_attribute_dict(text: str, start: int = 0, line: int = 1) -> tuple[Attributes, int]:
    """The dictionary ``{...}`` at ``text[start]`` and the index just past it; ``line`` is the
    line ``text`` starts at (for errors).  Names may be quoted (``"ttg.num-warps"``)."""
    if text[start : start + 1] != "{":
        at_line, column = position(text, start, line)
        raise ModuleError(
            f"expected an attribute dictionary '{{...}}' at {text[start : start + 30]!r}.",
            at_line,
            column,
        )
    end = balanced_end(text, start, line)
    entries: dict[str, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    entry_spans: dict[str, tuple[int, int]] = {}
    for a, b in split_spans(text, ",", start + 1, end - 1):
        name, equals, _ = text[a:b].partition("=")
        name = name.strip()
        if not name:
            continue
        if len(name) > 1 and name[0] == name[-1] == '"':
            name = name[1:-1]
        piece = text[a:b]
        lead = len(piece) - len(piece.lstrip())
        entry_spans[name] = (a + lead, a + len(piece.rstrip()))
        if not equals:
            entries[name], spans[name] = "", (b, b)
            continue
        value_start = text.index("=", a) + 1
        value = text[value_start:b]
        lead = len(value) - len(value.lstrip())
        entries[name] = value.strip()
        spans[name] = (value_start + lead, value_start + lead + len(value.strip()))
    return Attributes(entries, spans, entry_spans), end


class ModuleAttributes:
    """The attributes of a ``module``: typed accessors for its target and counts, read under
    the dialect prefixes ``prefixes`` (Triton 3.3 and later: ``ttg``; before: ``triton_gpu``).

    A count must be a power of 2 from 1 to :data:`MAX_COUNT`, else :class:`ModuleError` at
    ``line``."""

    def __init__(
        self, attributes: Attributes, line: int = 1, prefixes: tuple[str, ...] = ("ttg",)
    ) -> None:
        self.attributes = attributes
        self.line = line
        self.prefixes = prefixes
        self.num_warps = self._count("num-warps")
        self.threads_per_warp = self._count("threads-per-warp")
        self.num_ctas = self._count("num-ctas")
        target = self.key("target")
        self.target = None if target is None else self.attributes.string(target)

    def key(self, name: str) -> str | None:
        """The attribute name under which ``name`` (e.g. "target") is set, or None."""
        return next(
            (f"{p}.{name}" for p in self.prefixes if f"{p}.{name}" in self.attributes), None
        )

    def _count(self, name: str) -> int | None:
        key = self.key(name)
        if key is None:
            return None
        value = self.attributes.bare(key) or ""
        count = integer_literal(value) if len(value) <= 12 else 0
        if count is None and not value.lstrip("-").isdigit():
            return None  # not written as an integer: not a count
        if count is None or not (1 <= count <= MAX_COUNT and count & (count - 1) == 0):
            shown = value if len(value) <= 12 else value[:12] + "..."
            raise ModuleError(
                f"module attribute {key} must be a power of 2 from 1 to {MAX_COUNT}, not {shown}",
                self.line,
            )
        return count
