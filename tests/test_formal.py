"""The formal proofs (formal/, docs/VERIFICATION.md): every property of the
CLIC and of the trace unit proven by k-induction on the Verilog their Migen
modules generate, the fast-interrupt extension's checked by bounded model
checking on the fastirq-native core's Verilog, and every mutant (a copy of that Verilog with one bug put
in) shown to FAIL the property meant to catch it, with a counterexample from
reset. One test per job; the failure message is the runner's line (the
assert that failed, the cycle, the folder kept under build/formal/)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from formal import clic, fastirq, tracer          # noqa: E402
from formal.catalog import all_jobs      # noqa: E402
from formal import sby                   # noqa: E402

JOBS = all_jobs()


def test_every_property_has_a_mutant():
    for mod in (clic, tracer, fastirq):
        caught = {group for _, group, *_ in mod.MUTANTS}
        assert set(mod.PROPERTIES) == caught, (mod.__name__, set(mod.PROPERTIES) - caught)


def test_mutations_apply_once_each():
    """Each mutation changes the generated Verilog (its pattern still matches)
    and the mutants differ from each other."""
    for mod in (clic, tracer, fastirq):
        v, _ = mod.generated()
        texts = set()
        for name, _, _, pattern, repl in mod.MUTANTS:
            m = clic.mutate(v, pattern, repl)
            assert m != v, name
            texts.add(m)
        assert len(texts) == len(mod.MUTANTS)


@pytest.mark.parametrize("job", JOBS, ids=[j.name for j in JOBS])
def test_formal(job):
    r = sby.run(job, timeout=600)
    print(r.line())
    assert r.ok, r.line()
