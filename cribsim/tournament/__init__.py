"""Tournaments: experiment configs -> schedule -> runner (serial | Ray) -> results -> report.

Each step is one module; nothing downstream reaches back upstream. The engine knows nothing of
Ray; the runner knows nothing of cribbage rules; the report reads only result files."""
