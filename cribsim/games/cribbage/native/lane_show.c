/* lane_show.c: the show (R-SHOW-1..2, V-JOKERS' best naming) and what follows each count:
 * V-BACKTEN, V-NINETEEN, and the after_count hooks of a designer's variant, called in Python.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* V-BACKTEN after a hand or crib is counted (its after_count): 1 when the game is decided. */
static int back_ten(Game *g, int seat, int64_t points, int source) {
    const Rules *r = g->r;
    if (!r->back_ten) return 0;
    if (r->back_ten == 1) { /* both: the crib owner is judged once both are counted */
        if (source == CRIB) {
            if (points || !g->zero_hand) return 0;
        } else if (points) {
            return 0;
        } else if (seat == g->crib_owner) {
            g->zero_hand = 1;
            return 0;
        }
    } else if (points) {
        return 0;
    }
    int side = (int)r->side_of[seat];
    int64_t down = g->scores[side] - 10, back = (down > r->score_floor ? down : r->score_floor) - g->scores[side];
    if (!back) return 0;
    add_metric(g, M_BACK_TEN, back);
    return award(g, seat, back, OTHER);
}

/* V-NINETEEN after a hand or crib is counted: a count of nothing gives each opposing side 1, in
 * turn from the counter's left. 1 when the game is decided. */
static int nineteen(Game *g, int seat, int64_t points) {
    const Rules *r = g->r;
    if (!r->nineteen || points) return 0;
    int done = 1 << r->side_of[seat];
    for (int i = 1; i < g->n; i++) {
        int s = (seat + i) % g->n, side = (int)r->side_of[s];
        if (done >> side & 1) continue;
        done |= 1 << side;
        add_metric(g, M_NINETEEN, 1);
        if (award(g, s, 1, OTHER)) return 1;
    }
    return 0;
}

#define GAME_CAPSULE "cribsim.lane.game"
#define DONE_CAPSULE "cribsim.lane.done" /* a game over: its state is gone */

/* A designer's after_count hooks, which have no port to C: lane.LaneHooks calls them in Python
 * with a state of this game (its scores, seats, cards, award: the hook_* functions below), and
 * answers whether the game is decided. A hook that raises stops the game with its exception.
 * 1 when the game is decided (or stopped). The GIL is held: games with hooks run with it. */
static int py_after_count(Game *g, int seat, int64_t points, int source) {
    PyObject *res = PyObject_CallFunction(g->hook, "OiLii", g->capsule, seat, (long long)points, source, g->deal_no);
    if (!res) {
        g->hook_failed = 1;
        return 1;
    }
    int decided = PyObject_IsTrue(res);
    Py_DECREF(res);
    if (decided < 0) g->hook_failed = 1;
    return decided != 0;
}

/* The variants' after_count hooks in the registry's order (back ten, then nineteen, then the
 * hooks of variants of one's own): 1 when the game is decided. */
static int after_count(Game *g, int seat, int64_t points, int source) {
    return back_ten(g, seat, points, source) || nineteen(g, seat, points) ||
           (g->hook && py_after_count(g, seat, points, source));
}

/* A hand or crib's ``pts`` to ``seat`` (phases.count_hand); under a counting model as
 * scoring.show_breakdown's items: each fifteen, pair and run, the flush, his nobs. 1 when the
 * game is decided. */
static int count_hand(Game *g, int seat, const int *hand, int n, int starter, int crib, int source, int64_t pts) {
    if (!pts) return 0;
    if (!g->counting) return give(g, seat, pts, source);
    const Rules *r = g->r;
    int all[MAXC + 1], suits = 0;
    RankParts p;
    for (int i = 0; i < n; i++) { all[i] = hand[i]; suits |= 1 << suit_of(hand[i]); }
    all[n] = starter;
    rank_parts(r, all, n + 1, &p);
    int64_t claimed = 0, lost = 0;
    split(g, seat, r->fifteen, p.fifteens, &claimed, &lost);
    split(g, seat, r->pair, p.pairs, &claimed, &lost);
    for (int i = 0; i < p.runs; i++) split(g, seat, r->run_card * p.run_len[i], p.run_ways[i], &claimed, &lost);
    split(g, seat, flush_part(r, suits, n, starter, crib), 1, &claimed, &lost);
    split(g, seat, r->nobs, nobs_held(hand, n, starter), &claimed, &lost);
    return award_split(g, seat, claimed, lost, source);
}

/* A hand or the crib counted for ``seat`` (jokers.count_hand: each named to the counter's
 * objective, a joker starter named ``fixed`` when the non-dealer named it), then the variants'
 * after_count hooks. 1 when the game is decided. */
static int count_and_after(Game *g, int seat, const int *hand, int n, int crib, int source, int fixed) {
    const Rules *r = g->r;
    int named[MAXC], starter = g->starter;
    int64_t pts;
    if (r->jokers) {
        pts = best_show(r, hand, n, starter, crib, (int)r->objective, fixed, named, &starter);
        hand = named;
    } else {
        pts = show_points(r, hand, n, starter, crib);
    }
    return count_hand(g, seat, hand, n, starter, crib, source, pts) || after_count(g, seat, pts, source);
}

/* V-JOKERS: a joker starter the non-dealer names, for everyone, as ``hand`` (the non-dealer's,
 * ``n`` cards) names it best; -1 where there is nothing to name. */
static int joker_named_by_pone(const Game *g, const int *hand, int n) {
    const Rules *r = g->r;
    int fixed = -1;
    if (r->joker_pone && g->starter >= WILD) best_show(r, hand, n, g->starter, 0, (int)r->objective, -1, NULL, &fixed);
    return fixed;
}

static int show(Game *g) { /* R-SHOW-1..7: from the dealer's left, the dealer, then the crib */
    const Rules *r = g->r;
    int n = g->n, crib = r->crib_flush_needs_starter ? SHOW_CRIB : SHOW_OPEN_CRIB, pone = (g->dealer + 1) % n;
    int fixed = joker_named_by_pone(g, g->hands[pone], g->hlen[pone]);
    g->zero_hand = 0;
    for (int i = 1; i <= n; i++) {
        int seat = (g->dealer + i) % n;
        if (count_and_after(g, seat, g->hands[seat], g->hlen[seat], 0, HAND, fixed)) return 1;
    }
    return count_and_after(g, g->crib_owner, g->crib, g->clen, crib, CRIB, fixed);
}

