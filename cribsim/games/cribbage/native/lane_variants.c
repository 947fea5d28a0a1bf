/* lane_variants.c: the variants that add a decision: V-AUCTION's bids, V-CANADIAN's passes,
 * V-TEAM3-2's inspection.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* ---- V-AUCTION (variants/auction.py): the bids of random, greedy and ev, and the auction ------ */

/* auction.raise_to: the lowest legal bid if it is worth no more than ``worth``, else 0 (a pass). */
static int64_t raise_to(const Rules *r, int64_t standing, double worth) {
    int64_t b = r->min_bid > standing + 1 ? r->min_bid : standing + 1;
    return (double)b <= worth && b <= r->max_bid ? b : 0;
}

/* auction.floor_worth: under a reversed objective a bid is welcome as far as the floor lets it
 * peg the seat's side back, less the crib's points it would then take. */
static double floor_worth(const Game *g, int seat, const int64_t *scores, double crib_estimate) {
    return (double)(scores[g->r->side_of[seat]] - g->r->score_floor) - crib_estimate;
}

/* expect.expected_show of kept cards over every starter not among ``held`` (a crib's flush needs
 * the starter's suit). */
static double expected_show(const Rules *v, const int *keep, int kn, const int *held, int hn, int crib) {
    uint64_t kkey = 0, hkey = 0;
    int unseen = 52 - hn, suits = 0;
    for (int i = 0; i < kn; i++) { kkey += RB(rank_of(keep[i])); suits |= 1 << suit_of(keep[i]); }
    for (int i = 0; i < hn; i++) hkey += RB(rank_of(held[i]));
    double x = rank_ev(v, kkey, hkey, unseen);
    if (!(suits & (suits - 1))) {
        int s = suit_of(keep[0]), same = 13;
        for (int i = 0; i < hn; i++) same -= suit_of(held[i]) == s;
        x += crib ? (double)(crib_flush_points(v, kn) * same) / (double)unseen
                  : (double)flush_points(v, kn) + (double)(v->flush_starter * same) / (double)unseen;
    }
    for (int i = 0; i < kn; i++) {
        if (rank_of(keep[i]) != JACK) continue;
        int s = suit_of(keep[i]), left = 12;
        for (int j = 0; j < hn; j++) left -= suit_of(held[j]) == s && rank_of(held[j]) != JACK;
        x += (double)(v->nobs * left) / (double)unseen;
    }
    return x;
}

/* ev._crib: the thrown cards' value in our own crib (a pair from the table, else the mean). */
static double own_crib(const EvTables *t, const int *thrown, int k) {
    return k == 2 ? t->own[thrown[0] * 52 + thrown[1]] : single_mean(t, thrown, k);
}

/* ev.bid: owning the crib is worth the best keep's throw into our own crib plus an opponent's
 * average crib we deny them. The thrown cards go in combinations order, so the keeps go in
 * reverse: the last best here is ev's first best keep. */
static int64_t ev_bid(const Game *g, int seat, const int64_t *scores, int64_t standing) {
    const EvTables *t = g->ev[seat];
    const Rules *r = g->r;
    double deny = 0.0;
    for (int k = 0; k < 13; k++) deny += t->single[k];
    deny /= 13;
    if (r->objective < 0) return raise_to(r, standing, floor_worth(g, seat, scores, deny));
    const int *hand = g->hands[seat];
    int n = g->hlen[seat], k = n - (int)(r->deal - r->discard), idx[MAXH], keep[MAXH], thrown[MAXH], have = 0;
    if (holds_joker(hand, n)) /* V-JOKERS: a joker of ours would go to our own crib's estimate */
        return raise_to(r, standing, (double)(int64_t)(t->wild_crib + deny));
    double best = 0.0, best_crib = 0.0;
    for (int i = 0; i < k; i++) idx[i] = i;
    for (;;) {
        uint32_t out = 0;
        for (int i = 0; i < k; i++) { out |= 1U << idx[i]; thrown[i] = hand[idx[i]]; }
        for (int i = 0, kn = 0; i < n; i++)
            if (!(out >> i & 1U)) keep[kn++] = hand[i];
        double crib = own_crib(t, thrown, k), x = expected_show(&t->val, keep, n - k, hand, n, 0) + crib;
        if (!have || x >= best) { best = x, best_crib = crib, have = 1; }
        if (!next_combination(idx, k, n)) break;
    }
    return raise_to(r, standing, (double)(int64_t)(best_crib + deny));
}

/* greedy.bid: the crib as the points its best two cards would show, plus 2. */
static int64_t greedy_bid(const Game *g, int seat, const int64_t *scores, int64_t standing) {
    const Rules *r = g->r;
    if (r->objective < 0) return raise_to(r, standing, floor_worth(g, seat, scores, 4.7));
    const int *hand = g->hands[seat];
    int n = g->hlen[seat];
    int64_t best = INT64_MIN;
    for (int i = 0; i < n - 1; i++)
        for (int j = i + 1; j < n; j++) {
            int two[2] = {hand[i], hand[j]};
            int64_t pts = shown_value(r, two, 2, -1, 0);
            if (pts > best) best = pts;
        }
    return raise_to(r, standing, (double)(best + 2));
}

/* A seat's bid, or 0 for a pass. */
static int64_t bid(Game *g, int seat, const int64_t *scores, int64_t standing) {
    const Rules *r = g->r;
    if (g->kinds[seat] == EV) return ev_bid(g, seat, scores, standing);
    if (g->kinds[seat] == GREEDY) return greedy_bid(g, seat, scores, standing);
    if (g->kinds[seat] == HOYLE)
        return raise_to(r, standing, r->objective < 0 ? floor_worth(g, seat, scores, 4.7) : hoyle_bid_worth(g, seat));
    if (mt_random(&g->rng[seat]) >= 0.5) return 0; /* random: a pass or the lowest bid, at even odds */
    return raise_to(r, standing, r->objective < 0 ? floor_worth(g, seat, scores, 0.0) : (double)r->max_bid);
}

/* auction.auction: from the dealer's left round the table, dealer included, until every other
 * player has passed; the winner pegs back the bid (not past the floor) and owns the crib. 1 when
 * the game is decided. */
static int auction(Game *g) {
    const Rules *r = g->r;
    int n = g->n, active[MAXP], holder = -1, seat = (g->dealer + 1) % n;
    int64_t standing = 0, scores[MAXP];
    memcpy(scores, g->scores, sizeof scores);
    for (int s = 0; s < n; s++) active[s] = 1;
    for (;;) {
        int others = 0, any = 0;
        for (int s = 0; s < n; s++) others += active[s] && s != holder, any |= active[s];
        if (holder >= 0 ? !others : !any) break;
        if (active[seat] && seat != holder) {
            g->asked++;
            int64_t b = bid(g, seat, scores, standing);
            if (b) standing = b, holder = seat;
            else active[seat] = 0;
        }
        seat = (seat + 1) % n;
    }
    if (holder < 0) return 0; /* nobody bid: the dealer keeps the crib */
    g->crib_owner = holder;
    int64_t room = g->scores[r->side_of[holder]] - r->score_floor;
    int64_t pay = !r->floored ? standing : standing < room ? standing : room > 0 ? room : 0;
    add_metric(g, M_CRIB_BOUGHT, 1);
    add_metric(g, M_PRICE_PAID, pay);
    return pay ? award(g, holder, -pay, OTHER) : 0;
}

/* random's discard: k cards at random; under a discard rule the 5s that must go, then the rest
 * at random from the pool. */
static void random_discard(Game *g, int seat, const int *hand, int m, int k, int must, int *thrown) {
    if (must < 0) {
        int pool[MAXH];
        memcpy(pool, hand, sizeof(int) * (size_t)m);
        mt_draw(&g->rng[seat], pool, m, k);
        memcpy(thrown, pool, sizeof(int) * (size_t)k);
        return;
    }
    int rest[MAXH], nrest = 0, nmust = 0;
    for (int i = 0; i < m; i++) {
        int five = rank_of(hand[i]) == FIVE;
        if (must && five) thrown[nmust++] = hand[i];
        else if (must ? 1 : five) rest[nrest++] = hand[i];
    }
    mt_draw(&g->rng[seat], rest, nrest, k - nmust);
    memcpy(thrown + nmust, rest, sizeof(int) * (size_t)(k - nmust));
}

/* ---- V-CANADIAN (variants/canadian.py): each dealt seat keeps 4, passes 4, throws 2 ---------- */

/* The value greedy (show without the starter) or ev (expected shows and the crib) puts on one
 * split of a dealt hand, times the objective: canadian.best_split's ``value``. */
static double split_value(const Game *g, int seat, const int *hand, const int *keep, const int *passed,
                          const int *thrown) {
    const Rules *r = g->r;
    if (g->kinds[seat] == GREEDY)
        return (double)(r->objective * (show_points(r, keep, 4, -1, 0) + show_points(r, passed, 4, -1, 0)));
    if (g->kinds[seat] == HOYLE)
        return (double)r->objective * ((double)(show_points(r, keep, 4, -1, 0) + show_points(r, passed, 4, -1, 0)) +
                                       feel_weight(g, seat) * crib_feel(thrown, 2));
    const EvTables *t = g->ev[seat];
    double crib = single_mean(t, thrown, 2); /* ev.crib_value: four players, so the mean */
    if (r->side_of[g->crib_owner] != r->side_of[seat]) crib = -crib;
    return (double)r->objective * (expected_show(&t->val, keep, 4, hand, CANADIAN_DEALT, 0) +
                                   expected_show(&t->val, passed, 4, hand, CANADIAN_DEALT, 0) + crib);
}

/* canadian.best_split: every keep of 4 (combinations order), every 4 of the rest passed, the
 * other 2 thrown if the discard rule allows; the first best. */
static void best_split(const Game *g, int seat, const int *hand, int must, int *passed, int *thrown) {
    int n = CANADIAN_DEALT, a[4] = {0, 1, 2, 3}, have = 0;
    double best = 0.0;
    for (;;) {
        int keep[4], rest[6], nr = 0;
        uint32_t in_keep = 0;
        for (int i = 0; i < 4; i++) { keep[i] = hand[a[i]]; in_keep |= 1U << a[i]; }
        int place[6];
        for (int i = 0; i < n; i++)
            if (!(in_keep >> i & 1U)) { place[nr] = i; rest[nr++] = hand[i]; }
        int b[4] = {0, 1, 2, 3};
        for (;;) {
            int pass[4], throw2[2], nt = 0;
            uint32_t out = 0, in_pass = 0;
            for (int i = 0; i < 4; i++) { pass[i] = rest[b[i]]; in_pass |= 1U << b[i]; }
            for (int i = 0; i < 6; i++)
                if (!(in_pass >> i & 1U)) { throw2[nt++] = rest[i]; out |= 1U << place[i]; }
            if (must < 0 || obeys(hand, n, ~out & ((1U << n) - 1), must)) {
                double v = split_value(g, seat, hand, keep, pass, throw2);
                if (!have || v > best) {
                    best = v, have = 1;
                    memcpy(passed, pass, sizeof pass);
                    memcpy(thrown, throw2, sizeof throw2);
                }
            }
            int i = 3;
            while (i >= 0 && b[i] == i + 2) i--;
            if (i < 0) break;
            b[i]++;
            for (int j = i + 1; j < 4; j++) b[j] = b[j - 1] + 1;
        }
        int i = 3;
        while (i >= 0 && a[i] == i + n - 4) i--;
        if (i < 0) break;
        a[i]++;
        for (int j = i + 1; j < 4; j++) a[j] = a[j - 1] + 1;
    }
}

/* canadian.pass_cards: the dealer, then the dealer's left, each answers (4 for the partner, 2
 * for the crib); then every seat holds its 4. */
static void canadian_passes(Game *g) {
    int n = g->n, kept[MAXP][4], dealt[2] = {g->dealer, (g->dealer + 1) % n};
    for (int d = 0; d < 2; d++) {
        int seat = dealt[d], *hand = g->hands[seat], passed[CANADIAN_PASS], thrown[2];
        int must = fives_rule(g, hand, CANADIAN_DEALT, 2);
        g->asked++;
        if (g->kinds[seat] != RANDOM) {
            best_split(g, seat, hand, must, passed, thrown);
        } else if (must < 0) { /* random: 6 at random, the first 4 to the partner */
            int pool[CANADIAN_DEALT];
            memcpy(pool, hand, sizeof pool);
            mt_draw(&g->rng[seat], pool, CANADIAN_DEALT, 6);
            memcpy(passed, pool, sizeof passed);
            memcpy(thrown, pool + 4, sizeof thrown);
        } else { /* random: the crib's 2 as its discard, then 4 of the rest */
            int rest[CANADIAN_DEALT], nrest = 0;
            random_discard(g, seat, hand, CANADIAN_DEALT, 2, must, thrown);
            for (int i = 0; i < CANADIAN_DEALT; i++)
                if (hand[i] != thrown[0] && hand[i] != thrown[1]) rest[nrest++] = hand[i];
            mt_draw(&g->rng[seat], rest, nrest, CANADIAN_PASS);
            memcpy(passed, rest, sizeof passed);
        }
        for (int i = 0, k = 0; i < CANADIAN_DEALT; i++) { /* phases.without: the hand less what went */
            int c = hand[i], gone = c == thrown[0] || c == thrown[1];
            for (int j = 0; j < CANADIAN_PASS; j++) gone |= c == passed[j];
            if (!gone) kept[seat][k++] = c;
        }
        memcpy(kept[(seat + 2) % n], passed, sizeof passed);
        g->crib[g->clen++] = thrown[0], g->crib[g->clen++] = thrown[1];
        memcpy(g->thrown[seat], thrown, sizeof thrown);
        g->nthrown[seat] = 2;
    }
    for (int s = 0; s < n; s++) {
        memcpy(g->hands[s], kept[s], sizeof kept[s]);
        g->hlen[s] = 4;
        if (s != dealt[0] && s != dealt[1]) g->nthrown[s] = 0;
    }
}

/* ---- V-TEAM3-2 (variants/inspect.py): the lone player keeps any four of hand and crib ------- */

/* The keep of ``k`` of the ``m`` cards ``eight`` (own, then the crib) worth most: greedy's show
 * without the starter, or ev's expected show plus the expected crib of the rest (ours, or
 * against us), both times the objective; the first best in combinations order. */
static void best_inspected(const Game *g, int seat, const int *eight, int m, int k, int *out) {
    const Rules *r = g->r;
    int idx[MAXH], keep[MAXH], rest[MAXH], have = 0, wild = 0;
    for (int i = 0; i < m; i++) wild |= eight[i] >= WILD;
    double best = 0.0;
    for (int i = 0; i < k; i++) idx[i] = i;
    for (;;) {
        uint32_t in = 0;
        for (int i = 0; i < k; i++) { keep[i] = eight[idx[i]]; in |= 1U << idx[i]; }
        double x;
        if (g->kinds[seat] == GREEDY) {
            x = (double)(r->objective * shown_value(r, keep, k, -1, 0));
        } else if (g->kinds[seat] == HOYLE) {
            int nr = 0;
            for (int i = 0; i < m; i++)
                if (!(in >> i & 1U)) rest[nr++] = eight[i];
            x = (double)r->objective * ((double)shown_value(r, keep, k, -1, 0) + feel_weight(g, seat) * crib_feel(rest, nr));
        } else {
            const EvTables *t = g->ev[seat];
            int nr = 0, mine = r->side_of[g->crib_owner] == r->side_of[seat] ? 1 : -1;
            for (int i = 0; i < m; i++)
                if (!(in >> i & 1U)) rest[nr++] = eight[i];
            if (wild) /* V-JOKERS: certain points, jokers named (the valued show, without a starter) */
                x = (double)(r->objective * (shown_value(&t->val, keep, k, -1, 0) +
                                             mine * shown_value(&t->val, rest, nr, -1, 1)));
            else
                x = (double)r->objective * (expected_show(&t->val, keep, k, eight, m, 0) +
                                            (double)mine * expected_show(&t->val, rest, nr, eight, m, 1));
        }
        if (!have || x > best) { best = x, have = 1; memcpy(out, keep, sizeof(int) * (size_t)k); }
        if (!next_combination(idx, k, m)) break;
    }
}

/* inspect.inspect: after the discards, the lone player (its side's only seat) looks at its hand
 * and the crib, keeps four and puts the rest back. */
static void inspect_crib(Game *g) {
    const Rules *r = g->r;
    int lone = -1, count[MAXP] = {0};
    for (int s = 0; s < g->n; s++) count[r->side_of[s]]++;
    for (int s = g->n - 1; s >= 0; s--)
        if (count[r->side_of[s]] == 1) lone = s;
    if (lone < 0) return;
    int k = g->hlen[lone], m = k + g->clen, eight[2 * MAXH], keep[MAXH];
    memcpy(eight, g->hands[lone], sizeof(int) * (size_t)k);
    memcpy(eight + k, g->crib, sizeof(int) * (size_t)g->clen);
    g->asked++;
    if (g->kinds[lone] == RANDOM) { /* draw(rng, hand + crib, 4) */
        int pool[2 * MAXH];
        memcpy(pool, eight, sizeof(int) * (size_t)m);
        mt_draw(&g->rng[lone], pool, m, k);
        memcpy(keep, pool, sizeof(int) * (size_t)k);
    } else {
        best_inspected(g, lone, eight, m, k, keep);
    }
    memcpy(g->hands[lone], keep, sizeof(int) * (size_t)k);
    g->clen = 0;
    for (int i = 0; i < m; i++) { /* phases.without(own + crib, keep) */
        int kept = 0;
        for (int j = 0; j < k; j++) kept |= eight[i] == keep[j];
        if (!kept) g->crib[g->clen++] = eight[i];
    }
    for (int s = 0; s < g->n; s++) g->nthrown[s] = 0; /* the others' cards may be in the lone hand */
    memcpy(g->thrown[lone], g->crib, sizeof(int) * (size_t)g->clen); /* its view: all four put back */
    g->nthrown[lone] = g->clen;
}

