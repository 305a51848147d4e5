"""Summary statistics of a list of cycle counts."""


def percentile(sorted_values, p):
    """Nearest-rank percentile (p in 0..100) of an already sorted list."""
    if not sorted_values:
        raise ValueError("no values")
    k = max(0, min(len(sorted_values) - 1, -(-p * len(sorted_values) // 100) - 1))
    return sorted_values[int(k)]


def summarize(values, clock_hz=None):
    """min, median, mean, p99, max, jitter (max - min), in cycles (and ns)."""
    v = sorted(values)
    if not v:
        return {"count": 0}
    out = {
        "count": len(v),
        "min": v[0],
        "median": percentile(v, 50),
        "mean": sum(v) / len(v),
        "p99": percentile(v, 99),
        "max": v[-1],
    }
    out["jitter"] = out["max"] - out["min"]
    if clock_hz:
        ns = 1e9 / clock_hz
        out["ns"] = {k: out[k] * ns for k in ("min", "median", "mean", "p99", "max", "jitter")}
    return out
