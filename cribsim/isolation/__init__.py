"""Plug-in strategies run isolated: each decision of a ``module:Class`` that is not a built-in is
answered in a process of its own (one per worker process, lineup entry and seat), over the player
protocol (:mod:`.protocol`: JSON lines, language-neutral), so a plug-in cannot reach the engine's
objects, and its hangs, crashes and bad answers are forfeits charged to it. Built-ins, and
plug-ins an experiment marks ``trusted: true``, play in-process as before."""

from .link import Link, close_all
from .plugin import Isolated, PluginFault, check, is_plugin, timeout_message
from .protocol import PROTOCOL

__all__ = ["PROTOCOL", "Isolated", "Link", "PluginFault", "check", "close_all", "is_plugin", "timeout_message"]
