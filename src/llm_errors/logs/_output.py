"""The file a command writes (``report``'s page, ``suggest``'s rules): whole or not at all.

A command checks its ``--output`` before it reads anything (:func:`unwritable`),
and writes it only once the run has succeeded, to a temporary file beside it that
is then renamed (:func:`write_whole`): a failed or interrupted run never creates,
truncates or half-writes the file someone may open or share.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

__all__ = ["unwritable", "write_whole"]


def unwritable(output: str) -> str | None:
    """Why ``output`` cannot be written, if that is known before scanning (``-``: stdout)."""
    if output == "-":
        return None
    target = Path(output)
    if target.is_dir():
        return "is a directory"
    parent = target.parent
    if not parent.is_dir():
        return f"no directory {str(parent)!r}"
    return None


def write_whole(output: str, text: str) -> str | None:
    """Write ``text`` to ``output`` (``-``: stdout); why it could not be, if it could not.

    A file is written under a temporary name in its directory and renamed over
    ``output``, so it is either the old file or the whole new one; the temporary
    file is removed if anything (an error, Ctrl-C) stops the write.
    """
    if output == "-":
        sys.stdout.write(text)
        return None
    target = Path(output)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        return exc.strerror or str(exc)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    return None
