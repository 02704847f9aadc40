"""The simulator's error base class: input it refuses, as opposed to code it does not model."""

from __future__ import annotations

__all__ = ["SimError"]


class SimError(Exception):
    """Base class of the errors the simulator raises on input it cannot use (LLVM IR it cannot
    read).  Code it reads but does not model is not an error: it raises
    :class:`~llverify.emitted.sim.symbolic.Unmodelled` and the verdict is unknown."""
