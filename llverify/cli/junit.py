"""JUnit XML for the commands that write it (``prove --junit``, ``validate DIR --junit``): text
made safe for XML, and the file written atomically."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from llverify.errors import LLVerifyError

__all__ = ["clean", "write_xml"]

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold replaced by ``?``.

    Examples:
        >>> clean("a\\x00b")
        'a?b'
    """
    return _XML_INVALID.sub("?", text)


def write_xml(path: str, root: ET.Element, option: str = "--junit") -> None:
    """Write the tree ``root`` to ``path`` atomically (a file beside it, then renamed), so a
    reader never sees half a report.  Raises LLVerifyError naming ``option`` and the path
    when it cannot be written."""
    import tempfile  # here: it pulls in random and hashlib, which --help does not need

    target = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        with os.fdopen(handle, "wb") as stream:
            ET.ElementTree(root).write(stream, encoding="utf-8", xml_declaration=True)
        os.replace(temporary, target)
    except OSError as error:
        if "temporary" in locals() and Path(temporary).exists():
            Path(temporary).unlink()
        raise LLVerifyError(f"{option}: cannot write '{path}': {error.strerror or error}") from None
