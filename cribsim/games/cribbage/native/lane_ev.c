/* lane_ev.c: ev (strategies/ev.py): its discard, bid, passes and inspection, and its one-ply play.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* ---- ev (strategies/ev.py), operation for operation: the same floating-point sums in the same
 * order, so that its ties fall the same way ------------------------------------------------- */

#define JACK 10
#define RB(rank) (1ULL << (3 * (rank)))

/* expect.rank_ev: the expected fifteens, pairs and runs of the kept ranks ``kkey`` over every
 * starter not among the held ranks ``hkey`` (keys without the 1 key_points adds). */
static double rank_ev(const Rules *v, uint64_t kkey, uint64_t hkey, int unseen) {
    MemoTable *t = memo_for(v);
    const int32_t *row = row_points(t, v, kkey + 1);
    int64_t total = 0;
    for (int r = 0; r < 13; r++) {
        int left = 4 - (int)((hkey >> (3 * r)) & 7);
        if (left) total += left * (row ? row[r] : memo_points(t, v, kkey + RB(r) + 1));
    }
    return (double)total / (double)unseen;
}

/* What ev's discard reads of a hand: its rank key, each card's nobs chance if kept, by suit. */
typedef struct {
    uint64_t hkey;
    int suit_held[4], unseen;
    double nob[MAXH], nobs_all;
} HandView;

static void view_hand(const Rules *v, const int *hand, int n, HandView *h) {
    int nonjack[4] = {0};
    memset(h, 0, sizeof *h);
    h->unseen = 52 - n;
    for (int i = 0; i < n; i++) {
        h->hkey += RB(rank_of(hand[i]));
        h->suit_held[suit_of(hand[i])]++;
        if (rank_of(hand[i]) != JACK) nonjack[suit_of(hand[i])]++;
    }
    for (int i = 0; i < n; i++) { /* a jack: starters of its suit that are not jacks */
        int s = suit_of(hand[i]);
        h->nob[i] = rank_of(hand[i]) == JACK ? (double)(v->nobs * (12 - nonjack[s])) / (double)h->unseen : 0.0;
        h->nobs_all += h->nob[i];
    }
}

/* ev's mean single-card crib value of ``k`` cards (ev.crib_value, ev._crib): added one by one
 * from 0.0, as in_order adds them, and divided by k (by 1 for none). */
static double single_mean(const EvTables *t, const int *cards, int k) {
    double sum = 0.0;
    for (int i = 0; i < k; i++) sum += t->single[rank_of(cards[i])];
    return sum / (k > 1 ? k : 1);
}

/* ev.two_card_values and best_pair: two players, two cards each, no discard rule, scored high. */
static void ev_pair(const Game *g, int seat, const EvTables *t, int *out) {
    const Rules *v = &t->val;
    const int *hand = g->hands[seat];
    int n = g->hlen[seat], keep_n = n - 2, fs = -1, bi = 0, bj = 1, have = 0;
    HandView h;
    view_hand(v, hand, n, &h);
    for (int s = 0; s < 4 && fs < 0; s++)
        if (h.suit_held[s] >= keep_n) fs = s; /* the only suit a flush can be */
    double bonus = fs >= 0 ? (double)flush_points(v, keep_n) +
                                 (double)(v->flush_starter * (13 - h.suit_held[fs])) / (double)h.unseen
                           : 0.0;
    const double *pt = g->r->side_of[g->crib_owner] == g->r->side_of[seat] ? t->own : t->opp;
    double best = 0.0;
    for (int i = 0; i < n - 1; i++) {
        int ci = hand[i], fi = fs >= 0 ? h.suit_held[fs] - (suit_of(ci) == fs) : -1;
        double ni = h.nobs_all - h.nob[i];
        for (int j = i + 1; j < n; j++) {
            int cj = hand[j];
            double x = rank_ev(v, h.hkey - RB(rank_of(ci)) - RB(rank_of(cj)), h.hkey, h.unseen) + ni - h.nob[j] +
                       pt[ci * 52 + cj];
            if (fi - (suit_of(cj) == fs) == keep_n) x += bonus; /* all kept cards of one suit (R-SHOW-6) */
            if (!have || x > best + 1e-9) { best = x, bi = i, bj = j, have = 1; }
        }
    }
    out[0] = hand[bi], out[1] = hand[bj];
}

static double expected_show(const Rules *v, const int *keep, int kn, const int *held, int hn, int crib);

/* ev._joker_value (V-JOKERS, approximately): the exact expected show of the standard cards kept,
 * plus wild_keep a joker kept; the crib value of the standard cards thrown, or wild_crib (for
 * us or against us) when a joker goes to the crib. */
static double joker_value(const Game *g, int seat, const EvTables *t, const int *hand, int n, uint32_t kept) {
    const Rules *r = g->r;
    int held[MAXH], keep[MAXH], thrown[MAXH], nh = 0, nk = 0, nt = 0, jk = 0, jt = 0;
    for (int i = 0; i < n; i++) {
        int c = hand[i], in = kept >> i & 1U;
        if (c < WILD) held[nh++] = c;
        if (c < WILD && in) keep[nk++] = c;
        else if (c < WILD) thrown[nt++] = c;
        else if (in) jk++;
        else jt++;
    }
    int mine = r->side_of[g->crib_owner] == r->side_of[seat];
    double x = nk ? expected_show(&t->val, keep, nk, held, nh, 0) : 0.0;
    x += t->wild_keep * (double)jk;
    if (jt) x += mine ? t->wild_crib : -t->wild_crib;
    else if (nt == 2 && r->players == 2) x += (mine ? t->own : t->opp)[thrown[0] * 52 + thrown[1]];
    else if (nt) x += mine ? single_mean(t, thrown, nt) : -single_mean(t, thrown, nt);
    return x;
}

/* ev._discard_jokers: the keep (combinations order) of the best joker_value, first best kept. */
static void ev_discard_jokers(const Game *g, int seat, int k, int must, const EvTables *t, int *out) {
    const int *hand = g->hands[seat];
    int n = g->hlen[seat], keep_n = n - k, idx[MAXH], have = 0;
    double best = 0.0;
    for (int i = 0; i < keep_n; i++) idx[i] = i;
    for (;;) {
        uint32_t kept = 0;
        for (int i = 0; i < keep_n; i++) kept |= 1U << idx[i];
        if (must < 0 || obeys(hand, n, kept, must)) {
            double x = (double)g->r->objective * joker_value(g, seat, t, hand, n, kept);
            if (!have || x > best + 1e-9) {
                best = x, have = 1;
                for (int i = 0, o = 0; i < n; i++)
                    if (!(kept >> i & 1U)) out[o++] = hand[i];
            }
        }
        if (!next_combination(idx, keep_n, n)) break;
    }
}

static int holds_joker(const int *hand, int n) {
    int any = 0;
    for (int i = 0; i < n; i++) any |= hand[i] >= WILD;
    return any;
}

/* ev.discard's general loop: any players and discards, a discard rule, lowball. */
static void ev_discard(const Game *g, int seat, int k, int must, const EvTables *t, int *out) {
    const Rules *r = g->r, *v = &t->val;
    const int *hand = g->hands[seat];
    int n = g->hlen[seat], keep_n = n - k, idx[MAXH], have = 0, mine = r->side_of[g->crib_owner] == r->side_of[seat];
    if (r->jokers && holds_joker(hand, n)) { ev_discard_jokers(g, seat, k, must, t, out); return; }
    if (k == 2 && r->players == 2 && must < 0 && r->objective > 0) { ev_pair(g, seat, t, out); return; }
    HandView h;
    view_hand(v, hand, n, &h);
    double bonus[4], best = 0.0;
    for (int s = 0; s < 4; s++)
        bonus[s] = (double)flush_points(v, keep_n) + (double)(v->flush_starter * (13 - h.suit_held[s])) / (double)h.unseen;
    for (int i = 0; i < k; i++) idx[i] = i;
    for (;;) { /* itertools.combinations(range(n), k): the cards thrown */
        uint32_t kept = (1U << n) - 1;
        for (int i = 0; i < k; i++) kept &= ~(1U << idx[i]);
        if (must < 0 || obeys(hand, n, kept, must)) {
            uint64_t kkey = h.hkey;
            double nobs = h.nobs_all, x;
            for (int i = 0; i < k; i++) { kkey -= RB(rank_of(hand[idx[i]])); nobs -= h.nob[idx[i]]; }
            x = rank_ev(v, kkey, h.hkey, h.unseen) + nobs;
            int ks = suit_of(hand[__builtin_ctz(kept)]), gone = 0;
            for (int i = 0; i < k; i++) gone += suit_of(hand[idx[i]]) == ks;
            if (h.suit_held[ks] - gone == keep_n) x += bonus[ks];
            if (k == 2 && r->players == 2) {
                x += (mine ? t->own : t->opp)[hand[idx[0]] * 52 + hand[idx[1]]];
            } else if (k) { /* ev.crib_value: the mean single-card value */
                int thrown[MAXH];
                for (int i = 0; i < k; i++) thrown[i] = hand[idx[i]];
                double mean = single_mean(t, thrown, k);
                x += mine ? mean : -mean;
            }
            if (r->objective < 0) x = -x; /* lowball: the keep worth least to us */
            if (!have || x > best + 1e-9) {
                best = x, have = 1;
                for (int i = 0; i < k; i++) out[i] = hand[idx[i]];
            }
        }
        if (!next_combination(idx, k, n)) break;
    }
}

/* What every seat has seen laid this deal (obs.played). */
typedef struct {
    int by_rank[14], by_seat[MAXP], total; /* by_rank[13]: jokers laid (V-JOKERS; never read) */
} Played;

#define MAXOPT (MAXH + 13)

/* V-JOKERS (jokers.play_names): the names a joker may take with ``room`` left under the limit,
 * one card a rank that fits, in spades (only the rank counts in the play); how many. */
static int play_names(int room, int *names) {
    int k = 0;
    for (int rk = 0; rk < 13; rk++)
        if ((rk < 9 ? rk + 1 : 10) <= room) names[k++] = rk * 4 + 3;
    return k;
}

/* jokers.play_options: every distinct way to lay a legal card, as the card laid (*card) and the
 * card it counts as (*shown): a standard card as itself, the first joker held once a name that
 * fits; without jokers both are ``legal`` itself, else the buffers ``cbuf`` and ``sbuf``. */
static int play_options(const Rules *r, const int *legal, int nlegal, int count, int *cbuf, int *sbuf,
                        const int **card, const int **shown) {
    *card = *shown = legal;
    if (!r->jokers) return nlegal;
    *card = cbuf, *shown = sbuf;
    int k = 0, joker_done = 0;
    for (int i = 0; i < nlegal; i++) {
        if (legal[i] < WILD) {
            cbuf[k] = sbuf[k] = legal[i], k++;
        } else if (!joker_done) {
            joker_done = 1;
            int names[13], m = play_names((int)r->limit - count, names);
            for (int j = 0; j < m; j++) cbuf[k] = legal[i], sbuf[k++] = names[j];
        }
    }
    return k;
}

/* What peg_points gives each rank laid next on the pile ``ranks`` (n cards since the reset) for
 * its pair or run, in one pass over the pile instead of one a rank: ``out[rank]``. A rank equal to
 * the last card pairs with the trailing cards of its rank; any other makes the longest run of it
 * and the pile's last w distinct cards: w + 1 cards when they span w - 1 ranks and it extends
 * them at either end, or span w and it fills their one gap. */
static void reply_points(const Rules *v, const int *ranks, int n, int64_t *out) {
    int last = ranks[n - 1], same = 1, lo = last, hi = last, best[13] = {0};
    uint32_t mask = 1U << last;
    while (same < n && ranks[n - 1 - same] == last) same++;
    for (int w = 1;; w++) { /* the window of the pile's last w cards: lo, hi, mask */
        int d = hi - lo;
        if (w + 1 >= v->run_min) {
            if (d == w - 1) {
                if (lo > 0) best[lo - 1] = w + 1;
                if (hi < 12) best[hi + 1] = w + 1;
            } else if (d == w) {
                best[__builtin_ctz(~(mask >> lo)) + lo] = w + 1;
            }
        }
        if (w == n) break;
        int rk = ranks[n - 1 - w];
        if (mask >> rk & 1U) break;
        mask |= 1U << rk;
        if (rk < lo) lo = rk;
        else if (rk > hi) hi = rk;
    }
    for (int rr = 0; rr < 13; rr++) out[rr] = v->run_card * best[rr];
    out[last] = v->pair * (int64_t)(same * (same + 1) / 2);
}

/* ev.one_ply: for each rank that may be laid, the points it pegs now (and a last card it
 * secures), minus (plus, for a partner) the expected points of the next player's reply. */
static int ev_play(const Game *g, int seat, const int *hand, int hn, const int *legal, int nlegal,
                   const int *ranks, int nranks, int count, const Played *pl, int *shown) {
    *shown = legal[0];
    if (nlegal == 1 && legal[0] < WILD) return legal[0];
    const Rules *r = g->r;
    const EvTables *t = g->ev[seat];
    const Rules *v = &t->val;
    int n = g->n, nxt = seat + 1 < n ? seat + 1 : 0, hand_size = (int)(r->deal - r->discard), left[14] = {0};
    for (int k = 0; k < 13; k++) left[k] = 4 - pl->by_rank[k];
    for (int i = 0; i < hn; i++) left[rank_of(hand[i])]--;
    for (int i = 0; i < g->nthrown[seat]; i++) left[rank_of(g->thrown[seat][i])]--;
    int unseen = 52 - hn - pl->total - g->nthrown[seat], nxt_size = hand_size - pl->by_seat[nxt];
    if (g->starter >= 0) { /* (a rollout from a discard decision has not seen it) */
        left[rank_of(g->starter)]--;
        unseen--;
    }
    double sign = r->side_of[nxt] == r->side_of[seat] ? t->reply : -t->reply;
    int last_card = nxt_size <= 0 && (hn == 1 || pl->total + hn == n * hand_size);
    const double *hold = nxt_size > 0 ? t->hold[unseen][nxt_size] : NULL;
    int limit = (int)r->limit, inviting = (int)r->fifteen_total - 10, near_limit = limit - 10;
    int room = (int)v->limit - count, trial[MAXPILE + 1], choice = legal[0], have = 0;
    int cbuf[MAXOPT], sbuf[MAXOPT];
    const int *card, *as;
    int nopt = play_options(r, legal, nlegal, count, cbuf, sbuf, &card, &as);
    uint32_t seen = 0;
    double best = 0.0;
    memcpy(trial, ranks, sizeof(int) * (size_t)nranks);
    for (int i = 0; i < nopt; i++) {
        int c = as[i], rk = rank_of(c), val = value_of(c), cnt = count + val;
        if (seen >> rk & 1U) continue; /* same rank, same value: the first of them is kept on ties */
        seen |= 1U << rk;
        trial[nranks] = rk;
        double x = val <= room && (nranks || room <= 10) ? (double)peg_points(v, trial, nranks + 1, cnt) : 0.0;
        if (cnt != limit) {
            if (hold) { /* ev.lay_points(pile + (rank,)): each reply that would score */
                double threat = 0.0;
                int room2 = (int)v->limit - cnt;
                int64_t kinds[13];
                reply_points(v, trial, nranks + 1, kinds);
                for (int rr = 0; rr < 13; rr++) {
                    int rv = rr < 9 ? rr + 1 : 10;
                    if (rv > room2 || left[rr] <= 0) continue; /* (never below 0: each card is seen once) */
                    int to = cnt + rv;
                    int64_t p = kinds[rr] + (to == v->fifteen_total ? v->fifteen : 0) + (to == v->limit ? v->hit : 0);
#ifdef LANE_CHECK
                    trial[nranks + 1] = rr;
                    if (p != peg_points(v, trial, nranks + 2, to)) abort();
#endif
                    if (p) threat += (double)p * hold[left[rr]];
                }
                x += sign * threat;
            } else if (last_card) {
                x += (double)v->last_card;
            }
        }
        if (r->objective < 0) x = -x; /* lowball: shed points, hand them to the next player */
        x += 0.001 * val - (cnt == inviting || cnt == near_limit ? 0.01 : 0.0); /* tie-breaks: 5 and 21 */
        if (!have || x > best) { best = x, choice = card[i], *shown = c, have = 1; }
    }
    return choice;
}

