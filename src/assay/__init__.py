"""assay: build, audit and run verifiable environments for LLM agents."""

__version__ = "0.1.0"
