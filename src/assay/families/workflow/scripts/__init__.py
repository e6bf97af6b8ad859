"""Reference scripts of the generator's templates, one file each.

Each is a complete script with a parameter block (between ``# parameters`` and
``# end of parameters``) that the generator rewrites with a task's values; known-bad variants
are the same file with one documented change (see the templates).
"""
