"""Every proof job and every mutant, in the order they run."""

from . import clic


def all_jobs():
    return clic.jobs()
