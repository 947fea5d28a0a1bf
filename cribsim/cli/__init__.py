"""The command line (``cribsim COMMAND``): one module per group of commands, and the parser and
error boundary in :mod:`.main`."""
