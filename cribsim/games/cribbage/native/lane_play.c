/* lane_play.c: the discard (R-DEAL-3) and the play (R-PEG-1..5, V-FIVECARD's play to 31 once,
 * V-JOKERS' named cards), and expert's scripted replay of a play.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* R-DEAL-3: ``seat`` lays ``thrown`` (k cards it holds) away to the crib, each removed from its
 * hand in order (list.remove). */
static void lay_away(Game *g, int seat, const int *thrown, int k) {
    int *hand = g->hands[seat], m = g->hlen[seat];
    memcpy(g->thrown[seat], thrown, sizeof(int) * (size_t)k);
    g->nthrown[seat] = k;
    for (int t = 0; t < k; t++) {
        int c = thrown[t], at = 0;
        while (hand[at] != c) at++;
        memmove(hand + at, hand + at + 1, sizeof(int) * (size_t)(m - at - 1));
        m--;
        g->crib[g->clen++] = c;
    }
    g->hlen[seat] = m;
}

/* The cards ``seat`` lays away this deal (R-DEAL-2). */
static int discards_of(const Game *g, int seat) {
    return (int)(seat == g->dealer ? g->r->dealer_discard : g->r->discard);
}

/* One seat's discard, as its strategy chooses (R-DEAL-2/3). */
static void discard_seat(Game *g, int seat) {
    int k = discards_of(g, seat);
    g->nthrown[seat] = 0;
    if (!k) return;
    int *hand = g->hands[seat], m = g->hlen[seat];
    int thrown[MAXH];
    g->asked++;
    int must = fives_rule(g, hand, m, k);
    if (g->kinds[seat] == GREEDY) greedy_discard(g, seat, k, must, thrown);
    else if (g->kinds[seat] == EV) ev_discard(g, seat, k, must, g->ev[seat], thrown);
    else if (g->kinds[seat] == HOYLE) hoyle_discard(g, seat, k, must, thrown);
    else random_discard(g, seat, hand, m, k, must, thrown);
    lay_away(g, seat, thrown, k);
}

static void discard(Game *g) { /* R-DEAL-2/3, seats in order */
    if (g->r->canadian) {
        canadian_passes(g);
        return;
    }
    for (int seat = 0; seat < g->n; seat++) discard_seat(g, seat);
}

/* A seat's card to lay, and in *shown the card it counts as (V-JOKERS: a joker is named). */
static int choose_play(Game *g, int seat, const int *hand, int hn, const int *legal, int nlegal, const int *ranks,
                       int nranks, int count, const Played *pl, int *shown) {
    MT *rng = &g->rng[seat];
    if (g->kinds[seat] == RANDOM) {
        int c = *shown = legal[(int)(mt_random(rng) * (double)nlegal)], names[13];
        if (c >= WILD) { /* random_play: a random name that fits */
            int m = play_names((int)g->r->limit - count, names);
            *shown = names[(int)(mt_random(rng) * (double)m)];
        }
        return c;
    }
    if (g->kinds[seat] == EV) return ev_play(g, seat, hand, hn, legal, nlegal, ranks, nranks, count, pl, shown);
    if (g->kinds[seat] == HOYLE) return hoyle_play(g, hand, hn, legal, nlegal, ranks, nranks, count, shown);
    int cbuf[MAXOPT], sbuf[MAXOPT], choices[MAXOPT], nchoices = 0, have = 0;
    const int *card, *as;
    int nopt = play_options(g->r, legal, nlegal, count, cbuf, sbuf, &card, &as);
    int64_t best = 0;
    int trial[MAXPILE];
    memcpy(trial, ranks, sizeof(int) * (size_t)nranks);
    for (int i = 0; i < nopt; i++) {
        trial[nranks] = rank_of(as[i]);
        int64_t pts = peg_points(g->r, trial, nranks + 1, count + value_of(as[i])) * g->r->objective;
        if (!have || pts > best) { best = pts; nchoices = 0; have = 1; }
        if (pts == best) choices[nchoices++] = i;
    }
    int chosen = choices[(int)(mt_random(rng) * (double)nchoices)];
    *shown = as[chosen];
    return card[chosen];
}

/* expert's replay of the play so far (strategies/expert.py _Script): every seat lays the card
 * it really laid, and at each of the other player's decisions ev's one-ply rule, asked with the
 * real card's rank first among the legal cards, must lay that rank, but for a ``slack`` chance
 * drawn from the strategy's own generator. */
struct Script {
    int seats[MAXC], cards[MAXC], nlaid, at, other;
    double slack;
    PyMT *mt; /* the strategy's generator's state */
};

/* The scripted card for ``seat`` in *c; 0, REFUSED or REPLAYED. */
static int scripted(Game *g, int seat, const int *hand, int hn, const int *legal, int nlegal, const int *ranks,
                    int nranks, int count, const Played *pl, int *c) {
    struct Script *sc = g->script;
    if (sc->at == sc->nlaid) return seat == sc->other ? REFUSED : REPLAYED;
    int card = sc->cards[sc->at], ok = 0;
    for (int i = 0; i < nlegal; i++) ok |= legal[i] == card;
    if (sc->seats[sc->at] != seat || !ok) return REFUSED; /* a go the supposed hand would not have said */
    if (seat == sc->other) {
        int first[MAXH], k = 0, rank = rank_of(card);
        for (int i = 0; i < nlegal; i++)
            if (rank_of(legal[i]) == rank) first[k++] = legal[i];
        for (int i = 0; i < nlegal; i++)
            if (rank_of(legal[i]) != rank) first[k++] = legal[i];
        int as; /* (no jokers here: the reading is for a 52-card deck) */
        if (rank_of(ev_play(g, seat, hand, hn, first, nlegal, ranks, nranks, count, pl, &as)) != rank) {
            if (pmt_random(sc->mt) >= sc->slack) return REFUSED;
        }
    }
    sc->at++;
    *c = card;
    return 0;
}

/* Where a play stands: the cards held and how many in all, whose turn, the count and the ranks
 * since the last reset, what has been laid this deal, the seats that said go since the last reset
 * and the lowest count at which each said go this deal (plus one; 0: none: what an environment's
 * observation shows, lane_env.c), and a card the root seat lays at its first decision (-1: none;
 * a rollout's candidate). */
typedef struct {
    int hands[MAXP][MAXH], hlen[MAXP], left;
    int turn, count, last, ranks[MAXPILE], nranks;
    Played pl;
    unsigned said_go;
    int go_low[MAXP];
    int root, first, first_as; /* first_as: the card ``first`` counts as (a joker's name; -1: itself) */
} PlayState;

/* The points of a card laid (``pts``, at ``count``) as scoring.peg_breakdown's items under a
 * counting model: the fifteen, the hit, the pair or run. 1 when the game is decided. */
static int peg_counted(Game *g, int seat, int64_t pts, int count) {
    const Rules *r = g->r;
    int64_t fifteen = count == r->fifteen_total ? r->fifteen : 0, hit = count == r->limit ? r->hit : 0;
    int64_t claimed = 0, lost = 0;
    split(g, seat, fifteen, 1, &claimed, &lost);
    split(g, seat, hit, 1, &claimed, &lost);
    split(g, seat, pts - fifteen - hit, 1, &claimed, &lost);
    return award_split(g, seat, claimed, lost, PEG);
}

enum { PLAY_OVER = -1, PLAY_DECIDED = -2 }; /* what play_turn says when no seat is to lay */

/* R-PEG-2/3: the seat to lay next and its legal cards, after the gos and resets on the way; or
 * PLAY_OVER once the play is over (R-PEG-4's last card given), or PLAY_DECIDED when a point
 * decided the game. */
static int play_turn(Game *g, PlayState *st, int *legal, int *nlegal) {
    const Rules *r = g->r;
    int n = g->n, limit = (int)r->limit;
    while (st->left) {
        int seat = st->turn, k = 0;
        if (st->hlen[seat] && st->count <= limit - 10) { /* the common case: any card fits */
            memcpy(legal, st->hands[seat], sizeof(int) * (size_t)st->hlen[seat]);
            *nlegal = st->hlen[seat];
            return seat;
        }
        int room = limit - st->count;
        for (int t = 0; t < n; t++) { /* R-PEG-2: the next seat holding a card that fits */
            if (st->hlen[seat]) {
                for (int i = 0; i < st->hlen[seat]; i++)
                    if (held_value(st->hands[seat][i]) <= room) legal[k++] = st->hands[seat][i];
                if (k) break;
                if (!(st->said_go >> seat & 1U)) { /* public: it holds nothing that fits */
                    st->said_go |= 1U << seat;
                    if (!st->go_low[seat] || st->count < st->go_low[seat] - 1) st->go_low[seat] = st->count + 1;
                }
            }
            seat = seat + 1 < n ? seat + 1 : 0;
        }
        if (k) {
            *nlegal = k;
            return seat;
        }
        /* R-PEG-3: one for the go, the count starts again (V-FIVECARD: the play ends) */
        if (r->go && award(g, st->last, r->go, PEG)) return PLAY_DECIDED;
        if (r->play_once) st->left = 0;
        st->count = 0, st->nranks = 0, st->said_go = 0;
        st->turn = st->last + 1 < n ? st->last + 1 : 0;
    }
    if (st->count && r->last_card && award(g, st->last, r->last_card, PEG)) return PLAY_DECIDED; /* R-PEG-4 */
    return PLAY_OVER;
}

/* ``seat`` lays ``c``, counted as ``as`` (R-PEG-3..5): 1 when the game is decided, else 0. */
static int play_lay(Game *g, PlayState *st, int seat, int c, int as) {
    const Rules *r = g->r;
    int *hand = st->hands[seat], at = 0;
    st->pl.by_rank[rank_of(c)]++, st->pl.by_seat[seat]++, st->pl.total++;
    while (hand[at] != c) at++;
    memmove(hand + at, hand + at + 1, sizeof(int) * (size_t)(st->hlen[seat] - at - 1));
    st->hlen[seat]--;
    st->left--;
    st->count += value_of(as);
    if (st->nranks == MAXPILE) return ILLEGAL; /* (cannot happen with a deal's cards) */
    st->ranks[st->nranks++] = rank_of(as);
    st->last = seat;
    int64_t pts = peg_points(r, st->ranks, st->nranks, st->count);
    if (pts && (g->counting ? peg_counted(g, seat, pts, st->count) : give(g, seat, pts, PEG))) return 1;
    if (st->count == r->limit) { /* the hit scored, never also the go (V-FIVECARD: the play ends) */
        if (r->play_once) st->left = 0;
        st->count = 0, st->nranks = 0, st->said_go = 0;
    }
    st->turn = seat + 1 < g->n ? seat + 1 : 0;
    return 0;
}

/* R-PEG-1..5 from ``st``: 1 when the game is decided, ILLEGAL when ``first`` is not legal. */
static int play_from(Game *g, PlayState *st) {
    int limit = (int)g->r->limit;
    st->left = 0;
    for (int s = 0; s < g->n; s++) st->left += st->hlen[s];
    for (;;) {
        int legal[MAXH], nlegal, seat = play_turn(g, st, legal, &nlegal);
        if (seat < 0) return seat == PLAY_DECIDED;
        int *hand = st->hands[seat], hn = st->hlen[seat], c, as = -1;
        g->asked++;
        if (st->first >= 0 && seat == st->root) { /* the rollout's candidate */
            c = st->first;
            as = st->first_as >= 0 ? st->first_as : c;
            st->first = st->first_as = -1;
            int ok = 0;
            for (int i = 0; i < nlegal; i++) ok |= legal[i] == c;
            if (!ok || (c >= WILD ? as >= WILD || value_of(as) > limit - st->count : as != c)) return ILLEGAL;
        } else if (g->script) {
            int code = scripted(g, seat, hand, hn, legal, nlegal, st->ranks, st->nranks, st->count, &st->pl, &c);
            if (code) return code;
        } else {
            c = choose_play(g, seat, hand, hn, legal, nlegal, st->ranks, st->nranks, st->count, &st->pl, &as);
        }
        if (as < 0) as = c; /* the card counts as itself (V-JOKERS: a joker as the card named) */
        int code = play_lay(g, st, seat, c, as);
        if (code) return code;
    }
}


/* The play at its first card (R-PEG-1): every seat holding its kept hand. */
static void play_start(const Game *g, PlayState *st) {
    memset(st, 0, sizeof *st);
    for (int s = 0; s < g->n; s++) {
        memcpy(st->hands[s], g->hands[s], sizeof(int) * (size_t)g->hlen[s]);
        st->hlen[s] = g->hlen[s];
        st->left += g->hlen[s];
    }
    st->turn = g->dealer + 1 < g->n ? g->dealer + 1 : 0;
    st->last = st->first = st->first_as = -1;
}

/* The play from its first card (R-PEG-1). */
static int play(Game *g) {
    PlayState st;
    play_start(g, &st);
    return play_from(g, &st);
}
