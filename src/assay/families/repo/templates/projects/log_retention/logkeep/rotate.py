"""Carrying out a plan in a directory."""

import gzip
import os


def compress_file(path, target):
    """Gzip ``path`` into ``target`` and remove it. mtime 0: same input, same archive."""
    with open(path, "rb") as handle:
        data = handle.read()
    with open(target, "wb") as handle:
        handle.write(gzip.compress(data, mtime=0))
    os.remove(path)


def carry_out(actions, directory):
    """Do ``actions`` (see plan.plan) in ``directory``, in order."""
    for verb, name, target in actions:
        path = os.path.join(directory, name)
        if verb == "rotate":
            # copy and truncate: the application keeps its file handle open
            with open(path, "rb") as handle:
                data = handle.read()
            with open(os.path.join(directory, target), "wb") as handle:
                handle.write(data)
            open(path, "wb").close()
        elif verb == "compress":
            compress_file(path, os.path.join(directory, target))
        elif verb == "delete":
            os.remove(path)
