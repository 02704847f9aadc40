"""JUnit XML for the commands that write it (``prove --junit``, ``validate DIR --junit``): text
made safe for XML, and the file written atomically."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

from llverify.cli.output import write_output

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
    """Write the tree ``root`` to ``path`` atomically (:func:`llverify.cli.output.write_output`:
    a file beside it, synced, then renamed), so a reader never sees half a report and a
    failed write leaves the old one.  Raises LLVerifyError naming ``option`` and the path
    when it cannot be written."""
    buffer = io.BytesIO()
    ET.ElementTree(root).write(buffer, encoding="utf-8", xml_declaration=True)
    write_output(path, buffer.getvalue(), option)
