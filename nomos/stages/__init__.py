"""The stages the CLI and the portal run, composed from the packages: index a dataset, search, evaluate, tune,
compare and report. ``cli.py`` only parses options and calls these; the portal calls the same functions, so a
query is answered the same way wherever it comes from."""
