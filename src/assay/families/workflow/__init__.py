"""The workflow family: multi-step jobs against emulated cloud APIs, judged by final state."""

from assay.families.workflow.family import WorkflowFamily

__all__ = ["WorkflowFamily"]
