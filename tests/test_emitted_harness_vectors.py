"""The harness's own blocked layout moves whole 16-byte vectors (issue 26: the plumbing that
fills and empties shared memory was one element per instruction), and still covers the
tensor exactly as the one-element layout did."""

from __future__ import annotations

import re

import pytest

from llverify.emitted.harness import VECTOR_BYTES, _blocked


def _fields(text: str) -> dict[str, list[int]]:
    return {
        name: [int(v) for v in values.split(",")]
        for name, values in re.findall(r"(\w+) = \[([\d, ]+)\]", text)
    }


@pytest.mark.parametrize(
    ("shape", "element_bytes", "warps", "threads"),
    [
        ((128, 64), 2, 8, 32),
        ((128, 16), 2, 4, 32),
        ((16, 128), 2, 4, 32),
        ((64, 64), 4, 4, 32),
        ((256,), 1, 4, 32),
        ((32, 32, 8), 2, 4, 32),
        ((128, 128), 1, 4, 64),
    ],
)
def test_vectors_divide_the_last_dim_and_every_thread_holds_one(
    shape: tuple[int, ...], element_bytes: int, warps: int, threads: int
) -> None:
    fields = _fields(_blocked(shape, warps, threads, 1, element_bytes))
    vector = fields["sizePerThread"][-1]
    assert fields["sizePerThread"][:-1] == [1] * (len(shape) - 1)
    assert vector * element_bytes <= VECTOR_BYTES and shape[-1] % vector == 0
    elements = 1
    for extent in shape:
        elements *= extent
    assert elements >= vector * threads * warps  # no thread left without a whole vector
    covered = [s * t * w for s, t, w in zip(fields["sizePerThread"], fields["threadsPerWarp"],
                                           fields["warpsPerCTA"])]  # fmt: skip
    assert all(c <= extent for c, extent in zip(covered, shape))  # no element held twice
    assert fields["threadsPerWarp"][0] * _product(fields["threadsPerWarp"][1:]) == threads


def _product(values: list[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def test_a_large_tensor_gets_a_whole_vector_per_thread() -> None:
    assert "sizePerThread = [1, 8]" in _blocked((128, 64), 8, 32, 1, element_bytes=2)
    assert "sizePerThread = [1, 4]" in _blocked((128, 64), 8, 32, 1, element_bytes=4)


def test_small_tensors_and_unknown_elements_keep_one_element_per_thread() -> None:
    """The negative controls: too few elements for a vector in every thread, a last dim no
    vector divides, and no element size given: the one-element layout as before."""
    assert "sizePerThread = [1]," in _blocked((64,), 4, 32, 1, element_bytes=4)
    assert "sizePerThread = [1, 1]" in _blocked((128, 3), 4, 32, 1, element_bytes=2)
    assert "sizePerThread = [1, 1]" in _blocked((128, 64), 8, 32, 1)
