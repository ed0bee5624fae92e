"""`python -m attnlab ...` is the `attnlab` command (attnlab/cli.py)."""
import sys

from attnlab.cli import main

sys.exit(main())
