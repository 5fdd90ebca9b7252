"""Tools around the detectors: the ``halguard`` command line, benchmarks, metrics and text rendering."""
