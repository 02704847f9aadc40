"""What the subcommands write: ``--json`` reports (objects indented, short lists of numbers on
one line) and output files (``--record``, ``--junit``, ``draw -o``), each written atomically
(:func:`write_output`) to a target checked before the work starts (:func:`check_target`)."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from llverify.errors import LLVerifyError

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


def check_target(path: str | Path) -> str | None:
    """Why ``path`` cannot be written as an output file, or None when it can: something that
    is not a regular file is there (a FIFO would block the writer, a device must not be
    replaced), a symlink loop, a file or a folder without write permission.  For a missing
    parent folder, the nearest existing one must be writable (whether a missing folder is
    created is the command's choice: :func:`write_output` creates none).

    Examples:
        >>> check_target("/dev/null")
        "'/dev/null' is a device, not a regular file"
        >>> check_target("out/records.json") is None
        True
    """
    target = Path(path)
    try:
        info = os.stat(target)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return f"'{path}' is a symlink loop"
        if error.errno != errno.ENOENT:
            return f"cannot write '{path}': {error.strerror or error}"
        info = None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            return f"'{path}' is a directory, not a file to write"
        if stat.S_ISFIFO(info.st_mode):
            return f"'{path}' is a named pipe, not a regular file (it would block the writer)"
        if not stat.S_ISREG(info.st_mode):
            return f"'{path}' is a device, not a regular file"
        if not os.access(target, os.W_OK):
            return f"cannot write '{path}': permission denied"
    folder = Path(os.path.realpath(target)).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot write '{path}': '{folder}' is not a directory"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write '{path}': the folder '{folder}' is not writable"
    return None


def write_output(path: str | Path, data: bytes | str, option: str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically: into a new file beside it,
    flushed to the disk (fsync), then renamed over ``path``; a reader sees the old file or
    the whole new one, never part of it.  When anything fails (a full disk, an interrupt)
    the old file is left as it was and the temporary file removed; an OSError is raised as
    an LLVerifyError naming ``option`` and the path.  A symlink ``path`` keeps pointing where
    it did (the file it names is replaced); a new file gets the usual permissions (0666 less
    the umask), a replaced one keeps its own.  Folders are not created here: a missing one
    is an error (the caller creates it first where it should exist).

    Examples:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> write_output(f"{folder}/a.json", "{}\\n", "--record")
        >>> Path(folder, "a.json").read_text()
        '{}\\n'
        >>> write_output("/dev/null", "", "--junit")
        Traceback (most recent call last):
        ...
        llverify.errors.LLVerifyError: --junit: '/dev/null' is a device, not a regular file.
    """
    problem = check_target(path)
    if problem is not None:
        raise LLVerifyError(f"{option}: {problem}.")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target = Path(os.path.realpath(path))
    temporary: Path | None = None
    try:
        temporary, descriptor = _new_file_beside(target)
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
        temporary = None
        _sync_folder(target.parent)
    except OSError as error:
        raise LLVerifyError(
            f"{option}: cannot write '{path}': {error.strerror or error} (nothing was "
            "changed there)."
        ) from None
    finally:
        if temporary is not None:  # failed or interrupted: the old file stays as it was
            try:
                temporary.unlink()
            except OSError:
                pass


def _new_file_beside(target: Path) -> tuple[Path, int]:
    """A new, empty, hidden file in ``target``'s folder and its descriptor: mode 0666 less
    the umask, or ``target``'s mode when it exists."""
    while True:
        name = target.parent / f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        try:
            descriptor = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        try:
            os.chmod(descriptor, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(descriptor)
            name.unlink()
            raise
        return name, descriptor


def _sync_folder(folder: Path) -> None:
    """fsync ``folder``, so that the rename survives a crash (best effort: some file systems
    cannot open or sync a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
