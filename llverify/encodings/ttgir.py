"""Reading encoding attributes from TTGIR text, exactly as Triton 3.9 prints them.

``#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1],
order = [1, 0]}>`` becomes ``BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])``; a
``tensor<128x64xf16, #ttg...>`` type gives the shape too.  The attribute is read here; the
type around it and an alias definition before it (``#blocked = ...``) are read by
:mod:`llverify.ttgir`, the one TTGIR reader.  Each encoding module registers a builder for its
mnemonic with :func:`register`.  Malformed text raises :class:`TTGIRError`, whose message
shows the text with a caret at the position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from llverify.errors import LLVerifyError, ParseError
from llverify.text_format import check_nesting
from llverify.ttgir import ModuleError, alias_definition, balanced_end, parse_dims
from llverify.ttgir.syntax import top_level_find

Builder = Callable[[dict[str, Any], "Attribute"], Any]
_BUILDERS: dict[str, Builder] = {}


#: Bare enum keywords accepted as field values (``tensor_memory_scales_encoding``'s
#: ``blockRepOrder``).
_ENUM_WORDS = frozenset({"mnThenK", "kThenMn"})


class TTGIRError(ParseError):
    """TTGIR text could not be read; ``position`` is the 0-based offset of the problem."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.text = text
        self.position = position
        start = max(0, position - 60)
        excerpt = text[start : position + 60]
        caret = " " * (position - start) + "^"
        super(ParseError, self).__init__(
            f"{message} (at position {position})\n  {excerpt}\n  {caret}"
        )
        self.line = None


class Attribute:
    """A parsed ``#dialect.mnemonic<{...}>`` before it is turned into an encoding."""

    def __init__(
        self,
        dialect: str,
        mnemonic: str,
        fields: dict[str, Any],
        position: int,
        positions: dict[str, int],
        text: str,
        trailing: tuple[str, ...] = (),
    ) -> None:
        self.dialect = dialect
        self.mnemonic = mnemonic
        self.fields = fields
        self.position = position
        self.positions = positions
        self.text = text
        #: Keys written after the braces, e.g. ``alignment`` in
        #: ``#ttg.shared_linear<{offset = [..]}, alignment = 16>``.
        self.trailing = trailing

    def error(self, message: str, key: str | None = None) -> TTGIRError:
        where = self.positions.get(key, self.position) if key else self.position
        return TTGIRError(f"#{self.dialect}.{self.mnemonic}: {message}", self.text, where)

    def take(self, key: str, default: Any = ...) -> Any:
        """Remove and return a field (an error names it when it is missing)."""
        if key in self.fields:
            return self.fields.pop(key)
        if default is ...:
            raise self.error(f"missing field '{key}'")
        return default

    def finish(self) -> None:
        """Error on fields nobody took."""
        if self.fields:
            key = next(iter(self.fields))
            raise self.error(f"unknown field '{key}'", key)


#: Gluon's placeholders (``ttgl.CoalescedLayout()``, ``ttgl.AutoLayout()``), printed without
#: parameters in the IR Gluon emits before Triton's passes resolve them (Triton 3.9).
_GLUON_UNRESOLVED = {"coalesced_encoding": "CoalescedLayout", "auto_encoding": "AutoLayout"}


def register(mnemonic: str, builder: Builder) -> None:
    """Make ``#ttg.<mnemonic><...>`` parse with ``builder(fields, attribute)``."""
    _BUILDERS[mnemonic] = builder


class _Parser:
    def __init__(self, text: str, name: str = "text") -> None:
        check_nesting(text, name)  # the parser recurses on [ { <
        self.text = text
        self.pos = 0

    def error(self, message: str, position: int | None = None) -> TTGIRError:
        return TTGIRError(message, self.text, self.pos if position is None else position)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, token: str) -> None:
        self.skip()
        if not self.text.startswith(token, self.pos):
            found = self.text[self.pos : self.pos + 10] or "the end of the text"
            raise self.error(f"expected '{token}', found {found!r}")
        self.pos += len(token)

    def identifier(self) -> str:
        self.skip()
        match = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(self.text, self.pos)
        if match is None:
            raise self.error("expected a name")
        self.pos = match.end()
        return match.group()

    def value(self) -> Any:
        char = self.peek()
        if char == "[":
            return self.list_value()
        if char == "{":
            return self.dict_value()
        if char == "#":
            return self.attribute()
        start = self.pos
        match = re.compile(r"-?\d+").match(self.text, self.pos)
        if match is not None:
            self.pos = match.end()
            if self.pos < len(self.text) and self.text[self.pos] == ":":
                self.pos += 1  # an explicit type, e.g. "3 : i32"
                self.identifier()
            return int(match.group())
        if char.isalpha():
            word = self.identifier()
            if word in ("true", "false"):
                return word == "true"
            if word in _ENUM_WORDS:
                return word
            raise self.error(f"unexpected word {word!r}", start)
        raise self.error(f"expected a value, found {self.text[self.pos : self.pos + 10]!r}")

    def list_value(self) -> list[Any]:
        self.expect("[")
        items: list[Any] = []
        if self.peek() == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.value())
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("]")
            return items

    def fields(self, closing: str) -> tuple[dict[str, Any], dict[str, int]]:
        """``key = value, ...`` up to (not including) ``closing``, with key positions."""
        fields: dict[str, Any] = {}
        positions: dict[str, int] = {}
        if self.peek() == closing:
            return fields, positions
        while True:
            self.skip()
            key_position = self.pos
            key = self.identifier()
            if key in fields:
                raise self.error(f"field '{key}' appears twice", key_position)
            self.expect("=")
            fields[key] = self.value()
            positions[key] = key_position
            if self.peek() != ",":
                return fields, positions
            self.pos += 1

    def dict_value(self) -> dict[str, Any]:
        """``{key = value, ...}`` as a plain dict (e.g. WMMA's ``ctaLayout``)."""
        self.expect("{")
        fields, _ = self.fields("}")
        self.expect("}")
        return fields

    def attribute(self) -> Any:
        self.skip()
        start = self.pos
        self.expect("#")
        dialect = self.identifier()
        self.expect(".")
        mnemonic = self.identifier()
        if dialect == "gluon" and mnemonic in _GLUON_UNRESOLVED:
            raise TTGIRError(
                f"'#gluon.{mnemonic}' is Gluon's unresolved {_GLUON_UNRESOLVED[mnemonic]}: it "
                f"has no layout until Triton's gluon-infer-coalesced-encodings / "
                f"gluon-resolve-auto-encodings passes replace it (read the TTGIR Triton "
                f"prints after them)",
                self.text,
                start,
            )
        self.expect("<")
        pairs_position = self.pos
        pairs = self.interval_pairs() if self.peek() == "[" else None
        # Two spellings: "<{k = v, ...}>" (most encodings) and "<k = v, ...>" (e.g. tensor
        # memory encodings, printed "<>" when every field has its default).
        braced = self.peek() == "{"
        if pairs is not None and not braced:
            raise self.error("expected '{'")  # the pairs come with an attribute dict
        if braced:
            self.pos += 1
        closing = "}" if braced else ">"
        fields, positions = self.fields(closing)
        if pairs is not None:  # "#ttg.padded_shared<[I:+P, ...] {...}>"
            fields = {"interval_padding_pairs": pairs, **fields}
            positions["interval_padding_pairs"] = pairs_position
        trailing: tuple[str, ...] = ()
        if braced:
            self.expect("}")
            if self.peek() == ",":  # MLIR custom formats may add ", key = value" after "}"
                self.pos += 1
                more, more_positions = self.fields(">")
                for key in more:
                    if key in fields:
                        raise self.error(f"field '{key}' appears twice", more_positions[key])
                fields.update(more)
                positions.update(more_positions)
                trailing = tuple(more)
        self.expect(">")
        attribute = Attribute(dialect, mnemonic, fields, start, positions, self.text, trailing)
        builder = _BUILDERS.get(mnemonic)
        if builder is None:
            known = ", ".join(sorted(_BUILDERS))
            raise TTGIRError(
                f"unknown encoding '#{dialect}.{mnemonic}' (known: {known})", self.text, start
            )
        try:
            result = builder(fields, attribute)
        except TTGIRError:
            raise
        except LLVerifyError as error:
            raise TTGIRError(f"#{dialect}.{mnemonic}: {error}", self.text, start) from None
        attribute.finish()
        return result

    def interval_pairs(self) -> list[list[int]]:
        """PaddedShared's ``[I:+P, ...]`` (MLIR tokens, blanks allowed; at least one pair)."""
        number = re.compile(r"\d+")

        def integer() -> int:
            self.skip()
            match = number.match(self.text, self.pos)
            if match is None:
                raise self.error("expected integer value")
            self.pos = match.end()
            return int(match.group())

        self.expect("[")
        pairs: list[list[int]] = []
        while True:
            interval = integer()
            self.expect(":")
            self.expect("+")
            pairs.append([interval, integer()])
            if self.peek() != ",":
                self.expect("]")
                return pairs
            self.pos += 1

    def read_dims(self, prefix: str, min_rank: int = 0) -> tuple[int, ...]:
        """The shape of the ``tensor<...>`` or ``!ttg.memdesc<...>`` type at the position
        (``prefix`` names which), its ``SHAPExELEMENT`` read by the TTGIR reader; the position
        moves past the comma after it, to the encoding (this parser's to read)."""
        self.expect(prefix)
        self.expect("<")
        opening = self.pos - 1
        self.skip()
        start = self.pos
        comma = top_level_find(self.text, ",", start)
        if comma < 0:  # no encoding: SHAPExELEMENT runs to the end of the type
            try:
                comma = balanced_end(self.text, opening) - 1
            except ModuleError:
                comma = len(self.text)
        try:
            shape, element = parse_dims(self.text[start:comma])
        except ModuleError:
            shape, element = (), ""
        if len(shape) < min_rank or not _element_name(element):
            raise self.error("expected a shape like 128x64xf16", start)
        self.pos = comma
        self.expect(",")
        return shape

    def tensor_type(self) -> tuple[list[int], Any]:
        """``tensor<SHAPExELEMENT, #encoding>``: its shape and encoding."""
        shape = self.read_dims("tensor")
        encoding = self.attribute()
        self.expect(">")
        return list(shape), encoding

    def after_alias(self) -> None:
        """Move past blanks and an alias definition's ``#blocked =`` (as in an IR dump)."""
        self.skip()
        definition = alias_definition(self.text, self.pos)
        if definition is not None:
            self.pos = definition[1]

    def end(self) -> None:
        self.skip()
        if self.pos != len(self.text):
            raise self.error("unexpected text after the attribute")


def _element_name(element: str) -> bool:
    """Whether ``element`` is a plain element type (``f16``, ``i32``, ``f8E4M3FN``): a letter,
    then letters and digits (ASCII).

    >>> _element_name("f16"), _element_name("!tt.ptr<f16>"), _element_name("64 x f16")
    (True, False, False)
    """
    return element[:1].isalpha() and element.isascii() and element.isalnum()


def parse_encoding(text: str, name: str = "text") -> tuple[Any, list[int] | None]:
    """An encoding (and the shape, for a ``tensor<...>`` type) from TTGIR text; ``name`` is
    the argument's name for error messages.

    Examples:
        >>> enc, shape = parse_encoding(
        ...     "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
        ...     "warpsPerCTA = [4, 1], order = [1, 0]}>")
        >>> enc.size_per_thread, shape
        ((1, 8), None)
    """
    if not isinstance(text, str):
        raise ParseError(
            f"Argument '{name}' must be TTGIR text (a str), not {type(text).__name__}."
        )
    parser = _Parser(text, name)
    parser.after_alias()
    if text.startswith("tensor", parser.pos):
        shape, encoding = parser.tensor_type()
        parser.end()
        return encoding, shape
    encoding = parser.attribute()
    parser.end()
    return encoding, None
