"""The errors that mean 'bad input or environment', reported in one line."""

from irqlab.bench import BenchError
from irqlab.boards.descriptor import BoardOptionError
from irqlab.boards.registry import UnknownBoard
from irqlab.flows import BoardBuildError
from irqlab.corebuild import CoreBuildError
from irqlab.fwimage import ImageError
from irqlab.host.capture import CaptureError
from irqlab.host.decode import TraceError
from irqlab.sim import BuildError
from irqlab.soc.cpus import UnknownCore

USER_ERRORS = (UnknownCore, UnknownBoard, CaptureError, TraceError, ImageError, BuildError, BenchError,
               BoardBuildError, BoardOptionError, CoreBuildError)
