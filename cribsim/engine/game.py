"""One game: cut for the first deal, then deals until a side reaches the target."""

from dataclasses import dataclass

from ..cards import RANK
from ..rng import CUT_FOR_DEAL, rng_at
from .phases import Deal
from .state import MAX_DEALS, GameOver, GameState


@dataclass
class GameResult:
    winner: int  # winning side
    scores: tuple  # final score by side (may pass the target, R-SHOW-2)
    first_dealer: int
    deals: int
    by_role: list  # points by role (0 = dealer, 1 = dealer's left, ...) and source
    events: list = None
    sides: tuple = None  # this game's sides when a plug-in changed them (V-TEAM3), else None
    targets: tuple = None
    shared: tuple = None  # sides sharing the win (lowball's tied low scores), else None
    placings: tuple = None  # R-MATCH-5 continued play: the sides in the order they reached the target
    first_scores: tuple = None  # R-MATCH-5: the scores when the first winner went out

    def record(self, level):
        """The compact JSON row the tournament keeps per game: winner, scores, deals, first
        dealer, skunk level, points by role and source; then, only if there are any, a dict of
        extras (this game's own sides, shared winners, placings)."""
        row = [self.winner, list(self.scores), self.deals, self.first_dealer, level, self.by_role]
        extra = {}
        if self.sides is not None:  # V-TEAM3: this game's own sides
            extra["sides"] = [list(s) for s in self.sides]
        if self.shared is not None:  # V-LOWBALL: tied low scores
            extra["shared"] = list(self.shared)
        if self.placings is not None:  # R-MATCH-5
            extra["placings"] = list(self.placings)
        if extra:
            row.append(extra)
        return row


def cut_for_deal(rules, seed, address, events=None):
    """R-DEAL-1: every player cuts; lowest rank deals; only those tied for lowest cut again.
    Each round of cuts is drawn from a fresh deck addressed by (seed, address, round)."""
    contenders = list(range(rules.players))
    rnd = 0
    while True:
        rng = rng_at(seed, *address, CUT_FOR_DEAL, rnd)
        cuts = rng.sample(range(52), len(contenders))  # jokers are set aside for the cut
        if events is not None:
            from .events import Event
            for seat, c in zip(contenders, cuts):
                events.append(Event(-1, seat, 0, "cut", f"round {rnd + 1}", (c,)))
        low = min(RANK[c] for c in cuts)
        contenders = [s for s, c in zip(contenders, cuts) if RANK[c] == low]
        if len(contenders) == 1:
            return contenders[0]
        rnd += 1


def play_game(rules, strategies, seed, address, first_dealer=None, log=False, phases=None, counters=None):
    """Play one game. ``address`` is (match_key, game_index); decks are derived from it.
    ``first_dealer`` None means cut for it (R-DEAL-1). With ``log`` the result carries events."""
    events = [] if log else None
    if first_dealer is None:
        first_dealer = cut_for_deal(rules, seed, address, events)
    if counters and any(miss > 0 for miss, _ in counters):  # V-MUGGINS: imperfect counting
        from .counting import CountingState

        g = CountingState(rules, strategies, seed, address, first_dealer, [] if events is None else events, counters)
    else:
        g = GameState(rules, strategies, seed, address, first_dealer, events)
    g.seed_strategies()
    n = g.n
    phases = phases or rules.phases
    try:
        while g.deal_no < MAX_DEALS:
            play_deal(g, phases)
            g.dealer = (g.dealer + 1) % n  # the deal passes to the left
            g.deal_no += 1
        raise RuntimeError(f"game {address} did not end within {MAX_DEALS} deals")
    except GameOver as over:
        winner = rules.winner_of(over.side, g.scores)
        own = g.sides is not rules.sides
        return GameResult(winner, tuple(g.scores), first_dealer, g.deal_no + 1, g.by_role, events,
                          g.sides if own else None, g.game_targets if own else None,
                          rules.shared_winners(over.side, g.scores),
                          tuple(g.placed) if g.placed else None, g.first_scores)


def play_deal(g, phases=None):
    """One deal at ``g.deal_no`` with ``g.dealer`` dealing; raises GameOver on a win."""
    d = Deal(g.dealer, g.n)
    for phase in phases or g.rules.phases:
        phase(g, d)
    return d


def replay_deal(rules, strategies, seed, address, deal_no, dealer, scores, log=True, phases=None):
    """Replay one deal alone from its address and the scores before it: the same deck, hands
    and starter. Strategies play it afresh (their generators are seeded per game, so a random
    strategy's choices differ; a deterministic one's repeat). Returns (state, winning side or
    None)."""
    g = GameState(rules, strategies, seed, address, dealer, [] if log else None)
    g.seed_strategies()
    g.deal_no = deal_no
    g.scores = list(scores)
    try:
        play_deal(g, phases)
    except GameOver as over:
        return g, over.side
    return g, None
