"""Every proof job and every mutant, in the order they run."""

from . import clic, tracer


def all_jobs():
    return clic.jobs() + tracer.jobs()
