"""Every proof job and every mutant, in the order they run."""

from . import clic, fastirq, tracer


def all_jobs():
    """The jobs of make test (tests/test_formal.py)."""
    return clic.jobs() + tracer.jobs() + fastirq.jobs()


def deep_jobs():
    """Longer runs of the same properties: `python -m formal` only."""
    return fastirq.deep_jobs()
