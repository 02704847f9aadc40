"""A mutation corpus of the TTGIR fixtures: one-line type, SSA and alias edits of real modules.

Each :class:`Mutant` is a fixture with one edit of a kind:

* ``undefined``: an operand renamed to a value nothing defines;
* ``redefined``: an operation's result renamed to the result of an operation before it in the
  same block (still in scope);
* ``before-definition``: an operand renamed to a value defined by a later line of the block;
* ``outside-region``: after a region closes, an operand renamed to a value its body defined;
* ``result-number``: ``%x#N`` beyond the results of a multi-result operation;
* ``type-encoding``: one encoding alias of an operation's signature (``#blocked``) replaced by
  another of the module's aliases of the same family;
* ``type-shape``: the first dimension of one tensor type of a signature halved;
* ``alias``: an alias definition repeated (the same name defined twice).

And edits that keep the module valid (the negative controls, :data:`VALID_KINDS`):

* ``renamed``: a value renamed everywhere (its definition and every use) to a fresh name;
* ``alias-copy``: a new alias defined as an existing one's value, used in one signature in
  its place (the same attribute under another name).

The edits are deterministic (seeded per fixture and kind), so ids are stable.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TTGIR = ROOT / "tests" / "data" / "ttgir"
#: the fixtures in Triton 3.9's own spelling (the others are older releases' output)
FIXTURES = sorted(p for p in TTGIR.glob("*.ttgir") if p.name != "big_2000.ttgir")
KINDS = (
    "undefined",
    "redefined",
    "before-definition",
    "outside-region",
    "result-number",
    "type-encoding",
    "type-shape",
    "alias",
)
#: the kinds that edit SSA values or aliases (the others edit types)
SSA_KINDS = frozenset(KINDS) - {"type-encoding", "type-shape"}
#: edits that keep the module valid
VALID_KINDS = ("renamed", "alias-copy")

_OP = re.compile(r'^(\s*)(?:(%[\w$.-]+)(?::(\d+))?\s*=\s*)?"?([a-z_]\w*\.[\w.]+)"?')
_USE = re.compile(r"%[\w$.-]+(?:#\d+)?")
_LOC = re.compile(r"\s*loc\(.*$")
_ALIAS = re.compile(r"^(#[A-Za-z_][\w$-]*)\s*=\s*#(\w+\.\w+)")


@dataclass(frozen=True)
class Mutant:
    """One edited fixture: its id (``fixture:kind:n``), kind, text and the line edited."""

    id: str
    kind: str
    text: str
    line: int


@dataclass(frozen=True)
class _Op:
    index: int  # 0-based line index
    indent: int
    result: str | None
    count: int
    uses: tuple[str, ...]


def _ops(lines: list[str]) -> list[_Op]:
    ops = []
    for index, line in enumerate(lines):
        found = _OP.match(line)
        if found is None or found.group(4).startswith(("tt.func", "module")):
            continue
        body = _LOC.sub("", line[found.end() :])
        body = re.sub(r'"[^"]*"', '""', body)
        uses = tuple(u for u in _USE.findall(body) if u.startswith("%"))
        ops.append(_Op(index, len(found.group(1)), found.group(2), int(found.group(3) or 1), uses))
    return ops


def _replace_use(line: str, old: str, new: str) -> str:
    """``line`` with its first use of ``old`` (a whole name) after the ``=`` replaced."""
    start = line.find("=") + 1 if re.match(r"\s*%", line) else 0
    pattern = re.compile(re.escape(old) + r"(?![\w$.-])")
    found = pattern.search(line, start)
    assert found is not None, (line, old)
    return line[: found.start()] + new + line[found.end() :]


def _same_block(lines: list[str], a: int, b: int, indent: int) -> bool:
    """Whether lines ``a`` < ``b`` sit in one block: nothing between them is shallower or a
    closing brace at their depth."""
    for line in lines[a + 1 : b]:
        stripped = line.strip()
        depth = len(line) - len(line.lstrip())
        if stripped and (depth < indent or (depth == indent and stripped.startswith("}"))):
            return False
    return True


def _edits(lines: list[str], kind: str, rng: random.Random) -> Iterator[tuple[int, str]]:
    """Candidate edits of ``kind``: (line index, new line)."""
    ops = _ops(lines)
    if kind == "undefined":
        for op in ops:
            if op.uses:
                use = rng.choice(op.uses).split("#")[0]
                yield op.index, _replace_use(lines[op.index], use, use + "_undefined")
    elif kind == "redefined":
        for earlier, op in zip(ops, ops[1:]):
            if (
                op.result
                and op.count == 1
                and earlier.result
                and earlier.indent == op.indent
                and _same_block(lines, earlier.index, op.index, op.indent)
            ):
                line = lines[op.index]
                yield op.index, line.replace(op.result + " =", earlier.result + " =", 1)
    elif kind == "before-definition":
        for k, op in enumerate(ops):
            later = [
                o
                for o in ops[k + 1 : k + 6]
                if o.result
                and o.indent == op.indent
                and _same_block(lines, op.index, o.index, op.indent)
            ]
            if op.uses and later:
                use = op.uses[0].split("#")[0]
                yield op.index, _replace_use(lines[op.index], use, rng.choice(later).result or "")
    elif kind == "outside-region":
        for k, op in enumerate(ops):
            inner = [o for o in ops[:k] if o.result and o.indent > op.indent and o.index < op.index]
            if op.uses and inner and not _same_block(lines, inner[-1].index, op.index, op.indent):
                use = op.uses[0].split("#")[0]
                yield op.index, _replace_use(lines[op.index], use, inner[-1].result or "")
    elif kind == "result-number":
        for op in ops:
            for use in op.uses:
                if "#" in use:
                    name, _ = use.split("#")
                    yield op.index, _replace_use(lines[op.index], use, f"{name}#99")
    elif kind in ("type-encoding", "type-shape"):
        yield from _type_edits(lines, ops, kind, rng)
    elif kind == "alias":
        for index, line in enumerate(lines):
            if _ALIAS.match(line):
                yield index, line + "\n" + line
    elif kind == "renamed":
        for op in ops:
            if op.result and "#" not in op.result:
                yield op.index, op.result
    elif kind == "alias-copy":
        for index, line in enumerate(lines):
            found = _ALIAS.match(line)
            if found:
                yield index, found.group(1)


def _type_edits(
    lines: list[str], ops: list[_Op], kind: str, rng: random.Random
) -> Iterator[tuple[int, str]]:
    families: dict[str, list[str]] = {}
    for line in lines:
        found = _ALIAS.match(line)
        if found:
            families.setdefault(found.group(2), []).append(found.group(1))
    family_of = {name: family for family, names in families.items() for name in names}
    for op in ops:
        line = lines[op.index]
        colon = line.rfind(" : ")
        if colon < 0 or not op.uses:
            continue
        signature = _LOC.sub("", line[colon:])
        if kind == "type-encoding":
            found = [
                m
                for m in re.finditer(r"#[A-Za-z_][\w$-]*(?![\w.$-])", signature)
                if len(families.get(family_of.get(m.group(), ""), [])) > 1
            ]
            if not found:
                continue
            match = rng.choice(found)
            others = [n for n in families[family_of[match.group()]] if n != match.group()]
            start = colon + match.start()
            new = rng.choice(others)
            yield op.index, line[:start] + new + line[start + len(match.group()) :]
        else:
            found = list(re.finditer(r"tensor<(\d+)x", signature))
            if not found:
                continue
            match = rng.choice(found)
            size = int(match.group(1))
            start = colon + match.start(1)
            new = str(size // 2 if size > 1 else 2)
            yield op.index, line[:start] + new + line[start + len(match.group(1)) :]


def _valid_edit(lines: list[str], kind: str, index: int, name: str) -> list[str]:
    """The lines after a valid edit of ``kind`` of the value or alias ``name`` (defined on
    line ``index``)."""
    pattern = re.compile(re.escape(name) + r"(?![\w$.-])")
    if kind == "renamed":
        fresh = "%renamed_" + name[1:]
        return [pattern.sub(fresh, line) for line in lines]
    copy = name + "_copy"
    value = lines[index].split("=", 1)[1]
    out = lines[:index] + [lines[index], f"{copy} ={value}"] + lines[index + 1 :]
    for k in range(index + 2, len(out)):
        colon = out[k].rfind(" : ")
        if colon > 0 and pattern.search(out[k], colon):
            found = pattern.search(out[k], colon)
            assert found is not None
            out[k] = out[k][: found.start()] + copy + out[k][found.end() :]
            break
    return out


def mutants(per_kind: int = 3) -> list[Mutant]:
    """Up to ``per_kind`` mutants of each kind (:data:`KINDS`, then :data:`VALID_KINDS`) for
    each fixture of :data:`FIXTURES`."""
    out = []
    for path in FIXTURES:
        text = path.read_text()
        lines = text.split("\n")
        for kind in VALID_KINDS:
            rng = random.Random(f"{path.name}:{kind}")
            candidates = list(_edits(lines, kind, rng))
            for n, (index, name) in enumerate(
                rng.sample(candidates, min(per_kind, len(candidates)))
            ):
                edited = _valid_edit(lines, kind, index, name)
                out.append(
                    Mutant(f"{path.stem}:{kind}:{n + 1}", kind, "\n".join(edited), index + 1)
                )
        for kind in KINDS:
            rng = random.Random(f"{path.name}:{kind}")
            candidates = list(_edits(lines, kind, rng))
            rng.shuffle(candidates)
            seen = set()
            for index, new in candidates:
                if len(seen) >= per_kind or new == lines[index] or index in seen:
                    continue
                seen.add(index)
                edited = lines[:index] + [new] + lines[index + 1 :]
                out.append(
                    Mutant(f"{path.stem}:{kind}:{len(seen)}", kind, "\n".join(edited), index + 1)
                )
    return out
