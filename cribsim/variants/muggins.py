"""V-MUGGINS: points a player fails to claim may be claimed by an opponent who calls "muggins".
The counting itself (who overlooks, who notices) is a model of each player, set per lineup
entry (``miss_rate``, ``vigilance``); see ``cribsim.engine.counting``."""

MUGGINS = True
