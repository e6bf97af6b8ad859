"""Tasks: the model, task directories on disk, content versions and task sets."""

from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits, Split, TaskSpec
from assay.tasks.taskdir import load_task, save_task
from assay.tasks.taskset import LoadFailure, TaskSet

__all__ = [
    "Files",
    "Limits",
    "LoadFailure",
    "Split",
    "Task",
    "TaskSet",
    "TaskSpec",
    "load_task",
    "save_task",
]
