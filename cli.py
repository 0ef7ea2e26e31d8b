"""Shim so that ``python cli.py index && python cli.py eval --method react`` works from a checkout; the
command line itself is ``nomos.cli`` (installed as the ``nomos`` script)."""

from nomos.cli import main

if __name__ == "__main__":
    main()
