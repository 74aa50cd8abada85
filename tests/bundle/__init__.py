"""Evidence bundles and the acknowledgement journal (pipeline.bundle)."""
