"""Statistics the benchmarks share. Percentiles are taken over all samples as they
were measured: no outlier is dropped, so a busy machine shows in p99."""


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
