"""assay: build, audit and run verifiable environments for LLM agents."""
