"""Speed measurements of the engines (``python -m benchmarks.run``)."""
