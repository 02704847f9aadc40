"""The one reader of TTGIR text (Triton 3.9's printed form), below the audit, the harness
builder, the compiler front and the encodings parser.

Modules, bottom to top:

* :mod:`~llverify.ttgir.syntax`: :class:`ModuleError` (line and column), bracket matching
  and splitting at the top level (the one balanced-bracket helper).
* :mod:`~llverify.ttgir.locations`: an operation's trailing ``loc(...)``, resolved through
  the ``#loc`` aliases to the user's file and line; locations replaced in text.
* :mod:`~llverify.ttgir.types`: the typed type model :class:`Type` (tensor shape, element
  and encoding, memdesc memory space and allocation shape, pointers, scalars), reading one
  type (or its ``SHAPExELEMENT``), the types a text mentions, and an operation's signature.
  The encodings parser reads a layout argument's ``tensor<...>`` or memdesc type with it.
* :mod:`~llverify.ttgir.attributes`: attribute dictionaries with typed accessors, and the
  module's attributes (``ttg.num-warps``, ``ttg.threads-per-warp``, ``ttg.num-ctas``,
  ``ttg.target``).
* :mod:`~llverify.ttgir.whole`: :func:`check_whole`, whether the text is a whole module
  (balanced, closed, every alias defined).
* :mod:`~llverify.ttgir.wellformed`: :func:`check_wellformed`, whether a whole module is
  well formed as MLIR's core rules say (SSA values defined once, before their uses, in scope;
  uses of their definition's type; aliases defined once), and :func:`blank_locations`.
* :mod:`~llverify.ttgir.module`: :func:`parse_module` into a :class:`TTGIRModule` of
  :class:`Operation` (results, name, operands, types, location; on demand its signature,
  attributes, subscripts, words and regions), one operation read or rewritten
  (:func:`read_operation`, :func:`rewrite_operation`), and a module's header without its
  operations (:func:`read_module_header`, for any Triton release's output); an alias
  definition's name and value (:func:`alias_definition`).
* :mod:`~llverify.ttgir.spelling`: the Triton releases that print a text's spelling
  (:func:`spelling_releases`: ``triton_gpu.`` is 2.1-3.2, ``ttg.`` 3.3 and later, ...).

Encoding attributes (``#ttg.blocked<{...}>``) are kept as text here; ``llverify.encodings``
turns them into layouts.  An operation without a location sits at its line and
:attr:`Operation.column` (how ``llverify.emitted`` maps debug locations to the harness).

Examples:
    >>> module = parse_module('module attributes {"ttg.num-warps" = 4 : i32} {\\n'
    ...     '  %1 = ttg.memdesc_index %0[%c] : !ttg.memdesc<3x64x64xf16, #ttg.swizzled_shared<'
    ...     '{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory> -> '
    ...     '!ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, '
    ...     'maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory>\\n}')
    >>> op = module.ops[0]
    >>> module.num_warps, op.name, op.subscripts, op.operand_types[0].shape
    (4, 'ttg.memdesc_index', (('%c',),), (3, 64, 64))
"""

from llverify.ttgir.attributes import Attributes, ModuleAttributes, parse_attribute_dict
from llverify.ttgir.locations import FileLocation, replace_locations
from llverify.ttgir.module import (
    Block,
    ModuleHeader,
    Operation,
    Region,
    TTGIRModule,
    alias_definition,
    parse_module,
    read_aliases,
    read_module_header,
    read_operation,
    read_signatures,
    rewrite_operation,
)
from llverify.ttgir.spelling import spelling_releases
from llverify.ttgir.syntax import ModuleError, balanced_end, integer_literal, split_top
from llverify.ttgir.types import (
    Type,
    encoding_name,
    integer_bits,
    mentioned_types,
    parse_dims,
    parse_signature,
    parse_type,
    type_text,
)
from llverify.ttgir.wellformed import blank_locations, check_wellformed
from llverify.ttgir.whole import check_whole

__all__ = [
    "Attributes",
    "Block",
    "FileLocation",
    "ModuleAttributes",
    "ModuleError",
    "ModuleHeader",
    "Operation",
    "Region",
    "TTGIRModule",
    "Type",
    "alias_definition",
    "balanced_end",
    "blank_locations",
    "check_wellformed",
    "check_whole",
    "encoding_name",
    "integer_bits",
    "integer_literal",
    "mentioned_types",
    "parse_attribute_dict",
    "parse_dims",
    "parse_module",
    "parse_signature",
    "parse_type",
    "read_aliases",
    "read_module_header",
    "read_operation",
    "read_signatures",
    "replace_locations",
    "rewrite_operation",
    "spelling_releases",
    "split_top",
    "type_text",
]
