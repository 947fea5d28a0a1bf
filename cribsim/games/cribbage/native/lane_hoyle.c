/* lane_hoyle.c: hoyle (strategies/hoyle.py): a club player's rules of thumb.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* ---- hoyle (strategies/hoyle.py): a club player's rules of thumb, the same floating-point
 * sums in the same order --------------------------------------------------------------------- */

/* cards.RANK, where a wild card's rank is -1 (hoyle reads it so: a joker is "next to" an ace). */
static int py_rank(int c) { return c < WILD ? rank_of(c) : -1; }

/* hoyle.crib_feel: what the thrown cards give a crib, by a player's sense. */
static double crib_feel(const int *thrown, int k) {
    double v = 0.0;
    for (int i = 0; i < k; i++) {
        if (py_rank(thrown[i]) == FIVE) v += 2.0;
        else if (held_value(thrown[i]) == 10) v += 0.5; /* ten-cards make fifteens with 5s */
    }
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++) {
            int a = thrown[i], b = thrown[j], d = abs(py_rank(a) - py_rank(b));
            if (py_rank(a) == py_rank(b)) v += 2.0;
            if (held_value(a) + held_value(b) == 15) v += 2.0;
            if (d == 1) v += 1.0;
            else if (d == 2) v += 0.5;
        }
    return v;
}

/* hoyle's half weight on the crib's feel: ours, or an opponent's. */
static double feel_weight(const Game *g, int seat) {
    return g->r->side_of[g->crib_owner] == g->r->side_of[seat] ? 0.5 : -0.5;
}

/* hoyle.discard: certain points kept (without the starter), the crib by feel, low cards for the
 * play; every keep in combinations order, the first best. */
static void hoyle_discard(Game *g, int seat, int k, int must, int *out) {
    const Rules *r = g->r;
    const int *hand = g->hands[seat];
    int n = g->hlen[seat], keep_n = n - k, idx[MAXH], keep[MAXH], thrown[MAXH], have = 0;
    double best = 0.0, w = feel_weight(g, seat);
    for (int i = 0; i < keep_n; i++) idx[i] = i;
    for (;;) {
        uint32_t kept = 0;
        int low = 0, nt = 0;
        for (int i = 0; i < keep_n; i++) { keep[i] = hand[idx[i]]; kept |= 1U << idx[i]; low += held_value(keep[i]) <= 4; }
        for (int i = 0; i < n; i++)
            if (!(kept >> i & 1U)) thrown[nt++] = hand[i];
        if (must < 0 || obeys(hand, n, kept, must)) {
            double v = (double)shown_value(r, keep, keep_n, -1, 0) + w * crib_feel(thrown, nt) + 0.01 * (double)low;
            v *= (double)r->objective; /* lowball: the same judgement, minimised */
            if (!have || v > best) { best = v, have = 1; memcpy(out, thrown, sizeof(int) * (size_t)nt); }
        }
        if (!next_combination(idx, keep_n, n)) break;
    }
}

/* hoyle.lead: from a pair or a low card, never a 5 (a lone joker led as a 4). */
static int hoyle_lead(const int *hand, int hn, const int *legal, int nlegal, int *shown) {
    int std[MAXH], ns = 0, pool[MAXH], np = 0, best = -1;
    for (int i = 0; i < nlegal; i++)
        if (legal[i] < WILD) std[ns++] = legal[i];
    if (!ns) { *shown = 3 * 4 + 3; return legal[0]; } /* card 15: the four of spades */
    for (int i = 0; i < ns; i++)
        if (rank_of(std[i]) != FIVE) pool[np++] = std[i];
    if (!np) memcpy(pool, std, sizeof(int) * (size_t)(np = ns));
    for (int i = 0; i < np; i++) { /* paired in hand: the lowest (value, card) */
        int same = 0, c = pool[i];
        for (int j = 0; j < hn; j++) same += py_rank(hand[j]) == rank_of(c);
        if (same >= 2 && (best < 0 || value_of(c) < value_of(best) || (value_of(c) == value_of(best) && c < best)))
            best = c;
    }
    if (best < 0) { /* low: the highest (value, card) under 5 */
        for (int i = 0; i < np; i++) {
            int c = pool[i];
            if (value_of(c) < 5 && (best < 0 || value_of(c) > value_of(best) || (value_of(c) == value_of(best) && c > best)))
                best = c;
        }
    }
    if (best < 0) { /* else: max by (not a ten-card, lowest value, highest card) */
        for (int i = 0; i < np; i++) {
            int c = pool[i], kc = value_of(c) != 10, kb = best < 0 ? 0 : value_of(best) != 10;
            if (best < 0 || kc > kb || (kc == kb && (-value_of(c) > -value_of(best) ||
                                                     (value_of(c) == value_of(best) && c > best))))
                best = c;
        }
    }
    *shown = best;
    return best;
}

/* hoyle.play: lead by hoyle_lead; else points now (10 each), and without points avoid a count of
 * 5 or 21, a count from 6 to 14 and a card next to the last; low cards kept for the go. */
static int hoyle_play(Game *g, const int *hand, int hn, const int *legal, int nlegal, const int *ranks, int nranks,
                      int count, int *shown) {
    const Rules *r = g->r;
    if (count == 0) return hoyle_lead(hand, hn, legal, nlegal, shown);
    int cbuf[MAXOPT], sbuf[MAXOPT], trial[MAXPILE + 1], choice = legal[0], have = 0;
    const int *card, *as;
    int nopt = play_options(r, legal, nlegal, count, cbuf, sbuf, &card, &as);
    double best = 0.0;
    memcpy(trial, ranks, sizeof(int) * (size_t)nranks);
    *shown = legal[0];
    for (int i = 0; i < nopt; i++) {
        int c = as[i], cnt = count + value_of(c), rk = rank_of(c), last = ranks[nranks - 1];
        trial[nranks] = rk;
        int64_t pts = peg_points(r, trial, nranks + 1, cnt);
        double v = (double)(10 * pts);
        if (!pts) {
            if (cnt == 5 || cnt == 21) v -= 5;
            if (5 < cnt && cnt < 15) v -= 1; /* leaves a fifteen within reach */
            if (rk == last + 1 || rk == last - 1) v -= 0.5; /* invites a run */
        }
        v += 0.01 * (double)value_of(c); /* keep low cards for the go */
        v *= (double)r->objective;
        if (!have || v > best) { best = v, choice = card[i], *shown = c, have = 1; }
    }
    return choice;
}

/* hoyle.bid: a crib is worth about 3 plus the feel of the best pair to throw. */
static double hoyle_bid_worth(const Game *g, int seat) {
    const int *hand = g->hands[seat];
    int n = g->hlen[seat], have = 0;
    double best = 0.0;
    for (int i = 0; i < n - 1; i++)
        for (int j = i + 1; j < n; j++) {
            int two[2] = {hand[i], hand[j]};
            double f = crib_feel(two, 2);
            if (!have || f > best) best = f, have = 1;
        }
    return 3 + best;
}

