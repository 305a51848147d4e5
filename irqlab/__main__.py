import sys

from irqlab.cli import main

sys.exit(main())
