"""The Triton release virtualenvs: one ``<folder>/<version>/bin/python`` per release.

``scripts/triton_releases.py FOLDER VERSION...`` makes them; ``validate --release VERSION`` and
``audit --emitted --release VERSION`` compile with them.  The folder is the environment
variable ``LLVERIFY_TRITON_RELEASES`` where set, else the per-user cache folder
``$XDG_CACHE_HOME/llverify/triton-releases`` (``~/.cache/llverify/triton-releases`` without
``XDG_CACHE_HOME``).

Examples:
    >>> release_pythons("/nonexistent")
    {}
    >>> releases_folder({"LLVERIFY_TRITON_RELEASES": "/data/triton-venvs"}).as_posix()
    '/data/triton-venvs'
    >>> releases_folder({"XDG_CACHE_HOME": "/var/cache"}).as_posix()
    '/var/cache/llverify/triton-releases'
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from llverify.errors import LLVerifyError

__all__ = ["ENV_VAR", "ReleaseError", "release_python", "release_pythons", "releases_folder"]

#: the environment variable naming the folder of release virtualenvs
ENV_VAR = "LLVERIFY_TRITON_RELEASES"


class ReleaseError(LLVerifyError, ValueError):
    """No virtualenv holds the Triton release asked for; the message names the folder searched
    and how to choose another."""


def releases_folder(environ: Mapping[str, str] | None = None) -> Path:
    """The folder of release virtualenvs: ``$LLVERIFY_TRITON_RELEASES``, else
    ``$XDG_CACHE_HOME/llverify/triton-releases`` (an absolute ``XDG_CACHE_HOME`` only, as the
    XDG spec says), else ``~/.cache/llverify/triton-releases``.  ``environ``: default
    ``os.environ``.

    Examples:
        >>> releases_folder({"XDG_CACHE_HOME": "relative"}) == releases_folder({})
        True
    """
    env = os.environ if environ is None else environ
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR])
    cache = env.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    return base / "llverify" / "triton-releases"


def release_pythons(root: str | None = None) -> dict[str, str]:
    """``{version: interpreter}`` of the release virtualenvs under ``root`` (default:
    :func:`releases_folder`), one ``<root>/<version>/bin/python`` each, oldest release first.

    >>> release_pythons("/nonexistent")
    {}
    """
    folder = Path(root) if root else releases_folder()
    if not folder.is_dir():
        return {}
    found = {}
    for venv in folder.iterdir():
        python = venv / "bin" / "python"
        if re.fullmatch(r"\d+\.\d+\.\d+", venv.name) and python.exists():
            found[venv.name] = str(python)
    return dict(sorted(found.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))))


def release_python(version: str, root: str | None = None) -> str:
    """The interpreter of the virtualenv holding Triton ``version`` under ``root`` (default:
    :func:`releases_folder`); a ReleaseError naming the folder searched when there is none.

    >>> release_python("3.2.0", "/nonexistent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llverify.triton.releases.ReleaseError: release='3.2.0': no virtualenv in /nonexistent (found: none); expected /nonexistent/3.2.0/bin/python (scripts/triton_releases.py makes it), or set LLVERIFY_TRITON_RELEASES to the folder holding the release virtualenvs.
    """  # noqa: E501
    releases = release_pythons(root)
    if version in releases:
        return releases[version]
    folder = Path(root) if root else releases_folder()
    raise ReleaseError(
        f"release={version!r}: no virtualenv in {folder} (found: "
        f"{', '.join(releases) or 'none'}); expected {folder / version / 'bin' / 'python'} "
        f"(scripts/triton_releases.py makes it), or set {ENV_VAR} to the folder holding the "
        "release virtualenvs."
    )
