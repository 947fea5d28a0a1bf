/* lane_scoring.c: the rules struct (made from layout.py) and the scoring: a card's rank and value
 * (R-CARD-1..2), a show's fifteens, pairs, runs, flush and nobs (R-SHOW-3..7, S-DATA-1..5), a card
 * laid in the play (R-PEG-3..5, S-DATA-6).
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* ---- the rules (lane.py pack_rules: the same order) ---------------------------------------- */

#define MAXH 16 /* cards in a hand: greedy's ties then fit (at most C(16, 8)) */
#define MAXC 52
#define WILD 52 /* the first wild card (cards.WILD_BASE); a joker's rank is 13, its value 0 */
#define MAXDECK (MAXC + 4)
#define MAXPILE (MAXP * MAXH + 1)
#define NSRC 5
enum { PEG, HAND, CRIB, HEELS, OTHER };
enum { STREAM_DECK = 0, STREAM_CUT = 1, STREAM_STRATEGY = 2 };
#define LOCKED INT64_MAX /* a placed side's target (R-MATCH-5): never reached again */

/* The rules struct's fields, by name: made by setup.py from layout.py, the one declaration both
 * lanes are made from (lane.py packs a rule set's values by the same names, in the same order). */
#include "_lane_rules.h"
#define RULE_FIELD(name) int64_t name;
#define RULE_ARRAY(name, n) int64_t name[n];
typedef struct {
    RULES_FIELDS(RULE_FIELD, RULE_ARRAY)
} Rules;
_Static_assert(sizeof(Rules) == RULES_WIDTH * sizeof(int64_t), "the rules struct is layout.py's");
static const struct { const char *name; int width; } RULES_LAYOUT[] = {RULES_LAYOUT_ITEMS};

enum { OUTSIDE = -1, RANDOM = 0, GREEDY = 1, EV = 2, HOYLE = 3 }; /* OUTSIDE: an agent outside the lane (lane_env.c) */
#define KIND_NAMES "random", "greedy", "ev", "hoyle"
#define EV_HAND 20 /* ev's reply chances (strategies/ev.py HOLD, HAND_MOST) go to the largest hand */
/* every hand the lane deals (parse_rules: at most MAXH) is one ev's reply table holds */
_Static_assert(MAXH <= EV_HAND, "ev's reply table must hold every hand the lane deals");

/* ev's values (strategies/ev.py), made by its own Python code and passed in once (lane.py,
 * `pack_ev`): the scoring it values by, the crib tables by card pair for one's own crib and an
 * opponent's and by rank (weighted), the chance that a hand of h cards from U unseen holds one
 * of u cards of a rank, and the weight of the next player's reply. */
typedef struct {
    Rules val;
    double own[52 * 52], opp[52 * 52], single[13], hold[53][EV_HAND + 1][5], reply;
    double wild_keep, wild_crib; /* V-JOKERS: a kept joker's show, a crib with a joker in it */
} EvTables;
enum { NOMEM = -1, ENDLESS = -2, ILLEGAL = -3, UNSAMPLED = -4, OFFBOARD = -5, HOOKFAIL = -6,
       UNASKED = -7 }; /* failures (the GIL held); UNASKED: an env's game ended before an agent's decision */
enum { REFUSED = 2, REPLAYED = 3 }; /* how a scripted replay ends (strategies/expert.py _Script) */

static int rank_of(int c) { return c >> 2; }
static int suit_of(int c) { return c & 3; }
static int value_of(int c) { return c < 36 ? (c >> 2) + 1 : 10; } /* a standard card's */
static int held_value(int c) { return c < WILD ? value_of(c) : 0; } /* V-JOKERS: a joker fits any count */
static int64_t flush_points(const Rules *r, int cards) { return r->hand_flush < 0 ? cards : r->hand_flush; }
/* points.Scoring.crib_flush_points: a crib's flush with the starter (S-DATA-4: not hand_flush's) */
static int64_t crib_flush_points(const Rules *r, int cards) {
    return r->crib_flush < 0 ? cards + r->flush_starter : r->crib_flush;
}
enum { SHOW_HAND, SHOW_CRIB, SHOW_OPEN_CRIB }; /* scoring.SHOW_*: what a show counts, for its flush */

/* The fifteens, pairs and runs of some cards (R-SHOW-3..5, S-DATA-1..3), as scoring.show_breakdown
 * lists them: how many fifteens and pairs, and each run of ranks (lowest first) with its length
 * and the ways it is made. */
typedef struct {
    int64_t fifteens, pairs, run_ways[7];
    int run_len[7], runs;
} RankParts;

static void rank_parts(const Rules *r, const int *cards, int n, RankParts *p) {
    int64_t ways[128];
    int counts[13] = {0};
    int total = (int)r->fifteen_total;
    memset(ways, 0, sizeof(int64_t) * (size_t)(total + 1));
    ways[0] = 1;
    for (int i = 0; i < n; i++) {
        int v = value_of(cards[i]);
        counts[rank_of(cards[i])]++;
        for (int t = total; t >= v; t--) ways[t] += ways[t - v];
    }
    p->fifteens = ways[total], p->pairs = 0, p->runs = 0;
    for (int k = 0; k < 13; k++) p->pairs += counts[k] * (counts[k] - 1) / 2;
    for (int k = 0; k < 13;) {
        if (!counts[k]) { k++; continue; }
        int start = k;
        int64_t mult = 1;
        while (k < 13 && counts[k]) mult *= counts[k++];
        if (k - start >= r->run_min) p->run_len[p->runs] = k - start, p->run_ways[p->runs++] = mult;
    }
}

static int64_t count_rank_points(const Rules *r, const int *cards, int n) {
    RankParts p;
    rank_parts(r, cards, n, &p);
    int64_t pts = r->fifteen * p.fifteens + r->pair * p.pairs;
    for (int i = 0; i < p.runs; i++) pts += r->run_card * p.run_len[i] * p.run_ways[i];
    return pts;
}

/* The same, remembered by rank multiset (3 bits a rank, as scoring.RANK_POINTS keys it) for the
 * scoring values last used in this thread: an open-addressed table, filled to three quarters. */
#define MEMO_BITS 16
#define ROW_BITS 13
#define MEMOS 8 /* scorings remembered at once (a sweep's values, a run's rule sets) */
typedef struct { uint64_t key; int64_t pts; } Memo; /* key + 1: 0 is an empty slot */
typedef struct { uint64_t key; int32_t pts[13]; } Row; /* a multiset's points with each rank added */
typedef struct { Memo *slots; Row *rows; int64_t values[5], used, rows_used; } MemoTable;
static __thread MemoTable memos[MEMOS];
static __thread int memo_next;

static MemoTable *memo_for(const Rules *r) {
    int64_t values[5] = {r->fifteen, r->fifteen_total, r->pair, r->run_min, r->run_card};
    for (int i = 0; i < MEMOS; i++)
        if (memos[i].slots && !memcmp(values, memos[i].values, sizeof values)) return &memos[i];
    MemoTable *t = &memos[memo_next];
    memo_next = (memo_next + 1) % MEMOS;
    if (!t->slots && !(t->slots = malloc(sizeof(Memo) << MEMO_BITS))) return NULL;
    if (!t->rows && !(t->rows = malloc(sizeof(Row) << ROW_BITS))) return NULL;
    memset(t->slots, 0, sizeof(Memo) << MEMO_BITS);
    memset(t->rows, 0, sizeof(Row) << ROW_BITS);
    memcpy(t->values, values, sizeof t->values);
    t->used = t->rows_used = 0;
    return t;
}

static uint64_t slot_of(uint64_t key, int bits) { return (key * 0x9E3779B97F4A7C15ULL) >> (64 - bits); }

/* Fifteens, pairs and runs of a rank multiset ``key`` (1 plus 1 << 3 * rank for each card),
 * remembered in ``t`` (NULL: counted). */
static int64_t memo_points(MemoTable *t, const Rules *r, uint64_t key) {
    uint64_t mask = ((uint64_t)1 << MEMO_BITS) - 1, at = slot_of(key, MEMO_BITS);
    if (t)
        for (; t->slots[at].key; at = (at + 1) & mask)
            if (t->slots[at].key == key) return t->slots[at].pts;
    int cards[MAXC + 1], n = 0;
    for (int rk = 0; rk < 13; rk++)
        for (int c = (int)(((key - 1) >> (3 * rk)) & 7); c; c--) cards[n++] = rk * 4;
    int64_t pts = count_rank_points(r, cards, n);
    if (t && t->used < (3 << MEMO_BITS) / 4) { t->slots[at].key = key; t->slots[at].pts = pts; t->used++; }
    return pts;
}

static int64_t key_points(const Rules *r, uint64_t key) { return memo_points(memo_for(r), r, key); }

/* The points of the multiset ``key`` with each rank added (a kept hand and each starter rank),
 * remembered by ``key`` in ``t``: NULL when the table is full (the caller counts). */
static const int32_t *row_points(MemoTable *t, const Rules *r, uint64_t key) {
    if (!t) return NULL;
    uint64_t mask = ((uint64_t)1 << ROW_BITS) - 1, at = slot_of(key, ROW_BITS);
    for (; t->rows[at].key; at = (at + 1) & mask)
        if (t->rows[at].key == key) return t->rows[at].pts;
    if (t->rows_used >= (3 << ROW_BITS) / 4) return NULL;
    Row *row = &t->rows[at];
    for (int rk = 0; rk < 13; rk++) {
        int64_t p = memo_points(t, r, key + (1ULL << (3 * rk)));
        if (p > INT32_MAX || p < INT32_MIN) return NULL;
        row->pts[rk] = (int32_t)p;
    }
    row->key = key;
    t->rows_used++;
    return row->pts;
}

static int64_t rank_points(const Rules *r, const int *cards, int n) {
    uint64_t key = 1;
    for (int i = 0; i < n; i++) key += 1ULL << (3 * rank_of(cards[i]));
    return key_points(r, key);
}

/* R-SHOW-6, S-DATA-4: the flush of n cards of ``suits`` (a bit a suit), with the starter's suit
 * too (starter < 0: valued before the cut); ``crib`` (SHOW_*): a crib's has the crib's value and
 * needs the starter, an open crib's not (scoring._flush_items). */
static inline int64_t flush_part(const Rules *r, int suits, int n, int starter, int crib) {
    if (suits & (suits - 1)) return 0;
    if (starter >= 0 && suits == 1 << suit_of(starter))
        return crib ? crib_flush_points(r, n) : flush_points(r, n) + r->flush_starter;
    if (!crib) return flush_points(r, n);
    return crib == SHOW_OPEN_CRIB && starter >= 0 ? crib_flush_points(r, n) - r->flush_starter : 0;
}

/* R-SHOW-7: how many jacks of the starter's suit the hand holds. */
static inline int nobs_held(const int *hand, int n, int starter) {
    int nob = 10 * 4 + suit_of(starter), held = 0;
    for (int i = 0; i < n; i++) held += hand[i] == nob;
    return held;
}

/* scoring.show_points with the rules' values: a hand or crib with the starter (starter < 0:
 * valued before the cut, as greedy values its keep). */
static int64_t show_points(const Rules *r, const int *hand, int n, int starter, int crib) {
    int all[MAXC + 1], suits = 0;
    for (int i = 0; i < n; i++) { all[i] = hand[i]; suits |= 1 << suit_of(hand[i]); }
    if (starter < 0) return rank_points(r, all, n) + flush_part(r, suits, n, starter, crib);
    all[n] = starter;
    return rank_points(r, all, n + 1) + flush_part(r, suits, n, starter, crib) + r->nobs * nobs_held(hand, n, starter);
}

/* V-JOKERS (variants/jokers.best_show): the show of ``hand`` with each joker named a standard
 * card, to the ``objective``'s best (-1: the worst), and a joker starter too unless ``fixed``
 * (>= 0) names it: every naming in itertools.product's order (the starter last), the first best
 * kept. ``named`` (may be NULL) gets the hand as named, ``*named_starter`` the starter. */
static int64_t best_show(const Rules *r, const int *hand, int n, int starter, int crib, int objective, int fixed,
                         int *named, int *named_starter) {
    int base[MAXH], slot[MAXH + 1], at[MAXH + 1] = {0}, slots = 0;
    for (int i = 0; i < n; i++) {
        base[i] = hand[i];
        if (hand[i] >= WILD) slot[slots++] = i;
    }
    if (starter >= WILD && fixed >= 0) starter = fixed;
    int name_starter = starter >= WILD, total = slots + name_starter, best_st = starter, have = 0;
    int64_t best = 0;
    if (named) memcpy(named, hand, sizeof(int) * (size_t)n);
    for (;;) {
        for (int k = 0; k < slots; k++) base[slot[k]] = at[k];
        int st = name_starter ? at[slots] : starter;
        int64_t pts = show_points(r, base, n, st, crib);
        if (!have || pts * objective > best * objective) {
            best = pts, best_st = st, have = 1;
            if (named) memcpy(named, base, sizeof(int) * (size_t)n);
        }
        int k = total - 1; /* the next naming: the last slot turns fastest */
        while (k >= 0 && at[k] == MAXC - 1) at[k--] = 0;
        if (k < 0) break;
        at[k]++;
    }
    if (named_starter) *named_starter = best_st;
    return best;
}

/* A show's points for a strategy's valuing (show_value_fn): jokers named to the holder's best. */
static int64_t shown_value(const Rules *r, const int *hand, int n, int starter, int crib) {
    return r->jokers ? best_show(r, hand, n, starter, crib, 1, -1, NULL, NULL) : show_points(r, hand, n, starter, crib);
}

/* scoring.peg_points with the rules' values: the card just laid, ranks since the reset. */
static int64_t peg_points(const Rules *r, const int *ranks, int n, int count) {
    int64_t pts = (count == r->fifteen_total ? r->fifteen : 0) + (count == r->limit ? r->hit : 0);
    if (n < 2) return pts;
    int last = ranks[n - 1], i = n - 2;
    while (i >= 0 && ranks[i] == last) i--;
    int k = n - 1 - i;
    if (k > 1) return pts + r->pair * (k * (k - 1) / 2);
    if (n >= r->run_min) {
        int lo = last, hi = last, seen = 1 << last, best = 0;
        for (int j = n - 2; j >= 0; j--) {
            int rk = ranks[j], bit = 1 << rk;
            if (seen & bit) break;
            seen |= bit;
            if (rk < lo) lo = rk;
            else if (rk > hi) hi = rk;
            if (hi - lo == n - 1 - j && n - j >= r->run_min) best = n - j;
        }
        pts += r->run_card * best;
    }
    return pts;
}

