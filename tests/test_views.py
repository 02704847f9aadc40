"""Triton's layout views (tensor and hardware point of view), character for character
against Triton 3.9's C++ (``get_distributed_view`` / ``get_shared_view`` of its LinearLayout
binding), on seeded random layouts."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from cases.triton import require_triton
from llverify import LinearLayout
from llverify.errors import DimensionError
from llverify.views import distributed_view, layout_view, shared_view

WORKER = r"""
import json, sys
from triton._C.libtriton.linear_layout import LinearLayout as TLL
for case in json.loads(sys.stdin.read()):
    ll = TLL.from_bases([tuple(x) for x in case["bases"]], case["outs"], case["sizes"], False)
    view = ll.get_shared_view if case["shared"] else ll.get_distributed_view
    print(json.dumps([view(False), view(True)]), flush=True)
"""


def _random_layout(rng: random.Random, shared: bool) -> LinearLayout:
    rank = rng.choice([1, 2, 2, 3])
    log2s = [rng.randint(0, 3) for _ in range(rank)]
    while sum(log2s) < 2:
        log2s[rng.randrange(rank)] += 1
    units = [
        [1 << b if d == i else 0 for d in range(rank)] for i in range(rank) for b in range(log2s[i])
    ]
    rng.shuffle(units)

    def take(k: int) -> list[list[int]]:
        out = []
        for _ in range(k):
            if units and rng.random() < 0.9:
                out.append(units.pop())
            else:
                out.append([0] * rank)  # broadcast
        return out

    if shared:
        n_block = rng.choice([0, 0, 1])
        offsets = take(len(units) - n_block) if len(units) > n_block else take(len(units))
        offsets = [
            [v ^ w for v, w in zip(o, offsets[0])] if i > 0 and rng.random() < 0.3 else o
            for i, o in enumerate(offsets)
        ]
        blocks = take(n_block)
        bases = [("offset", offsets), ("block", blocks)]
    else:
        regs = take(rng.randint(0, len(units)))
        lanes = take(rng.randint(0, len(units)))
        warps = take(rng.randint(0, len(units)))
        blocks = take(len(units))
        bases = [("register", regs), ("lane", lanes), ("warp", warps), ("block", blocks)]
    outs = [f"dim{i}" for i in range(rank)]
    return LinearLayout.from_bases(bases, outs, [1 << b for b in log2s], require_surjective=False)


def test_views_match_triton() -> None:
    require_triton()
    rng = random.Random(5)
    layouts = [(_random_layout(rng, shared), shared) for shared in [False, True] * 150]
    layouts = [(ll, s) for ll, s in layouts if ll.is_surjective()]
    cases = [
        {
            "bases": [[d, [list(b) for b in bs]] for d, bs in ll.bases],
            "outs": ll.get_out_dim_names(),
            "sizes": ll.get_out_dim_sizes(),
            "shared": shared,
        }
        for ll, shared in layouts
    ]
    out = subprocess.run(
        [sys.executable, "-c", WORKER], input=json.dumps(cases), capture_output=True, text=True
    )
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("[")]
    assert len(answers) == len(cases), out.stderr[-2000:]
    compared = 0
    for (ll, shared), (tensor, hardware) in zip(layouts, answers):
        view = shared_view if shared else distributed_view
        try:
            ours = view(ll), view(ll, hardware=True)
        except DimensionError:
            continue  # a shared layout with fewer offsets than elements per block
        assert ours == (tensor, hardware), (ll, ours, tensor, hardware)
        compared += 1
    assert compared >= 200


def test_shared_view_example_and_dispatch() -> None:
    ll = LinearLayout.from_bases(
        [("offset", [[0, 1], [0, 2], [1, 1]]), ("block", [])], ["dim0", "dim1"]
    )
    assert shared_view(ll) == "[[(0:0),(0:1),(0:2),(0:3)]\n[ (1:1),(1:0),(1:3),(1:2)]]\n"
    assert layout_view(ll, hardware=True).startswith("Block: 0:\nOffset: 0 -> (0,0)\n")
    with pytest.raises(DimensionError, match="in dims"):
        shared_view(LinearLayout.identity_1d(4, "lane", "dim0"))


def test_windows_are_whole_lines_of_the_full_view() -> None:
    """With ``max_cells``, a view is the full view's first lines (at most max_cells cells,
    at least one line) and a line saying how many cells were left out."""
    rng = random.Random(7)
    checked = 0
    for shared in [False, True] * 60:
        ll = _random_layout(rng, shared)
        view = shared_view if shared else distributed_view
        for hardware in (False, True):
            try:
                full = view(ll, hardware)
            except DimensionError:
                continue
            assert view(ll, hardware, max_cells=1 << 20) == full
            for max_cells in (1, 3, 8):
                window = view(ll, hardware, max_cells=max_cells)
                if window == full:
                    continue
                *kept, last = window.splitlines(keepends=True)
                assert full.startswith("".join(kept)) and kept
                assert last.startswith("... ") and " more cells not shown (" in last
                shown, total = map(int, last.rsplit("(", 1)[1].rstrip(")\n").split(" of "))
                assert shown < total and (shown <= max_cells or len(kept) <= 3)
                checked += 1
    assert checked > 50
    with pytest.raises(ValueError, match="max_cells"):
        distributed_view(LinearLayout.identity_1d(4, "lane", "dim0"), max_cells=0)
