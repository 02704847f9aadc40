"""The named catalogue of atoms: look-up by name (CuTe's where CuTe has the atom, the ISA
instruction's otherwise, or an alias; case does not matter), by family, with close matches
for a misspelt name.

Examples:
    >>> get("SM80_16x8x16_F32F16F16F32")
    Traceback (most recent call last):
    ...
    llverify.atoms.catalogue.AtomError: unknown atom 'SM80_16x8x16_F32F16F16F32'; close matches: SM80_16x8x16_F32F16F16F32_TN, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x8_F32F16F16F32_TN
"""  # noqa: E501 - the doctest's output is one line

from __future__ import annotations

import difflib

from llverify.atoms import amd, block_scale, intel, nvidia, nvidia_copy, sparse, tcgen05
from llverify.atoms.catalogue import FAMILIES, Atom, AtomError
from llverify.errors import shown

__all__ = ["atoms", "get", "names"]

_CATALOGUE: dict[str, Atom] = {}
_ALIASES: dict[str, str] = {}


def _catalogue() -> dict[str, Atom]:
    """The atoms by name, built on first use from the vendor modules."""
    if not _CATALOGUE:
        nvidia_atoms = (
            *nvidia.atoms(),
            *sparse.atoms(),
            *block_scale.atoms(),
            *nvidia_copy.atoms(),
            *tcgen05.atoms(),
        )
        for atom in (*nvidia_atoms, *amd.atoms(), *intel.atoms()):
            if atom.name in _CATALOGUE:
                raise AssertionError(f"atom {atom.name} is defined twice")
            _CATALOGUE[atom.name] = atom
            for alias in (atom.name, *atom.aliases):
                _ALIASES[alias.lower()] = atom.name
    return _CATALOGUE


def _check_family(family: str | None) -> None:
    if family is not None and family not in FAMILIES:
        raise AtomError(f"Argument 'family' must be one of {list(FAMILIES)}, not {shown(family)}.")


def atoms(family: str | None = None) -> list[Atom]:
    """Every atom of the catalogue (of ``family``), in catalogue order.

    Examples:
        >>> len(atoms("ldmatrix")), atoms("ldmatrix")[0].name
        (14, 'SM75_U32x1_LDSM_N')
    """
    _check_family(family)
    return [a for a in _catalogue().values() if family is None or a.family == family]


def names(family: str | None = None) -> list[str]:
    """The atoms' names (of ``family``)."""
    return [a.name for a in atoms(family)]


def get(name: str) -> Atom:
    """The atom ``name`` (or one of its aliases; case does not matter); an unknown name is
    refused with the close matches."""
    if not isinstance(name, str):
        raise AtomError(f"Argument 'name' must be an atom name (str), not {shown(name)}.")
    catalogue = _catalogue()
    found = _ALIASES.get(name.lower())
    if found is not None:
        return catalogue[found]
    close = difflib.get_close_matches(name, list(catalogue), n=3, cutoff=0.6)
    hint = f"; close matches: {', '.join(close)}" if close else "; see 'llverify atoms list'"
    raise AtomError(f"unknown atom {name!r}{hint}")
