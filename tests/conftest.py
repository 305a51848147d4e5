import atexit
import glob
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))   # tests' own helpers (tracegen)

# Board builds write their reports into bitstreams/, whose reports are recorded
# results: the tests' builds go to a copy of it, so `make test` leaves the tree
# as it was (`make bitstream` records a build). Read at import by irqlab.paths.
if "IRQLAB_BITSTREAMS" not in os.environ:
    _ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _bitstreams = tempfile.mkdtemp(prefix="irqlab-bitstreams-")
    for _f in glob.glob(os.path.join(_ROOT, "bitstreams", "*.json")) + \
            glob.glob(os.path.join(_ROOT, "bitstreams", "*.md")):
        shutil.copy(_f, _bitstreams)
    os.environ["IRQLAB_BITSTREAMS"] = _bitstreams
    atexit.register(shutil.rmtree, _bitstreams, ignore_errors=True)
