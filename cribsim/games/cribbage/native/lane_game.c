/* lane_game.c: one game's state: points given and the game won (R-WIN-1, R-SHOW-2, R-MATCH-5's
 * places), the counting model (V-MUGGINS), the deal (R-DEAL-2, V-CANADIAN's, V-TOSSFIVES), greedy's
 * discard.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* ---- one game ------------------------------------------------------------------------------ */

enum { M_NINETEEN, M_BACK_TEN, M_MUGGINS, M_CRIB_BOUGHT, M_PRICE_PAID, NMETRICS };
#define METRIC_NAMES "nineteen", "back_ten", "muggins", "crib_bought", "price_paid"

typedef struct {
    const Rules *r;
    int64_t seed, match, game_no;
    int n, dealer, first_dealer, deal_no, asked, winner;
    int64_t scores[MAXP], targets[MAXP], first_scores[MAXP];
    int64_t by_role[MAXP][NSRC];
    int placed[MAXP], nplaced, has_first;
    int64_t metric[NMETRICS];   /* the variants' figures (GameState.metric), each kept once touched */
    unsigned touched;
    int crib_owner;             /* R-DEAL-3: the dealer, unless an auction sold the crib */
    int counting;               /* a counting model (engine/counting.py): some seat overlooks points */
    double miss[MAXP], vigilance[MAXP];
    MT count_rng;               /* its draws: random.Random(derive(seed, match, game, COUNTING)) */
    int zero_hand;              /* V-BACKTEN both: the crib owner's hand scored nothing this deal */
    PyObject *hook;             /* a designer's after_count hooks, in Python (lane.LaneHooks), or NULL */
    PyObject *capsule;          /* this game, as the hooks' state reads it (made once a game) */
    int hook_failed;            /* a hook raised: the game stops, its exception set */
    int hands[MAXP][MAXH], hlen[MAXP];
    int crib[MAXC], clen, starter;
    int kinds[MAXP];
    const EvTables *ev[MAXP];   /* ev's values, for each seat it plays */
    struct Script *script;      /* a replay of the play so far (expert's reading), or NULL */
    int thrown[MAXP][MAXH], nthrown[MAXP]; /* each seat's own discards this deal */
    MT rng[MAXP];
    int64_t *trail; /* scores by side, one row per entry */
    int trail_rows, trail_cap;
} Game;

static void add_metric(Game *g, int which, int64_t amount) {
    g->metric[which] += amount;
    g->touched |= 1U << which;
}

static int keep_trail(Game *g) {
    if (g->trail_rows == g->trail_cap) {
        int cap = g->trail_cap ? 2 * g->trail_cap : 32;
        int64_t *t = realloc(g->trail, sizeof(int64_t) * (size_t)cap * MAXP); /* (no GIL needed) */
        if (!t) return NOMEM;
        g->trail = t;
        g->trail_cap = cap;
    }
    memcpy(g->trail + (size_t)g->trail_rows * MAXP, g->scores, sizeof g->scores);
    g->trail_rows++;
    return 0;
}

/* GameState.reached: 1 when the game is decided. */
static int reached(Game *g, int side) {
    const Rules *r = g->r;
    if (r->places == 1) { g->winner = side; return 1; }
    if (!g->nplaced) { memcpy(g->first_scores, g->scores, sizeof g->scores); g->has_first = 1; }
    g->placed[g->nplaced++] = side;
    g->targets[side] = LOCKED;
    if (g->nplaced >= r->places) { g->winner = g->placed[0]; return 1; }
    return 0;
}

/* Points to a seat's side (R-WIN-1, R-SHOW-2): 1 when the game is decided. */
static int give(Game *g, int seat, int64_t points, int source) {
    int side = (int)g->r->side_of[seat];
    g->scores[side] += points;
    g->by_role[(seat - g->dealer + g->n) % g->n][source] += points;
    return g->scores[side] >= g->targets[side] ? reached(g, side) : 0;
}

/* Counting.missed: points a seat overlooked; with V-MUGGINS the first opponent from its left
 * who notices (its vigilance) takes them. 1 when the game is decided. */
static int missed(Game *g, int seat, int64_t points) {
    const Rules *r = g->r;
    if (!r->muggins) return 0;
    for (int i = 1; i < g->n; i++) {
        int s = (seat + i) % g->n;
        if (r->side_of[s] != r->side_of[seat] && mt_random(&g->count_rng) < g->vigilance[s]) {
            add_metric(g, M_MUGGINS, points);
            return give(g, s, points, OTHER);
        }
    }
    return 0;
}

/* GameState.award: a single pegged score (a go, a last card) may be overlooked under a counting
 * model (Counting.overlooks). 1 when the game is decided. */
static int award(Game *g, int seat, int64_t points, int source) {
    if (g->counting && source == PEG && points > 0 && mt_random(&g->count_rng) < g->miss[seat])
        return missed(g, seat, points);
    return give(g, seat, points, source);
}

/* Counting.split of ``times`` scoring items of ``points`` each (none when they are worth 0). */
static void split(Game *g, int seat, int64_t points, int64_t times, int64_t *claimed, int64_t *lost) {
    if (!points) return;
    for (int64_t i = 0; i < times; i++) *(mt_random(&g->count_rng) < g->miss[seat] ? lost : claimed) += points;
}

/* GameState.award_items after the split: the points claimed, then the points overlooked. */
static int award_split(Game *g, int seat, int64_t claimed, int64_t lost, int source) {
    if (claimed && give(g, seat, claimed, source)) return 1;
    return lost ? missed(g, seat, lost) : 0;
}

#define CANADIAN_DEALT 10 /* V-CANADIAN: cards dealt to each of two seats; 4 passed, 2 thrown */
#define CANADIAN_PASS 4

static void deal_cards(Game *g) { /* R-DEAL-2, from the addressed deck (V-CANADIAN: the dealer's left, then the dealer) */
    const Rules *r = g->r;
    int n = g->n;
    int needed = r->canadian ? 2 * CANADIAN_DEALT + 1 : (int)((n - 1) * r->deal + r->dealer_deal + r->crib_from_deck + 1);
    int deck = MAXC + (int)r->jokers, pool[MAXDECK]; /* V-JOKERS: the wild cards after the 52 */
    g->crib_owner = g->dealer; /* R-DEAL-3 */
    for (int i = 0; i < deck; i++) pool[i] = i;
    int64_t key[6] = {g->seed, g->match, g->game_no, g->deal_no, STREAM_DECK, 0};
    uint8_t buf[48];
    uint64_t words[8];
    for (int i = 0, block = 0; i < needed; block++) {
        key[5] = block;
        blake2b_words(buf, pack_ints(buf, key, 6), 64, words);
        for (int w = 0; w < 8 && i < needed; w++, i++) {
            int j = i + (int)(((words[w] >> 11) * (uint64_t)(deck - i)) >> 53);
            int t = pool[i]; pool[i] = pool[j]; pool[j] = t;
        }
    }
    int pos = 0;
    for (int i = 1; i <= n; i++) {
        int seat = (g->dealer + i) % n;
        int k = r->canadian ? (i == 1 || i == n ? CANADIAN_DEALT : 0) : (int)(seat == g->dealer ? r->dealer_deal : r->deal);
        memcpy(g->hands[seat], pool + pos, sizeof(int) * (size_t)k);
        g->hlen[seat] = k;
        pos += k;
    }
    g->clen = (int)r->crib_from_deck;
    memcpy(g->crib, pool + pos, sizeof(int) * (size_t)g->clen);
    g->starter = pool[needed - 1];
}

#define FIVE 4 /* the 5's rank */

/* V-TOSSFIVES (variants/toss_fives.py discard_rule): -1 when any k cards will do; 1 when every
 * 5 held must go (the discards include them, from the whole hand); 0 when more 5s are held
 * than discarded (the discards are 5s only). */
static int fives_rule(const Game *g, const int *hand, int m, int k) {
    if (!g->r->toss_fives) return -1;
    int fives = 0;
    for (int i = 0; i < m; i++) fives += rank_of(hand[i]) == FIVE;
    return !fives ? -1 : fives <= k;
}

/* Whether discarding the cards not in ``kept`` (a mask of hand places) obeys the rule. */
static int obeys(const int *hand, int m, uint32_t kept, int must) {
    for (int i = 0; i < m; i++) {
        int five = rank_of(hand[i]) == FIVE, thrown = !(kept >> i & 1U);
        if (must == 1 && five && !thrown) return 0; /* a 5 kept */
        if (must == 0 && thrown && !five) return 0; /* a card thrown from outside the pool */
    }
    return 1;
}

/* itertools.combinations(range(n), k)'s next index tuple after ``idx``: 0 after the last. */
static int next_combination(int *idx, int k, int n) {
    int i = k - 1;
    while (i >= 0 && idx[i] == i + n - k) i--;
    if (i < 0) return 0;
    idx[i]++;
    for (int j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
    return 1;
}

/* greedy's keep: the cards worth most without the starter, ties at random. */
static void greedy_discard(Game *g, int seat, int k, int must, int *out) {
    const Rules *r = g->r;
    int *hand = g->hands[seat], m = g->hlen[seat], keep_n = m - k;
    int idx[MAXH], keep[MAXH];
    static __thread uint32_t choices[12870]; /* C(16, 8): every keep of the largest hand */
    int nchoices = 0, have = 0;
    int64_t best = 0;
    for (int i = 0; i < keep_n; i++) idx[i] = i;
    for (;;) { /* itertools.combinations(hand, keep_n), in its order */
        uint32_t mask = 0;
        for (int i = 0; i < keep_n; i++) { keep[i] = hand[idx[i]]; mask |= 1U << idx[i]; }
        if (must < 0 || obeys(hand, m, mask, must)) {
            int64_t pts = shown_value(r, keep, keep_n, -1, 0) * r->objective;
            if (!have || pts > best) { best = pts; nchoices = 0; have = 1; }
            if (pts == best) choices[nchoices++] = mask;
        }
        if (!next_combination(idx, keep_n, m)) break;
    }
    uint32_t chosen = choices[(int)(mt_random(&g->rng[seat]) * (double)nchoices)];
    for (int i = 0, o = 0; i < m; i++)
        if (!(chosen >> i & 1U)) out[o++] = hand[i];
}

