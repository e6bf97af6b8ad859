"""The ``config`` family: Kubernetes configuration judged by what it means."""
