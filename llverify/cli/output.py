"""The subcommands' ``--json`` reports: objects indented, short lists of numbers on one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

#: A list without objects whose JSON fits in this many characters stays on one line.
_INLINE = 80


def to_json(value: Any, default: Callable[[Any], Any] | None = None) -> str:
    """``value`` as JSON indented by 2, as ``json.dumps(value, indent=2)`` reads, but a list
    of scalars (bases, shapes, offsets), or a short list of such lists, is written on one
    line instead of one number a line. ``default`` is json's.

    Examples:
        >>> print(to_json({"bases": {"lane": [[0, 1], [1, 0]]}, "shape": [128, 64], "ok": True}))
        {
          "bases": {
            "lane": [[0, 1], [1, 0]]
          },
          "shape": [128, 64],
          "ok": true
        }
        >>> json.loads(to_json({"a": [[1] * 50, [2]]})) == {"a": [[1] * 50, [2]]}
        True
    """

    def compact(item: Any) -> str:
        return json.dumps(item, default=default)

    def render(item: Any, level: int) -> str:
        if isinstance(item, (list, tuple)):
            item = list(item)
            flat = compact(item)
            if not _has_object(item) and (_scalars(item) or len(flat) <= _INLINE):
                return flat
            inner = "  " * (level + 1)
            rows = [inner + render(x, level + 1) for x in item]
            return "[\n" + ",\n".join(rows) + "\n" + "  " * level + "]"
        if isinstance(item, dict):
            if not item:
                return "{}"
            inner = "  " * (level + 1)
            rows = [
                f"{inner}{compact(key if isinstance(key, str) else str(key))}: "
                f"{render(x, level + 1)}"
                for key, x in item.items()
            ]
            return "{\n" + ",\n".join(rows) + "\n" + "  " * level + "}"
        if default is not None and not isinstance(item, (str, int, float, bool, type(None))):
            return render(default(item), level)
        return compact(item)

    return render(value, 0)


def _scalars(items: list[Any]) -> bool:
    return all(not isinstance(x, (list, tuple, dict)) for x in items)


def _has_object(item: Any) -> bool:
    if isinstance(item, dict):
        return True
    return isinstance(item, (list, tuple)) and any(_has_object(x) for x in item)
