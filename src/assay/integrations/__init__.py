"""Where assay meets trainers: exports of tasks and trajectories as training data."""

from __future__ import annotations
