"""The state of one game: scores by side, the dealer, tallies, and the award of points."""


from ..rng import STRATEGY, derive
from .events import SOURCES, Event
from ..strategy import Observation

MAX_DEALS = 10_000  # a safety net for variants with penalties; standard games last ~9 deals


def _side_of(sides, n):
    out = [0] * n
    for i, side in enumerate(sides):
        for seat in side:
            out[seat] = i
    return tuple(out)


class GameOver(Exception):
    """Raised the instant a side reaches the target (R-SHOW-2): nothing after it is scored."""

    def __init__(self, side):
        self.side = side


class GameState:
    """Mutable state of one game in progress. ``events`` is a list when a log is kept."""

    def __init__(self, rules, strategies, seed, address, dealer, events=None):
        self.rules = rules
        self.n = rules.players
        # the sides and targets of this game: the rules' own, or a plug-in's for game g
        # (V-TEAM3: the lone seat changes game by game)
        self.sides, self.targets = rules.game_layout(address[1] if len(address) > 1 else 0)
        self.side_of = rules.side_of if self.sides is rules.sides else _side_of(self.sides, self.n)
        self.target = self.targets[0]
        self.game_targets = self.targets
        self.places = rules.match.places(len(self.sides))  # sides to place before the game ends
        self.placed, self.first_scores = [], None
        self.strategies = strategies
        self.play_fns = [s.play for s in strategies]
        self.seed = seed
        self.address = tuple(address)  # (match_key, game)
        self.dealer = dealer
        self.deal_no = 0
        self.scores = [0] * len(self.sides)
        self.events = events
        # points by role (0 = dealer, 1 = left of dealer, ...) and source, over the game
        self.by_role = [[0] * len(SOURCES) for _ in range(self.n)]
        self.obs = [Observation(s, self.side_of[s], rules) for s in range(self.n)]
        for o in self.obs:
            o.side_of = self.side_of

    def seed_strategies(self):
        """Each seat's strategy generator is addressed per game (seeding per deal would cost a
        fifth of the engine's time); decks are addressed per deal."""
        for seat, strat in enumerate(self.strategies):
            strat.rng.seed(derive(self.seed, *self.address, STRATEGY, seat))

    def award(self, seat, points, source, reason="", cards=()):
        """Give ``points`` to ``seat``'s side; end the game if it reaches the target."""
        side = self.side_of[seat]
        self.scores[side] += points
        self.by_role[(seat - self.dealer) % self.n][source] += points
        if self.events is not None:
            self.events.append(Event(self.deal_no, seat, points, SOURCES[source], reason, tuple(cards)))
        if self.scores[side] >= self.targets[side]:
            self.reached(side)

    def award_items(self, seat, items, source):
        """Award a breakdown (from scoring.*_breakdown) as one scoring act, checked once."""
        total = 0
        side = self.side_of[seat]
        role = self.by_role[(seat - self.dealer) % self.n]
        for reason, pts, cards in items:
            total += pts
            self.events.append(Event(self.deal_no, seat, pts, SOURCES[source], reason, cards))
        self.scores[side] += total
        role[source] += total
        if self.scores[side] >= self.targets[side]:
            self.reached(side)

    def reached(self, side):
        """``side`` has just reached its target: the game ends (R-WIN-1), unless the match plays
        on for more places (R-MATCH-5 continued play): then the side is placed, its later
        points no longer matter, and the game ends when the last place is taken."""
        if self.places == 1:
            raise GameOver(side)
        if not self.placed:
            self.first_scores = tuple(self.scores)
        self.placed.append(side)
        self.targets = tuple(float("inf") if s in self.placed else t for s, t in enumerate(self.targets))
        if self.events is not None:
            self.events.append(Event(self.deal_no, -1, 0, "place", f"{len(self.placed)}", (side,)))
        if len(self.placed) >= self.places:
            raise GameOver(self.placed[0])

    def log(self, seat, action, reason="", cards=(), count=None):
        if self.events is not None:
            self.events.append(Event(self.deal_no, seat, 0, action, reason, tuple(cards), count))
