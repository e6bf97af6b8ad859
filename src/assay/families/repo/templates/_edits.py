"""Edits built from a change's own: a known-bad that adds a feature wrongly starts from the
feature put back."""

from __future__ import annotations

from assay.families.repo.templates._model import Replace


def put_back(undo: tuple[Replace, ...]) -> tuple[Replace, ...]:
    """The edits that turn a change's workspace back into the correct project: each of
    ``undo``'s replacements reversed, last first. (Applying them raises ValueError where a
    replacement's new text is not unique in the workspace.)"""
    return tuple(Replace(edit.path, edit.new, edit.old) for edit in reversed(undo))
