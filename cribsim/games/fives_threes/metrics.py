"""Per-variant summary columns for Fives and Threes, over the game records (hands as deals, the
first leader as the first dealer, the engine's tallies as named metrics)."""

from __future__ import annotations

from cribsim.records import Column

COLUMNS = (
    Column("games", "count"),
    Column("first leader wins", "rate", "first_dealer_won", plot=True),
    Column("hands/game", "mean", "deals", plot=True),
    Column("blocked hands", "ratio", "metrics.blocked"),
    Column("points/hand (all sides)", "ratio", "metrics.all_points"),
    Column("lay points/hand", "ratio", "metrics.placement_points"),
    Column("domino points/hand", "ratio", "metrics.domino_points"),
    Column("leader's side points/hand", "ratio", "metrics.leader_points"),
    Column("other side points/hand", "ratio", "metrics.other_points_per_side"),
    Column("cancelled events (exact finish)", "ratio", "metrics.cancelled", denominator="metrics.scoring_events",
           plot=True),
)
