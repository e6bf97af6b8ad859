"""Scripts of the red-team's reward hacks on workflow tasks, one file each (see ``exploits``)."""
