"""``python -m nomos.cli``."""

from nomos.cli import main

main()
