/* cribsim's native lane: whole games of cribbage in C, for the rules that are data.
 *
 * The same games as the Python engine (cribsim/games/cribbage/engine/), decision for decision:
 * the same addressed decks (BLAKE2b, cribsim/rng.py addressed_draw), the same cut for the deal
 * (random.Random.sample on a Mersenne Twister seeded as CPython seeds it), the same strategy
 * generators (random.Random.random), the same rules (R-DEAL-1..3, R-START-1..2, R-PEG-1..5,
 * R-SHOW-1..7, R-WIN-1, R-MATCH-5's places) and the point values of the scoring block
 * (S-DATA-1..7), and the same built-in strategies (`random`, `greedy`, and `ev` with the values
 * its own Python module makes). A differential test (tests/cribbage/test_native.py) holds the
 * two lanes to identical records.
 *
 * The rule family is what cribsim/games/cribbage/native/lane.py accepts: the variants whose
 * module says how the lane plays them (Variant.native), jokers or none, 2 to 5 players in any
 * sides, any deal sizes, targets, places and scoring.
 * Python passes the rules as an array of 64-bit ints (lane.py, `pack_rules`); this file keeps
 * no state between calls. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef LANE_SOURCE
#define LANE_SOURCE "unknown"
#endif

/* ---- BLAKE2b (RFC 7693), as hashlib.blake2b(data, digest_size=outlen) ------------------- */

static const uint64_t B2_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static const uint8_t B2_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

#define ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))
#define B2_G(a, b, c, d, x, y)                                                                     \
    do {                                                                                           \
        v[a] = v[a] + v[b] + (x); v[d] = ROTR64(v[d] ^ v[a], 32);                                 \
        v[c] = v[c] + v[d]; v[b] = ROTR64(v[b] ^ v[c], 24);                                       \
        v[a] = v[a] + v[b] + (y); v[d] = ROTR64(v[d] ^ v[a], 16);                                 \
        v[c] = v[c] + v[d]; v[b] = ROTR64(v[b] ^ v[c], 63);                                       \
    } while (0)

/* One call of hashlib.blake2b(data, digest_size=outlen).digest() for data of at most 128 bytes
 * (every input here is a few packed 64-bit ints), as little-endian 64-bit words. */
static void blake2b_words(const uint8_t *data, size_t len, int outlen, uint64_t out[8]) {
    uint64_t h[8], v[16], m[16];
    uint8_t block[128];
    memcpy(h, B2_IV, sizeof h);
    h[0] ^= 0x01010000ULL ^ (uint64_t)outlen;
    memset(block, 0, sizeof block);
    memcpy(block, data, len);
    for (int i = 0; i < 16; i++) {
        uint64_t w = 0;
        for (int b = 7; b >= 0; b--) w = (w << 8) | block[8 * i + b];
        m[i] = w;
    }
    for (int i = 0; i < 8; i++) { v[i] = h[i]; v[i + 8] = B2_IV[i]; }
    v[12] ^= (uint64_t)len; /* the byte counter */
    v[14] = ~v[14];          /* the last block */
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = B2_SIGMA[r];
        B2_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        B2_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        B2_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        B2_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        B2_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        B2_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        B2_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        B2_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) out[i] = h[i] ^ v[i] ^ v[i + 8];
}

static size_t pack_ints(uint8_t *buf, const int64_t *ints, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t u = (uint64_t)ints[i];
        for (int b = 0; b < 8; b++) buf[8 * i + b] = (uint8_t)(u >> (8 * b));
    }
    return (size_t)(8 * n);
}

/* rng.derive(*ints): a 64-bit key from a seed and an address. */
static uint64_t derive(const int64_t *ints, int n) {
    uint8_t buf[128];
    uint64_t out[8];
    blake2b_words(buf, pack_ints(buf, ints, n), 8, out);
    return out[0];
}

/* ---- CPython's random.Random: MT19937, seeded from an int as random.seed(int) seeds it ---- */

#define MAXP 5 /* players */

typedef struct {
    uint32_t mt[624];
    int mti;
} MT;

static uint32_t MT_BASE[624]; /* init_genrand(19650218): where every init_by_array starts */

static void mt_base(void) {
    MT_BASE[0] = 19650218U;
    for (int i = 1; i < 624; i++) MT_BASE[i] = 1812433253U * (MT_BASE[i - 1] ^ (MT_BASE[i - 1] >> 30)) + (uint32_t)i;
}

/* init_by_array for several generators at once, each with its key's 32-bit words. Each
 * generator's seeding is one long chain of dependent steps; interleaving the chains lets the
 * processor run them side by side (a game seeds one generator a seat and one for the cut). */
static void mt_seed_many(MT **s, const uint64_t *keys, int count) {
    uint32_t add[MAXP + 1][2], prev[MAXP + 1];
    int len[MAXP + 1], j[MAXP + 1];
    for (int g = 0; g < count; g++) {
        add[g][0] = (uint32_t)keys[g];
        add[g][1] = (uint32_t)(keys[g] >> 32) + 1U; /* each word plus its index */
        len[g] = keys[g] >> 32 ? 2 : 1;
        j[g] = 0;
        memcpy(s[g]->mt, MT_BASE, sizeof MT_BASE);
        prev[g] = MT_BASE[0];
    }
    /* the first pass: 624 steps from i = 1, wrapping once (the 624th step is at i = 1 again) */
    for (int i = 1; i < 624; i++)
        for (int g = 0; g < count; g++) {
            uint32_t *mt = s[g]->mt;
            prev[g] = mt[i] = (mt[i] ^ ((prev[g] ^ (prev[g] >> 30)) * 1664525U)) + add[g][j[g]];
            j[g] = j[g] + 1 < len[g] ? j[g] + 1 : 0;
        }
    for (int g = 0; g < count; g++) {
        uint32_t *mt = s[g]->mt;
        mt[0] = prev[g];
        prev[g] = mt[1] = (mt[1] ^ ((prev[g] ^ (prev[g] >> 30)) * 1664525U)) + add[g][j[g]];
    }
    /* the second pass: 623 steps from i = 2, wrapping once (its last step is at i = 1) */
    for (int i = 2; i < 624; i++)
        for (int g = 0; g < count; g++) {
            uint32_t *mt = s[g]->mt;
            prev[g] = mt[i] = (mt[i] ^ ((prev[g] ^ (prev[g] >> 30)) * 1566083941U)) - (uint32_t)i;
        }
    for (int g = 0; g < count; g++) {
        uint32_t *mt = s[g]->mt;
        mt[0] = prev[g];
        mt[1] = (mt[1] ^ ((prev[g] ^ (prev[g] >> 30)) * 1566083941U)) - 1U;
        mt[0] = 0x80000000U;
        s[g]->mti = 0;
    }
}

static void mt_seed64(MT *s, uint64_t key) { mt_seed_many(&s, &key, 1); }

/* genrand_uint32. CPython regenerates all 624 words when they run out; each new word depends
 * only on words before it in that pass (already new) and after it (still old), so making each
 * one just before it is read gives the same words, without making the hundreds a game never reads. */
static uint32_t mt_next(MT *s) {
    int k = s->mti, k1 = k + 1 < 624 ? k + 1 : 0, km = k + 397 < 624 ? k + 397 : k - 227;
    uint32_t y = (s->mt[k] & 0x80000000U) | (s->mt[k1] & 0x7fffffffU);
    y = s->mt[k] = s->mt[km] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
    s->mti = k1;
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static double mt_random(MT *s) { /* random.random() */
    uint32_t a = mt_next(s) >> 5, b = mt_next(s) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

static int mt_below(MT *s, int n) { /* random._randbelow(n), n < 2**31 */
    int k = 0;
    while ((1 << k) <= n) k++;
    uint32_t r = mt_next(s) >> (32 - k);
    while ((int)r >= n) r = mt_next(s) >> (32 - k);
    return (int)r;
}

/* rng.draw(rng, pool, k): a partial Fisher-Yates shuffle of pool[0..m) in place; the first k. */
static void mt_draw(MT *s, int *pool, int m, int k) {
    for (int i = 0; i < k; i++) {
        int j = i + (int)(mt_random(s) * (double)(m - i));
        int t = pool[i]; pool[i] = pool[j]; pool[j] = t;
    }
}

/* A Python generator's own state (random.Random.getstate(): 624 words and an index), stepped
 * as CPython steps it (all 624 words made again when they run out), for a search that draws from
 * a strategy's generator and hands the state back (setstate). */
typedef struct {
    uint32_t mt[624];
    int mti;
} PyMT;

static uint32_t pmt_next(PyMT *s) {
    if (s->mti >= 624) {
        for (int k = 0; k < 624; k++) {
            uint32_t y = (s->mt[k] & 0x80000000U) | (s->mt[k + 1 < 624 ? k + 1 : 0] & 0x7fffffffU);
            s->mt[k] = s->mt[k + 397 < 624 ? k + 397 : k - 227] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
        }
        s->mti = 0;
    }
    uint32_t y = s->mt[s->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static double pmt_random(PyMT *s) {
    uint32_t a = pmt_next(s) >> 5, b = pmt_next(s) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

static int pmt_below(PyMT *s, int n) { /* random._randbelow_with_getrandbits(n), 0 < n < 2**31 */
    int k = 0;
    while ((1 << k) <= n) k++;
    uint32_t r = pmt_next(s) >> (32 - k);
    while ((int)r >= n) r = pmt_next(s) >> (32 - k);
    return (int)r;
}

static void pmt_shuffle(PyMT *s, int *x, int n) { /* random.shuffle */
    for (int i = n - 1; i > 0; i--) {
        int j = pmt_below(s, i + 1), t = x[i];
        x[i] = x[j], x[j] = t;
    }
}

static int pmt_sample(PyMT *s, const int *population, int n, int k, int *out) { /* random.sample */
    if (k < 0 || k > n || n > 52) return -1; /* (random.sample raises) */
    int setsize = 21;
    if (k > 5) {
        int p = 1;
        while (p < 3 * k) p *= 4; /* 4 ** ceil(log(3k, 4)): 3k is never a power of 4 */
        setsize += p;
    }
    if (n <= setsize) {
        int pool[52];
        memcpy(pool, population, sizeof(int) * (size_t)n);
        for (int i = 0; i < k; i++) {
            int j = pmt_below(s, n - i);
            out[i] = pool[j];
            pool[j] = pool[n - i - 1];
        }
    } else {
        uint64_t selected = 0;
        for (int i = 0; i < k; i++) {
            int j = pmt_below(s, n);
            while (selected >> j & 1U) j = pmt_below(s, n);
            selected |= 1ULL << j;
            out[i] = population[j];
        }
    }
    return 0;
}

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

enum { RANDOM = 0, GREEDY = 1, EV = 2, HOYLE = 3 };
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
enum { NOMEM = -1, ENDLESS = -2, ILLEGAL = -3, UNSAMPLED = -4, OFFBOARD = -5, HOOKFAIL = -6 }; /* failures (the GIL held) */
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

static void discard(Game *g) { /* R-DEAL-2/3, seats in order */
    const Rules *r = g->r;
    if (r->canadian) {
        canadian_passes(g);
        return;
    }
    for (int seat = 0; seat < g->n; seat++) {
        int k = (int)(seat == g->dealer ? r->dealer_discard : r->discard);
        g->nthrown[seat] = 0;
        if (!k) continue;
        int *hand = g->hands[seat], m = g->hlen[seat];
        int thrown[MAXH];
        g->asked++;
        int must = fives_rule(g, hand, m, k);
        if (g->kinds[seat] == GREEDY) greedy_discard(g, seat, k, must, thrown);
        else if (g->kinds[seat] == EV) ev_discard(g, seat, k, must, g->ev[seat], thrown);
        else if (g->kinds[seat] == HOYLE) hoyle_discard(g, seat, k, must, thrown);
        else random_discard(g, seat, hand, m, k, must, thrown);
        memcpy(g->thrown[seat], thrown, sizeof(int) * (size_t)k);
        g->nthrown[seat] = k;
        for (int t = 0; t < k; t++) { /* list.remove, in order */
            int c = thrown[t], at = 0;
            while (hand[at] != c) at++;
            memmove(hand + at, hand + at + 1, sizeof(int) * (size_t)(m - at - 1));
            m--;
            g->crib[g->clen++] = c;
        }
        g->hlen[seat] = m;
    }
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

/* Where a play stands: the cards held, whose turn, the count and the ranks since the last reset,
 * what has been laid this deal, and a card the root seat lays at its first decision (-1: none;
 * a rollout's candidate). */
typedef struct {
    int hands[MAXP][MAXH], hlen[MAXP];
    int turn, count, last, ranks[MAXPILE], nranks;
    Played pl;
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

/* R-PEG-1..5 from ``st``: 1 when the game is decided, ILLEGAL when ``first`` is not legal. */
static int play_from(Game *g, PlayState *st) {
    const Rules *r = g->r;
    int n = g->n, limit = (int)r->limit, sure = limit - 10;
    int (*hands)[MAXH] = st->hands, *hlen = st->hlen, *ranks = st->ranks;
    int count = st->count, last = st->last, left = 0, nranks = st->nranks, turn = st->turn;
    for (int s = 0; s < n; s++) left += hlen[s];
    while (left) {
        int seat = turn, legal[MAXH], nlegal = 0;
        if (hlen[seat] && count <= sure) {
            memcpy(legal, hands[seat], sizeof(int) * (size_t)hlen[seat]);
            nlegal = hlen[seat];
        } else {
            int room = limit - count;
            for (int t = 0; t < n; t++) { /* R-PEG-2: the next seat holding a card that fits */
                if (hlen[seat]) {
                    for (int i = 0; i < hlen[seat]; i++)
                        if (held_value(hands[seat][i]) <= room) legal[nlegal++] = hands[seat][i];
                    if (nlegal) break;
                }
                seat = seat + 1 < n ? seat + 1 : 0;
            }
            if (!nlegal) { /* R-PEG-3: one for the go, the count starts again */
                if (r->go && award(g, last, r->go, PEG)) return 1;
                if (r->play_once) return 0; /* V-FIVECARD */
                count = 0, nranks = 0;
                turn = last + 1 < n ? last + 1 : 0;
                continue;
            }
        }
        g->asked++;
        int c, as = -1;
        if (st->first >= 0 && seat == st->root) { /* the rollout's candidate */
            c = st->first;
            as = st->first_as >= 0 ? st->first_as : c;
            st->first = st->first_as = -1;
            int ok = 0;
            for (int i = 0; i < nlegal; i++) ok |= legal[i] == c;
            if (!ok || (c >= WILD ? as >= WILD || value_of(as) > limit - count : as != c)) return ILLEGAL;
        } else if (g->script) {
            int code = scripted(g, seat, hands[seat], hlen[seat], legal, nlegal, ranks, nranks, count, &st->pl, &c);
            if (code) return code;
        } else {
            c = choose_play(g, seat, hands[seat], hlen[seat], legal, nlegal, ranks, nranks, count, &st->pl, &as);
        }
        if (as < 0) as = c; /* the card counts as itself (V-JOKERS: a joker as the card named) */
        int *hand = hands[seat], at = 0;
        st->pl.by_rank[rank_of(c)]++, st->pl.by_seat[seat]++, st->pl.total++;
        while (hand[at] != c) at++;
        memmove(hand + at, hand + at + 1, sizeof(int) * (size_t)(hlen[seat] - at - 1));
        hlen[seat]--;
        left--;
        count += value_of(as);
        if (nranks == MAXPILE) return ILLEGAL; /* (cannot happen with a deal's cards) */
        ranks[nranks++] = rank_of(as);
        last = seat;
        int64_t pts = peg_points(r, ranks, nranks, count);
        if (pts && (g->counting ? peg_counted(g, seat, pts, count) : give(g, seat, pts, PEG))) return 1;
        if (count == limit) { /* the hit scored, never also the go */
            if (r->play_once) return 0;
            count = 0, nranks = 0;
        }
        turn = seat + 1 < n ? seat + 1 : 0;
    }
    if (count && r->last_card && award(g, last, r->last_card, PEG)) return 1; /* R-PEG-4 */
    return 0;
}


/* The play from its first card (R-PEG-1). */
static int play(Game *g) {
    PlayState st;
    memset(&st, 0, sizeof st);
    for (int s = 0; s < g->n; s++) {
        memcpy(st.hands[s], g->hands[s], sizeof(int) * (size_t)g->hlen[s]);
        st.hlen[s] = g->hlen[s];
    }
    st.turn = g->dealer + 1 < g->n ? g->dealer + 1 : 0;
    st.last = st.first = -1;
    return play_from(g, &st);
}

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

static int show(Game *g) { /* R-SHOW-1..7: from the dealer's left, the dealer, then the crib */
    const Rules *r = g->r;
    int n = g->n, crib = r->crib_flush_needs_starter ? SHOW_CRIB : SHOW_OPEN_CRIB, fixed = -1;
    g->zero_hand = 0;
    if (r->joker_pone && g->starter >= WILD) { /* V-JOKERS: the non-dealer names it, for everyone */
        int pone = (g->dealer + 1) % n;
        best_show(r, g->hands[pone], g->hlen[pone], g->starter, 0, (int)r->objective, -1, NULL, &fixed);
    }
    for (int i = 1; i <= n; i++) {
        int seat = (g->dealer + i) % n;
        if (count_and_after(g, seat, g->hands[seat], g->hlen[seat], 0, HAND, fixed)) return 1;
    }
    return count_and_after(g, g->crib_owner, g->crib, g->clen, crib, CRIB, fixed);
}

/* R-DEAL-1: each round of cuts from random.Random(derive(seed, match, game, CUT, round)).sample;
 * ``first`` is the first round's generator, seeded. */
static int cut_for_deal(const Rules *r, int64_t seed, int64_t match, int64_t game_no, MT *first) {
    int contenders[MAXP], nc = (int)r->players;
    for (int s = 0; s < nc; s++) contenders[s] = s;
    for (int64_t rnd = 0;; rnd++) {
        int64_t key[5] = {seed, match, game_no, STREAM_CUT, rnd};
        MT again, *use = first;
        if (rnd) {
            mt_seed64(&again, derive(key, 5));
            use = &again;
        }
        int cuts[MAXP], low = 99, kept = 0;
        for (int i = 0; i < nc; i++) { /* random.sample(range(52), k), k <= 5: the set method */
            int j, again;
            do {
                j = mt_below(use, 52);
                again = 0;
                for (int q = 0; q < i; q++) again |= cuts[q] == j;
            } while (again);
            cuts[i] = j;
            if (rank_of(j) < low) low = rank_of(j);
        }
        for (int i = 0; i < nc; i++)
            if (rank_of(cuts[i]) == low) contenders[kept++] = contenders[i];
        nc = kept;
        if (nc == 1) return contenders[0];
    }
}

enum { STREAM_COUNTING = 3 }; /* rng.COUNTING */

/* The seats' counting model (each seat's miss rate, then its vigilance; NULL: none): built, as
 * GameState builds it, when some seat overlooks points. */
static void counting_model(Game *g, const double *counters) {
    if (!counters) return;
    for (int s = 0; s < g->n; s++) {
        g->miss[s] = counters[2 * s], g->vigilance[s] = counters[2 * s + 1];
        g->counting |= g->miss[s] > 0;
    }
    int64_t key[4] = {g->seed, g->match, g->game_no, STREAM_COUNTING};
    if (g->counting) mt_seed64(&g->count_rng, derive(key, 4));
}

static int play_deals(Game *g, const int *kinds, const EvTables *const *ev, const double *counters, int64_t seed,
                      int64_t match, int64_t game_no, int first_dealer);

/* One game (0, NOMEM, ENDLESS or HOOKFAIL; the caller frees g->trail in every case): the game's
 * state made afresh, then its deals; ``hook``: a designer's after_count hooks in Python, or NULL
 * (with hooks the GIL must be held). */
static int play_game(Game *g, const Rules *r, const int *kinds, const EvTables *const *ev, const double *counters,
                     int64_t seed, int64_t match, int64_t game_no, int first_dealer, PyObject *hook) {
    memset(g, 0, sizeof *g);
    g->r = r;
    if (hook) {
        g->hook = hook;
        g->capsule = PyCapsule_New(g, GAME_CAPSULE, NULL);
        if (!g->capsule) return HOOKFAIL;
    }
    int code = play_deals(g, kinds, ev, counters, seed, match, game_no, first_dealer);
    if (g->capsule) { /* the hooks' state of this game is gone: a state kept after it refuses to be read */
        PyCapsule_SetName(g->capsule, DONE_CAPSULE);
        Py_CLEAR(g->capsule);
    }
    return g->hook_failed ? HOOKFAIL : code;
}

static int play_deals(Game *g, const int *kinds, const EvTables *const *ev, const double *counters, int64_t seed,
                      int64_t match, int64_t game_no, int first_dealer) {
    const Rules *r = g->r;
    g->n = (int)r->players;
    g->seed = seed, g->match = match, g->game_no = game_no;
    counting_model(g, counters);
    MT cut, *gens[MAXP + 1];
    uint64_t keys[MAXP + 1];
    for (int s = 0; s < g->n; s++) { /* each seat's generator, and the cut's when it is cut for */
        int64_t key[5] = {seed, match, game_no, STREAM_STRATEGY, s};
        g->kinds[s] = kinds[s];
        g->ev[s] = ev[s];
        gens[s] = &g->rng[s];
        keys[s] = derive(key, 5);
    }
    int64_t cut_key[5] = {seed, match, game_no, STREAM_CUT, 0};
    gens[g->n] = &cut;
    keys[g->n] = derive(cut_key, 5);
    mt_seed_many(gens, keys, g->n + (first_dealer < 0));
    g->dealer = g->first_dealer = first_dealer >= 0 ? first_dealer : cut_for_deal(r, seed, match, game_no, &cut);
    g->winner = -1;
    for (int s = 0; s < r->nsides; s++) g->targets[s] = r->side_target[s];
    if (keep_trail(g)) return NOMEM;
    for (;;) {
        if (!g->deal_no && r->first_pone_points) { /* V-FIVECARD: three for last, as the game starts */
            if (award(g, (g->dealer + 1) % g->n, r->first_pone_points, OTHER)) break;
            memcpy(g->trail, g->scores, sizeof g->scores);
        }
        deal_cards(g);
        if (r->auction && auction(g)) break;
        discard(g);
        if (r->inspect) inspect_crib(g);
        if ((rank_of(g->starter) == 10 || g->starter >= WILD) && r->heels && award(g, g->dealer, r->heels, HEELS))
            break; /* R-START-2 (V-JOKERS: a joker starter too) */
        if (play(g)) break;
        if (keep_trail(g)) return NOMEM;
        if (show(g)) break;
        if (keep_trail(g)) return NOMEM;
        if (g->deal_no >= 9999) return ENDLESS; /* the engine's MAX_DEALS */
        g->dealer = g->dealer + 1 < g->n ? g->dealer + 1 : 0;
        g->deal_no++;
    }
    return keep_trail(g);
}

/* ---- Python ---------------------------------------------------------------------------------- */

/* A Python error for play_game's failure; 1 when it failed. */
static int failed(int code) {
    if (code == NOMEM) PyErr_NoMemory();
    else if (code == ENDLESS) PyErr_SetString(PyExc_RuntimeError, "a game did not end within 10,000 deals");
    else if (code == ILLEGAL) PyErr_SetString(PyExc_ValueError, "the rollout's first card is not legal");
    else if (code == UNSAMPLED) PyErr_SetString(PyExc_ValueError, "a sample of more cards than are left");
    else if (code == OFFBOARD) PyErr_SetString(PyExc_ValueError, "scores outside the board table");
    else if (code == HOOKFAIL && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "a hook failed");
    return code < 0;
}

static int parse_rules(Py_buffer *buf, Rules *r) {
    if (buf->len != (Py_ssize_t)sizeof(Rules)) {
        PyErr_Format(PyExc_ValueError, "rules: %zd bytes, expected %zu", buf->len, sizeof(Rules));
        return -1;
    }
    memcpy(r, buf->buf, sizeof *r);
    int sides_ok = 1;
    for (int s = 0; s < MAXP; s++) sides_ok &= r->side_of[s] >= 0 && r->side_of[s] < (r->nsides > 0 ? r->nsides : 1);
    for (int s = 0; s < r->nsides && s < MAXP; s++) sides_ok &= r->side_target[s] >= 1;
    if (r->players < 2 || r->players > MAXP || r->nsides < 2 || r->nsides > r->players || !sides_ok ||
        r->fifteen_total > 100 || r->fifteen_total < 11 || r->dealer_deal > MAXH || r->deal > MAXH || r->deal < 1 ||
        r->dealer_deal < 1 || r->discard < 0 || r->discard >= r->deal || r->dealer_discard < 0 ||
        r->dealer_discard >= r->dealer_deal || r->crib_from_deck < 0 || r->limit < 10 || r->limit > 10000 ||
        r->run_min < 2 || r->jokers < 0 || r->jokers > MAXDECK - MAXC ||
        (r->players - 1) * r->deal + r->dealer_deal + r->crib_from_deck + 1 > MAXC + r->jokers || r->places < 1 ||
        r->places > r->nsides) {
        PyErr_SetString(PyExc_ValueError, "rules outside the native lane's family");
        return -1;
    }
    int64_t crib = (r->players - 1) * r->discard + r->dealer_discard + r->crib_from_deck;
    if (r->jokers && r->canadian) { /* (the rules refuse them together; the passes value no joker) */
        PyErr_SetString(PyExc_ValueError, "jokers with Canadian doubles are not in the native lane");
        return -1;
    }
    if (r->jokers && (r->deal - r->discard + 1 > 7 || crib + 1 > 7)) { /* 3 bits a rank: six of a kind, and one */
        PyErr_SetString(PyExc_ValueError, "jokers with a show of more than 7 cards are not in the native lane");
        return -1;
    }
    if (r->inspect && r->deal - r->discard + crib > MAXH) { /* inspect_crib's keeps fit a hand's tables */
        PyErr_SetString(PyExc_ValueError, "inspecting more than 16 cards is not in the native lane");
        return -1;
    }
    return 0;
}

#define EV_CAPSULE "cribsim.native.ev"

/* Each seat's strategy kind (bytes) and, for each ev seat, its values (a tuple of one
 * ev_values() capsule or None a seat). */
static int parse_seats(Py_buffer *buf, PyObject *values, const Rules *r, int *kinds, const EvTables **ev) {
    if (buf->len != r->players) {
        PyErr_SetString(PyExc_ValueError, "one strategy kind a seat");
        return -1;
    }
    if (values != Py_None && (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != r->players)) {
        PyErr_SetString(PyExc_ValueError, "values: a tuple of one capsule or None a seat");
        return -1;
    }
    for (int s = 0; s < r->players; s++) {
        kinds[s] = ((const uint8_t *)buf->buf)[s];
        ev[s] = NULL;
        if (kinds[s] > HOYLE) {
            PyErr_SetString(PyExc_ValueError, "unknown strategy kind");
            return -1;
        }
        if (kinds[s] != EV) continue;
        PyObject *cap = values == Py_None ? Py_None : PyTuple_GET_ITEM(values, s);
        if (!(ev[s] = PyCapsule_GetPointer(cap, EV_CAPSULE))) return -1;
    }
    return 0;
}

static void free_values(PyObject *cap) { free(PyCapsule_GetPointer(cap, EV_CAPSULE)); }

PyDoc_STRVAR(ev_values_doc, "ev_values(packed) -> capsule: ev's values for game() (lane.py pack_ev)");

static PyObject *py_ev_values(PyObject *self, PyObject *arg) {
    Py_buffer b;
    (void)self;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    EvTables *t = NULL;
    if (b.len != (Py_ssize_t)sizeof(EvTables)) {
        PyErr_Format(PyExc_ValueError, "ev values: %zd bytes, expected %zu", b.len, sizeof(EvTables));
    } else if (!(t = malloc(sizeof *t))) {
        PyErr_NoMemory();
    } else {
        memcpy(t, b.buf, sizeof *t);
    }
    PyBuffer_Release(&b);
    if (!t) return NULL;
    if (t->val.fifteen_total > 100 || t->val.fifteen_total < 11 || t->val.run_min < 2 || t->val.limit < 10) {
        free(t);
        PyErr_SetString(PyExc_ValueError, "ev values: a scoring outside the native lane's family");
        return NULL;
    }
    PyObject *cap = PyCapsule_New(t, EV_CAPSULE, free_values);
    if (!cap) free(t);
    return cap;
}

static PyObject *ints(const int64_t *v, Py_ssize_t n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *result_of(const Game *g) {
    int sides = (int)g->r->nsides;
    int64_t roles[MAXP * NSRC], placed[MAXP];
    for (int s = 0; s < g->n; s++)
        for (int k = 0; k < NSRC; k++) roles[s * NSRC + k] = g->by_role[s][k];
    for (int i = 0; i < g->nplaced; i++) placed[i] = g->placed[i];
    int64_t *trail = PyMem_Malloc(sizeof(int64_t) * (size_t)g->trail_rows * (size_t)sides + 1);
    if (!trail) return PyErr_NoMemory();
    for (int i = 0; i < g->trail_rows; i++)
        memcpy(trail + (size_t)i * sides, g->trail + (size_t)i * MAXP, sizeof(int64_t) * (size_t)sides);
    PyObject *first = g->has_first ? ints(g->first_scores, sides) : (Py_INCREF(Py_None), Py_None);
    PyObject *metrics = PyTuple_New(NMETRICS); /* None for a figure never touched */
    for (int i = 0; metrics && i < NMETRICS; i++) {
        PyObject *x = g->touched >> i & 1U ? PyLong_FromLongLong(g->metric[i]) : (Py_INCREF(Py_None), Py_None);
        if (!x) Py_CLEAR(metrics);
        else PyTuple_SET_ITEM(metrics, i, x);
    }
    PyObject *out = metrics ? Py_BuildValue("(iiiiNNNNNN)", g->winner, g->first_dealer, g->deal_no + 1, g->asked,
                                            ints(g->scores, sides), ints(roles, g->n * NSRC),
                                            ints(trail, (Py_ssize_t)g->trail_rows * sides), ints(placed, g->nplaced),
                                            first, metrics)
                            : NULL;
    if (!metrics) Py_XDECREF(first);
    PyMem_Free(trail);
    return out;
}

PyDoc_STRVAR(game_doc, "game(rules, kinds, values, seed, match, game_no, first_dealer, counters=None, hook=None) -> (winner, "
                       "first dealer, deals, decisions, scores, points by role and source, trail, places, first "
                       "scores, metrics)\n\n"
                       "One game at the address (seed, match, game_no); first_dealer -1 cuts for it (R-DEAL-1). "
                       "values: None, or each seat's ev_values() capsule or None. counters: None, or each seat's "
                       "miss rate and vigilance in turn (V-MUGGINS), each in [0, 1]. hook: None, or "
                       "hook(state, seat, points, source, deal) called after each hand and crib is counted "
                       "(a designer's after_count hooks: lane.LaneHooks), true when the game is decided.");

/* The game a hook's state reads (lane.LaneHooks): NULL, with an error, once it is over. */
static Game *hooked(PyObject *cap) {
    return (Game *)PyCapsule_GetPointer(cap, GAME_CAPSULE);
}

PyDoc_STRVAR(hook_state_doc, "hook_state(game) -> (scores by side, dealer, crib owner, starter, deal)");

static PyObject *py_hook_state(PyObject *self, PyObject *cap) {
    (void)self;
    Game *g = hooked(cap);
    if (!g) return NULL;
    return Py_BuildValue("(Niiii)", ints(g->scores, g->r->nsides), g->dealer, g->crib_owner, g->starter, g->deal_no);
}

PyDoc_STRVAR(hook_cards_doc, "hook_cards(game) -> (each seat's hand as counted, the crib)");

static PyObject *py_hook_cards(PyObject *self, PyObject *cap) {
    (void)self;
    Game *g = hooked(cap);
    if (!g) return NULL;
    PyObject *hands = PyTuple_New(g->n);
    for (int s = 0; hands && s < g->n; s++) {
        int64_t cards[MAXH];
        for (int i = 0; i < g->hlen[s]; i++) cards[i] = g->hands[s][i];
        PyObject *h = ints(cards, g->hlen[s]);
        if (!h) Py_CLEAR(hands);
        else PyTuple_SET_ITEM(hands, s, h);
    }
    int64_t crib[MAXC];
    for (int i = 0; i < g->clen; i++) crib[i] = g->crib[i];
    return hands ? Py_BuildValue("(NN)", hands, ints(crib, g->clen)) : NULL;
}

PyDoc_STRVAR(hook_award_doc, "hook_award(game, seat, points, source) -> whether the game is decided (GameState.award)");

static PyObject *py_hook_award(PyObject *self, PyObject *args) {
    PyObject *cap;
    int seat, source;
    long long points;
    (void)self;
    if (!PyArg_ParseTuple(args, "OiLi", &cap, &seat, &points, &source)) return NULL;
    Game *g = hooked(cap);
    if (!g) return NULL;
    if (seat < 0 || seat >= g->n || source < 0 || source >= NSRC)
        return PyErr_Format(PyExc_ValueError, "award: no seat %d or source %d", seat, source);
    return PyBool_FromLong(award(g, seat, points, source));
}

/* A counting model: None, or a tuple of two floats in [0, 1] a seat. 0, or -1 with an error set. */
static int parse_counters(PyObject *counters, int64_t players, double *model) {
    if (counters == Py_None) return 0;
    if (!PyTuple_Check(counters) || PyTuple_GET_SIZE(counters) != 2 * players)
        return PyErr_SetString(PyExc_ValueError, "counters: a miss rate and a vigilance a seat"), -1;
    for (int i = 0; i < 2 * players; i++) {
        double v = PyFloat_AsDouble(PyTuple_GET_ITEM(counters, i));
        if (v == -1.0 && PyErr_Occurred()) return -1;
        if (!(v >= 0.0 && v <= 1.0)) return PyErr_SetString(PyExc_ValueError, "counters: rates in [0, 1]"), -1;
        model[i] = v;
    }
    return 0;
}

static PyObject *py_game(PyObject *self, PyObject *args) {
    Py_buffer rb, kb;
    long long seed, match, game_no;
    int first;
    Rules r;
    int kinds[MAXP];
    const EvTables *ev[MAXP];
    PyObject *values;
    Game g;
    (void)self;
    PyObject *counters = Py_None, *hook = Py_None;
    double model[2 * MAXP];
    if (!PyArg_ParseTuple(args, "y*y*OLLLi|OO", &rb, &kb, &values, &seed, &match, &game_no, &first, &counters, &hook))
        return NULL;
    PyObject *out = NULL;
    g.trail = NULL;
    if (!parse_rules(&rb, &r) && !parse_seats(&kb, values, &r, kinds, ev)) {
        if (first >= r.players) PyErr_SetString(PyExc_ValueError, "no such first dealer");
        else if (!parse_counters(counters, r.players, model) &&
                 !failed(play_game(&g, &r, kinds, ev, counters == Py_None ? NULL : model, seed, match, game_no, first,
                                   hook == Py_None ? NULL : hook)))
            out = result_of(&g);
        free(g.trail);
    }
    PyBuffer_Release(&rb);
    PyBuffer_Release(&kb);
    return out;
}

PyDoc_STRVAR(games_doc, "games(rules, kinds, values, seed, first_match, count) -> (games, decisions, wins by side)\n\n"
                        "Game 0 of matches first_match .. first_match + count - 1, each cut for (benchmarks).");

static PyObject *py_games(PyObject *self, PyObject *args) {
    Py_buffer rb, kb;
    long long seed, first_match, count;
    Rules r;
    int kinds[MAXP];
    const EvTables *ev[MAXP];
    PyObject *values;
    Game g;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*OLLL", &rb, &kb, &values, &seed, &first_match, &count)) return NULL;
    PyObject *out = NULL;
    if (!parse_rules(&rb, &r) && !parse_seats(&kb, values, &r, kinds, ev)) {
        int64_t wins[MAXP] = {0}, decisions = 0;
        int code = 0;
        Py_BEGIN_ALLOW_THREADS
        for (long long m = 0; m < count && !code; m++) {
            code = play_game(&g, &r, kinds, ev, NULL, seed, first_match + m, 0, -1, NULL);
            free(g.trail);
            if (!code) { wins[g.winner]++; decisions += g.asked; }
        }
        Py_END_ALLOW_THREADS
        if (!failed(code)) out = Py_BuildValue("(LLN)", count, (long long)decisions, ints(wins, r.nsides));
    }
    PyBuffer_Release(&rb);
    PyBuffer_Release(&kb);
    return out;
}

/* One int of a sequence, in [lo, hi]; -1 with an error set otherwise. */
static int int_at(PyObject *seq, Py_ssize_t i, int lo, int hi) {
    PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
    long v = PyLong_AsLong(x);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) {
        PyErr_SetString(PyExc_ValueError, "rollout: a value out of range");
        return -1;
    }
    return (int)v;
}

/* A rollout's view (lane.py NativePlayRollout packs it): root seat, dealer, crib owner, starter
 * (-1: not cut), turn, count, then counted runs: the pile's cards, the (seat, card) pairs laid
 * this deal and the root seat's discards. */
/* The ints of a sequence, each in [0, hi], into ``out`` (at most ``most``): how many, or -1 with
 * an error set. */
static int parse_ints(PyObject *seq, int *out, int most, int hi) {
    PyObject *c = PySequence_Fast(seq, "cards: a sequence");
    if (!c) return -1;
    int n = (int)PySequence_Fast_GET_SIZE(c), ok = n <= most;
    for (int i = 0; ok && i < n; i++) ok = (out[i] = int_at(c, i, 0, hi)) >= 0;
    Py_DECREF(c);
    if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "cards: too many");
    return ok ? n : -1;
}

static int parse_cards(PyObject *seq, int *out, int most) { return parse_ints(seq, out, most, 51); }

/* The cards laid this deal, in order (a search's view of the play so far). */
typedef struct {
    int seat[MAXC], card[MAXC], n;
} Laid;

static int parse_view(PyObject *view, Game *g, PlayState *st, Laid *laid) {
    PyObject *v = PySequence_Fast(view, "rollout: the view is a sequence of ints");
    if (!v) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(v), at = 6;
    int n = g->n, ok = len >= 9, root = 0, top = MAXC - 1 + (int)g->r->jokers; /* the deck's last card */
    if (ok) {
        root = int_at(v, 0, 0, n - 1), g->dealer = int_at(v, 1, 0, n - 1), g->crib_owner = int_at(v, 2, 0, n - 1);
        g->starter = int_at(v, 3, -1, top), st->turn = int_at(v, 4, 0, n - 1);
        st->count = int_at(v, 5, 0, (int)g->r->limit);
        ok = !PyErr_Occurred();
    }
    if (ok) {
        int npile = int_at(v, at++, 0, MAXPILE - 1);
        ok = npile >= 0 && at + npile < len;
        for (int i = 0; ok && i < npile; i++) ok = (st->ranks[st->nranks++] = int_at(v, at++, 0, 51)) >= 0;
        for (int i = 0; ok && i < st->nranks; i++) st->ranks[i] = rank_of(st->ranks[i]);
    }
    if (ok) {
        int nplayed = int_at(v, at++, 0, MAXC);
        ok = nplayed >= 0 && at + 2 * nplayed < len;
        for (int i = 0; ok && i < nplayed; i++) {
            int s = int_at(v, at++, 0, n - 1), c = int_at(v, at++, 0, top);
            ok = s >= 0 && c >= 0;
            if (ok) st->pl.by_rank[rank_of(c)]++, st->pl.by_seat[s]++, st->pl.total++;
            if (ok && laid) laid->seat[laid->n] = s, laid->card[laid->n++] = c;
        }
    }
    if (ok) {
        int nthrown = int_at(v, at++, 0, MAXH);
        ok = nthrown >= 0 && at + nthrown == len;
        for (int i = 0; ok && i < nthrown; i++) ok = (g->thrown[root][i] = int_at(v, at++, 0, top)) >= 0;
        if (ok) g->nthrown[root] = nthrown;
    }
    Py_DECREF(v);
    if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rollout: a malformed view");
    st->root = root;
    return ok ? 0 : -1;
}

static int parse_hands(PyObject *hands, Game *g, PlayState *st) {
    PyObject *h = PySequence_Fast(hands, "rollout: hands by seat");
    if (!h) return -1;
    int ok = PySequence_Fast_GET_SIZE(h) == g->n;
    for (int s = 0; ok && s < g->n; s++)
        ok = (st->hlen[s] = parse_ints(PySequence_Fast_GET_ITEM(h, s), st->hands[s], MAXH,
                                       MAXC - 1 + (int)g->r->jokers)) >= 0;
    Py_DECREF(h);
    if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rollout: one hand a seat, at most 16 cards");
    return ok ? 0 : -1;
}

/* A ValueError (unless one is set already): -1. */
static int bad(const char *why) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, why);
    return -1;
}

/* Whether every card a seat can see is one card: the hands, the cards laid, each seat's own
 * discards (a seat's may repeat another's: the crib cards the others know), the starter and
 * ``extra`` (the searching seat's hand); 0, or -1 with an error set. ev's counts by rank rely on
 * it (a rank's cards left stay within 0..4). */
static int distinct(const Game *g, const PlayState *st, const Laid *laid, const int *extra, int nextra, int most) {
    uint64_t common = 0;
    int ok = 1;
#define TAKE(mask, c) do { ok &= !((mask) >> (c) & 1U); (mask) |= 1ULL << (c); } while (0)
    for (int s = 0; s < g->n; s++)
        for (int i = 0; i < st->hlen[s]; i++) TAKE(common, st->hands[s][i]);
    for (int i = 0; i < laid->n; i++) TAKE(common, laid->card[i]);
    for (int i = 0; i < nextra; i++) TAKE(common, extra[i]);
    if (g->starter >= 0) TAKE(common, g->starter);
    for (int s = 0; s < g->n; s++) {
        uint64_t mine = common;
        for (int i = 0; i < g->nthrown[s]; i++) TAKE(mine, g->thrown[s][i]);
    }
#undef TAKE
    if (!ok) return bad("a card seen twice (hands, cards laid, discards, starter)");
    int hand_size = (int)(g->r->deal - g->r->discard);
    for (int s = 0; s < g->n; s++) /* no seat holds and has laid more than a hand (so a pile fits) */
        ok &= st->hlen[s] + st->pl.by_seat[s] <= hand_size &&
              (s != st->root || !extra || st->pl.by_seat[s] + nextra <= most);
    if (st->nranks > laid->n && st->nranks + g->n * hand_size > MAXPILE - 1) ok = 0; /* the pile, and all to come */
    return ok ? 0 : bad("more cards held and laid than a hand");
}

/* A rollout's game and play state from Python's arguments: 0, or -1 with an error set. */
static int rollout_setup(Game *g, PlayState *st, Rules *r, Py_buffer *rb, PyObject *values, PyObject *view,
                         PyObject *hands, Laid *laid) {
    memset(g, 0, sizeof *g);
    memset(st, 0, sizeof *st);
    if (parse_rules(rb, r)) return -1;
    const EvTables *t = PyCapsule_GetPointer(values, EV_CAPSULE);
    if (!t) return -1;
    g->r = r;
    g->n = (int)r->players;
    for (int s = 0; s < g->n; s++) g->kinds[s] = EV, g->ev[s] = t;
    for (int s = 0; s < r->nsides; s++) g->targets[s] = LOCKED; /* no side wins a rollout */
    st->last = st->first = st->first_as = -1;
    Laid own;
    if (!laid) laid = &own;
    laid->n = 0;
    if (parse_view(view, g, st, laid) || (hands && parse_hands(hands, g, st))) return -1;
    return distinct(g, st, laid, NULL, 0, 0);
}

PyDoc_STRVAR(rollout_doc, "rollout(rules, values, view, hands, first, first_as=-1) -> points pegged by each side\n\n"
                          "The rest of a play from ``view`` (lane.py NativePlayRollout), every seat playing ev's "
                          "one-ply rule with ``values`` from what it can see, the root seat laying ``first`` "
                          "(-1: its rule chooses) at its first decision, counted as ``first_as`` (a joker's "
                          "name; -1: itself): engine/rollout.py PlayRollout.run.");

static PyObject *py_rollout(PyObject *self, PyObject *args) {
    Py_buffer rb;
    PyObject *values, *view, *hands, *out = NULL;
    int first, first_as = -1;
    Rules r;
    Game g;
    PlayState st;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OOOi|i", &rb, &values, &view, &hands, &first, &first_as)) return NULL;
    if (!rollout_setup(&g, &st, &r, &rb, values, view, hands, NULL)) {
        st.first = first, st.first_as = first >= 0 ? first_as : -1;
        if (!failed(play_from(&g, &st))) out = ints(g.scores, r.nsides);
    }
    PyBuffer_Release(&rb);
    return out;
}


/* ---- mc's play decision (strategies/mc.py MCStrategy.play, expert.py ReadingMC and Reader):
 * the sampling from the strategy's own generator state, the reading of the other player, and
 * the rollouts of every legal card, in C ------------------------------------------------------ */

typedef struct {
    Rules r;         /* the rules (the games below point here) */
    PyMT state;      /* the strategy's generator */
    int hand_buf[MAXH];
    Game g;          /* the rollouts' game: every seat on ev's rule, the root's own discards */
    Game gr;         /* the reading's: the other player's drawn hand and discards, the replay */
    PlayState st;    /* the play as it stands */
    Laid laid;       /* the cards laid this deal */
    PyMT *mt;
    int me, n, unseen[MAXDECK], nunseen, sizes[MAXP], floor[MAXP], order[MAXP], norder;
    const int *hand;
    int hn;
    /* the reading (two players): the other player's laid cards, its gos' floor, the replay */
    int reading, by_play, tries, other, olaid[MAXH], nolaid, ofloor, mine_full[MAXH], nmine_full;
    double slack;
} Search;

/* mc.sampler's deal of the unseen cards to the other seats (hands by seat, lengths in hl). */
static void plain_sample(Search *x, int (*hands)[MAXH], int *hl) {
    int pool[MAXDECK], np = x->nunseen;
    memcpy(pool, x->unseen, sizeof(int) * (size_t)np);
    pmt_shuffle(x->mt, pool, np);
    memset(hl, 0, sizeof(int) * MAXP);
    for (int o = 0; o < x->norder; o++) {
        int s = x->order[o], f = x->floor[s], need = x->sizes[s], k = 0, took[MAXDECK];
        for (int i = 0; i < np && k < need; i++)
            if (!f || held_value(pool[i]) > f) took[k++] = pool[i]; /* (a joker fits any count) */
        for (int i = 0; i < np && k < need; i++) { /* cannot honour the gos: any card */
            int dup = 0;
            for (int j = 0; j < k; j++) dup |= took[j] == pool[i];
            if (!dup) took[k++] = pool[i];
        }
        memcpy(hands[s], took, sizeof(int) * (size_t)k);
        hl[s] = k;
        int rest = 0;
        for (int i = 0; i < np; i++) {
            int gone = 0;
            for (int j = 0; j < k; j++) gone |= took[j] == pool[i];
            if (!gone) pool[rest++] = pool[i];
        }
        np = rest;
    }
}

/* Reader.plays_as_ev: the play so far replayed with the other player holding ``held`` and the
 * cards it laid, having thrown ``thrown``: 1, 0 (refused), or a failure. */
static int plays_as_ev(Search *x, const int *held, int nheld, const int *thrown) {
    if (!x->by_play || !x->nolaid) return 1;
    Game *g = &x->gr;
    PlayState st;
    struct Script sc;
    memset(&st, 0, sizeof st);
    memset(&sc, 0, sizeof sc);
    memcpy(st.hands[x->me], x->mine_full, sizeof(int) * (size_t)x->nmine_full);
    st.hlen[x->me] = x->nmine_full;
    memcpy(st.hands[x->other], held, sizeof(int) * (size_t)nheld);
    memcpy(st.hands[x->other] + nheld, x->olaid, sizeof(int) * (size_t)x->nolaid);
    st.hlen[x->other] = nheld + x->nolaid;
    st.turn = g->dealer + 1 < g->n ? g->dealer + 1 : 0;
    st.last = st.first = -1;
    st.root = x->me;
    memcpy(g->thrown[x->other], thrown, sizeof(int) * 2);
    g->nthrown[x->other] = 2;
    memcpy(sc.seats, x->laid.seat, sizeof(int) * (size_t)x->laid.n);
    memcpy(sc.cards, x->laid.card, sizeof(int) * (size_t)x->laid.n);
    sc.nlaid = x->laid.n, sc.other = x->other, sc.slack = x->slack, sc.mt = x->mt;
    g->script = &sc;
    int code = play_from(g, &st);
    g->script = NULL;
    return code < 0 ? code : code != REFUSED;
}

/* Reader.draw: the other player's cards not yet laid (in *held), from ``tries`` draws at most:
 * 1 for the first that passes or the last that held its laid cards, 0 for none, or a failure. */
static int read_draw(Search *x, int *held, int *nheld) {
    int need = 6 - x->nolaid, found = 0;
    for (int t = 0; t < x->tries; t++) {
        int six[6], thrown[2], h[6], k = 0, bad = 0;
        memcpy(six, x->olaid, sizeof(int) * (size_t)x->nolaid);
        if (pmt_sample(x->mt, x->unseen, x->nunseen, need, six + x->nolaid)) return UNSAMPLED;
        memcpy(x->gr.hands[x->other], six, sizeof six);
        x->gr.hlen[x->other] = 6;
        ev_discard(&x->gr, x->other, 2, -1, x->gr.ev[x->other], thrown);
        for (int i = 0; i < x->nolaid; i++) bad |= x->olaid[i] == thrown[0] || x->olaid[i] == thrown[1];
        if (bad) continue;
        for (int i = x->nolaid; i < 6; i++)
            if (six[i] != thrown[0] && six[i] != thrown[1]) h[k++] = six[i];
        for (int i = 0; i < k && x->ofloor; i++) bad |= value_of(h[i]) <= x->ofloor;
        if (bad) continue;
        int code = plays_as_ev(x, h, k, thrown);
        if (code < 0) return code;
        memcpy(held, h, sizeof(int) * (size_t)k);
        *nheld = k;
        found = 1;
        if (code) return 1;
    }
    return found;
}

/* One deal of the cards the root seat cannot see (its own hand in its seat). */
static int search_sample(Search *x, int (*hands)[MAXH], int *hl) {
    int got = 0;
    if (x->reading) {
        int held[MAXH], nheld = 0;
        got = read_draw(x, held, &nheld);
        if (got < 0) return got;
        if (got) {
            memset(hl, 0, sizeof(int) * MAXP);
            memcpy(hands[x->other], held, sizeof(int) * (size_t)nheld);
            hl[x->other] = nheld;
        }
    }
    if (!got) plain_sample(x, hands, hl);
    memcpy(hands[x->me], x->hand, sizeof(int) * (size_t)x->hn);
    hl[x->me] = x->hn;
    return 0;
}

/* MCStrategy.play's loop: the index of the option chosen (a card ``legal[i]`` counted as
 * ``names[i]``: a joker once per name that fits, V-JOKERS), or a failure. */
static int mc_choose(Search *x, const int *legal, const int *names, int nlegal, int rollouts) {
    int64_t totals[MAXOPT] = {0};
    int mine = (int)x->g.r->side_of[x->me];
    for (int r = 0; r < rollouts; r++) {
        int hands[MAXP][MAXH], hl[MAXP];
        int code = search_sample(x, hands, hl);
        if (code < 0) return code;
        for (int i = 0; i < nlegal; i++) {
            PlayState st = x->st;
            memcpy(st.hands, hands, sizeof hands);
            memcpy(st.hlen, hl, sizeof hl);
            st.first = legal[i];
            st.first_as = names[i] != legal[i] ? names[i] : -1;
            memset(x->g.scores, 0, sizeof x->g.scores);
            code = play_from(&x->g, &st);
            if (code < 0) return code;
            int64_t all = 0;
            for (int s = 0; s < x->g.r->nsides; s++) all += x->g.scores[s];
            totals[i] += 2 * x->g.scores[mine] - all;
        }
    }
    int best = 0;
    for (int i = 1; i < nlegal; i++) { /* max by (objective x total, the value counted): the first */
        int64_t a = x->g.r->objective * totals[i], b = x->g.r->objective * totals[best];
        if (a > b || (a == b && value_of(names[i]) > value_of(names[best]))) best = i;
    }
    return best;
}

static int parse_state(PyObject *state, PyMT *mt) {
    PyObject *v = PySequence_Fast(state, "mc_play: the generator's state words");
    if (!v) return -1;
    int ok = PySequence_Fast_GET_SIZE(v) == 625;
    for (int i = 0; ok && i < 624; i++) {
        unsigned long w = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(v, i));
        ok = !PyErr_Occurred() && w <= 0xffffffffUL;
        mt->mt[i] = (uint32_t)w;
    }
    if (ok) {
        long k = PyLong_AsLong(PySequence_Fast_GET_ITEM(v, 624));
        ok = !PyErr_Occurred() && k >= 0 && k <= 624;
        mt->mti = (int)k;
    }
    Py_DECREF(v);
    if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "mc_play: not a generator's state");
    return ok ? 0 : -1;
}

static PyObject *state_of(const PyMT *mt) {
    PyObject *t = PyTuple_New(625);
    for (int i = 0; t && i < 624; i++) {
        PyObject *w = PyLong_FromUnsignedLong(mt->mt[i]);
        if (!w) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, i, w);
    }
    PyObject *k = t ? PyLong_FromLong(mt->mti) : NULL;
    if (!k) { Py_XDECREF(t); return NULL; }
    PyTuple_SET_ITEM(t, 624, k);
    return t;
}

/* The search's fixed parts from the play as it stands: the unseen cards, the other seats' hand
 * sizes and gos' floors, and (reading) the other player's laid cards and floor. */
static int search_setup(Search *x, PyObject *hand, PyObject *gos, PyObject *reading, int most) {
    const Rules *r = x->g.r;
    int n = x->n = x->g.n, me = x->me = x->st.root, hand_size = (int)(r->deal - r->discard), limit = (int)r->limit;
    if ((x->hn = parse_ints(hand, x->hand_buf, MAXH, MAXC - 1 + (int)r->jokers)) < 0 ||
        distinct(&x->g, &x->st, &x->laid, x->hand_buf, x->hn, most))
        return -1;
    x->hand = x->hand_buf;
    uint64_t seen = 0;
    for (int i = 0; i < x->hn; i++) seen |= 1ULL << x->hand[i];
    for (int i = 0; i < x->laid.n; i++) seen |= 1ULL << x->laid.card[i];
    for (int i = 0; i < x->g.nthrown[me]; i++) seen |= 1ULL << x->g.thrown[me][i];
    if (x->g.starter >= 0) seen |= 1ULL << x->g.starter;
    x->nunseen = 0;
    for (int c = 0; c < MAXC + r->jokers; c++) /* in deck order, the wild cards last */
        if (!(seen >> c & 1U)) x->unseen[x->nunseen++] = c;
    int g[2 * MAXC], ng = gos == Py_None ? 0 : parse_ints(gos, g, 2 * MAXC, 10000); /* (seat, count) pairs */
    if (ng < 0 || (ng % 2 && bad("the gos: seat and count pairs"))) return -1;
    for (int s = 0; s < n; s++) x->sizes[s] = hand_size - x->st.pl.by_seat[s], x->floor[s] = 0;
    for (int i = 0; i < ng; i += 2)
        if (g[i] < n && limit - g[i + 1] > x->floor[g[i]]) x->floor[g[i]] = limit - g[i + 1];
    x->norder = 0;
    for (int s = 0; s < n; s++) /* sorted by -floor, stable */
        if (s != me && x->sizes[s] > 0) {
            int at = x->norder++;
            while (at > 0 && x->floor[x->order[at - 1]] < x->floor[s]) x->order[at] = x->order[at - 1], at--;
            x->order[at] = s;
        }
    x->reading = 0;
    if (reading != Py_None) {
        PyObject *t = PySequence_Tuple(reading);
        int ok = t && PyArg_ParseTuple(t, "pdi", &x->by_play, &x->slack, &x->tries);
        Py_XDECREF(t);
        if (!ok) return -1;
        x->reading = n == 2 && hand_size == 4 && r->discard == 2 && !r->jokers; /* ReadingMC.sampler_for */
    }
    if (x->reading) {
        x->gr = x->g;
        x->other = 1 - me;
        x->nolaid = x->nmine_full = x->ofloor = 0;
        memcpy(x->mine_full, x->hand, sizeof(int) * (size_t)x->hn);
        x->nmine_full = x->hn;
        for (int i = 0; i < x->laid.n; i++)
            if (x->laid.seat[i] == x->other) x->olaid[x->nolaid++] = x->laid.card[i];
            else x->mine_full[x->nmine_full++] = x->laid.card[i];
        for (int i = 0; i < ng; i += 2)
            if (g[i] == x->other && limit - g[i + 1] > x->ofloor) x->ofloor = limit - g[i + 1];
    }
    return 0;
}

PyDoc_STRVAR(mc_play_doc, "mc_play(rules, values, view, hand, legal, gos, rollouts, state, reading, names=None) -> "
                          "(index of the card chosen, the generator's state after)\n\n"
                          "MCStrategy.play for a seat with ``view`` (lane.py NativePlayRollout's), drawing "
                          "from ``state`` (random.Random.getstate()[1]); ``reading``: None, or (by_play, "
                          "slack, tries) for expert's ReadingMC; ``names``: the card each of ``legal`` "
                          "counts as (a joker once per name that fits; None: each itself).");

/* A search's working state, made for one call (a callback while its arguments are read may
 * search again: nothing is shared between calls). */
static Search *new_search(void) {
    Search *x = PyMem_Calloc(1, sizeof(Search));
    if (!x) PyErr_NoMemory();
    return x;
}

static PyObject *py_mc_play(PyObject *self, PyObject *args) {
    Py_buffer rb;
    PyObject *values, *view, *hand, *legal, *gos, *state, *reading, *out = NULL;
    PyObject *names_of = Py_None;
    int rollouts;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OOOOOiOO|O", &rb, &values, &view, &hand, &legal, &gos, &rollouts, &state, &reading,
                          &names_of))
        return NULL;
    Search *x = new_search();
    int cards[MAXOPT], names[MAXOPT], nlegal = 0;
    if (x && !rollout_setup(&x->g, &x->st, &x->r, &rb, values, view, NULL, &x->laid) &&
        !parse_state(state, &x->state) &&
        (nlegal = parse_ints(legal, cards, MAXOPT, MAXC - 1 + (int)x->r.jokers)) >= 0 &&
        (nlegal > 0 || !bad("mc_play: no legal card")) &&
        (names_of == Py_None ? (memcpy(names, cards, sizeof cards), 1)
                             : parse_ints(names_of, names, MAXOPT, MAXC - 1) == nlegal || !bad("mc_play: a name a card")) &&
        !search_setup(x, hand, gos, reading, (int)(x->r.deal - x->r.discard))) {
        x->mt = &x->state;
        int best = mc_choose(x, cards, names, nlegal, rollouts);
        if (!failed(best)) out = Py_BuildValue("(iN)", best, state_of(&x->state));
    }
    PyMem_Free(x);
    PyBuffer_Release(&rb);
    return out;
}

/* ``n`` ints of a sequence as 64-bit scores: 0, or -1 with an error set. */
static int parse_scores(PyObject *seq, int64_t *out, int n) {
    PyObject *v = PySequence_Fast(seq, "scores: a sequence");
    if (!v) return -1;
    int ok = PySequence_Fast_GET_SIZE(v) == n;
    for (int i = 0; ok && i < n; i++) {
        out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(v, i));
        ok = !PyErr_Occurred();
    }
    Py_DECREF(v);
    if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "scores: one a side");
    return ok ? 0 : -1;
}

/* ---- expert's board (strategies/expert.py board_discard, board_play): deals sampled from the
 * strategy's generator state, each played to the end of its show from the real scores, valued
 * by the chance to win from the board table ------------------------------------------------ */

typedef struct {
    int64_t n;      /* the table's side: scores 0 .. n - 1 */
    double v[];     /* the dealer's chance to win, [dealer's score * n + the other's] */
} WinTable;

#define WIN_CAPSULE "cribsim.native.win"

static void free_table(PyObject *cap) { free(PyCapsule_GetPointer(cap, WIN_CAPSULE)); }

PyDoc_STRVAR(win_table_doc, "win_table(n, packed) -> capsule: the board table (n x n doubles) for the board calls");

static PyObject *py_win_table(PyObject *self, PyObject *args) {
    Py_buffer b;
    long long n;
    (void)self;
    if (!PyArg_ParseTuple(args, "Ly*", &n, &b)) return NULL;
    WinTable *t = NULL;
    if (n < 1 || n > 10000 || b.len != (Py_ssize_t)(sizeof(double) * (size_t)(n * n))) {
        PyErr_SetString(PyExc_ValueError, "win_table: n x n doubles");
    } else if (!(t = malloc(sizeof *t + (size_t)b.len))) {
        PyErr_NoMemory();
    } else {
        t->n = n;
        memcpy(t->v, b.buf, (size_t)b.len);
    }
    PyBuffer_Release(&b);
    if (!t) return NULL;
    PyObject *cap = PyCapsule_New(t, WIN_CAPSULE, free_table);
    if (!cap) free(t);
    return cap;
}

typedef struct {
    const WinTable *win;
    int64_t scores[MAXP], target;
    int side; /* the searching seat's side */
} Board;

/* ExpertStrategy.chance: our chance to win from the scores at the end of a deal. */
static double board_chance(const Search *x, const Board *b, int side, const int64_t *scores) {
    if (side >= 0) return side == b->side ? 1.0 : 0.0;
    int dealer_side = (int)x->g.r->side_of[x->g.dealer], nxt = 1 - dealer_side;
    int64_t a = scores[nxt], o = scores[dealer_side];
    if (a < 0 || o < 0 || a >= b->win->n || o >= b->win->n) return -1.0; /* off the table: the caller fails */
    double v = b->win->v[a * b->win->n + o];
    return nxt == b->side ? v : 1.0 - v;
}

/* DealRollout.run on x->gr: ``kept`` hands, the crib, the others' discards, and either the play
 * from its start after the cut (``st`` NULL) or resumed from ``st``. The side that reached its
 * target (or -1) in *side; 0 or a failure. */
static int deal_run(Search *x, const Board *b, PlayState *st, const int (*kept)[MAXH], const int *kl,
                    const int *crib, int clen, const int *root_thrown, int nroot, int starter, int *side) {
    Game *g = &x->gr;
    const Rules *r = g->r;
    int me = x->me, code;
    memcpy(g->scores, b->scores, sizeof g->scores);
    for (int s = 0; s < r->nsides; s++) g->targets[s] = b->target;
    for (int s = 0; s < g->n; s++) {
        memcpy(g->hands[s], kept[s], sizeof(int) * (size_t)kl[s]);
        g->hlen[s] = kl[s];
        g->nthrown[s] = 0;
    }
    memcpy(g->thrown[me], root_thrown, sizeof(int) * (size_t)nroot);
    g->nthrown[me] = nroot;
    for (int i = 0; i < clen; i++) { /* the others know the crib cards not the root seat's */
        int own = 0;
        for (int j = 0; j < nroot; j++) own |= crib[i] == root_thrown[j];
        if (!own)
            for (int s = 0; s < g->n; s++)
                if (s != me) g->thrown[s][g->nthrown[s]++] = crib[i];
    }
    memcpy(g->crib, crib, sizeof(int) * (size_t)clen);
    g->clen = clen;
    g->winner = -1;
    g->script = NULL;
    if (!st) {
        g->starter = starter;
        code = rank_of(starter) == 10 && r->heels && award(g, g->dealer, r->heels, HEELS);
        if (!code) code = play(g);
    } else {
        code = play_from(g, st);
    }
    if (!code) code = show(g);
    if (code < 0) return code;
    *side = code ? g->winner : -1;
    return 0;
}

PyDoc_STRVAR(board_discard_doc, "board_discard(rules, values, view, hand, throws, samples, state, scores, target, win) "
                                "-> (wins by throw, the generator's state after)\n\n"
                                "ExpertStrategy.board_discard's samples: ``throws`` flat pairs, best first.");

/* The board calls' common checks: two players (two sides, one place), the table, the scores. */
static int board_setup(Search *x, Board *b, PyObject *scores, long long target, PyObject *win) {
    const Rules *r = &x->r;
    if (r->players != 2 || r->nsides != 2 || r->places != 1) return bad("the board: two players");
    if (r->jokers) return bad("the board: a 52-card deck");
    if (!(b->win = PyCapsule_GetPointer(win, WIN_CAPSULE)) || parse_scores(scores, b->scores, 2)) return -1;
    b->target = target, b->side = (int)r->side_of[x->me];
    x->gr = x->g;
    x->mt = &x->state;
    return 0;
}

/* A sampled deal's chance added to *wins: 0, or a failure. */
static int add_chance(const Search *x, const Board *b, int side, double *wins) {
    double p = board_chance(x, b, side, x->gr.scores);
    if (p < 0) return OFFBOARD;
    *wins += p;
    return 0;
}

static PyObject *wins_and_state(const double *wins, int n, const PyMT *mt) {
    PyObject *w = PyTuple_New(n);
    for (int i = 0; w && i < n; i++) {
        PyObject *f = PyFloat_FromDouble(wins[i]);
        if (!f) { Py_CLEAR(w); break; }
        PyTuple_SET_ITEM(w, i, f);
    }
    return w ? Py_BuildValue("(NN)", w, state_of(mt)) : NULL;
}

static int board_discard_run(Search *x, Board *b, const int *tw, int nt, int samples, double *wins) {
    int me = x->me, other = 1 - me, code = 0, unseen[52], nu = 0;
    uint64_t mine = 0;
    for (int i = 0; i < x->hn; i++) mine |= 1ULL << x->hand[i];
    for (int c = 0; c < 52; c++)
        if (!(mine >> c & 1U)) unseen[nu++] = c;
    if (nu < 7) return UNSAMPLED;
    for (int k = 0; k < samples && !code; k++) {
        int theirs[2], kept[MAXP][MAXH], kl[MAXP] = {0}, crib[4], side;
        pmt_shuffle(x->mt, unseen, nu);
        memcpy(x->gr.hands[other], unseen, sizeof(int) * 6);
        x->gr.hlen[other] = 6;
        ev_discard(&x->gr, other, 2, -1, x->gr.ev[other], theirs);
        for (int i = 0; i < 6; i++)
            if (unseen[i] != theirs[0] && unseen[i] != theirs[1]) kept[other][kl[other]++] = unseen[i];
        for (int t = 0; t < nt && !code; t++) {
            kl[me] = 0;
            for (int i = 0; i < x->hn; i++)
                if (x->hand[i] != tw[2 * t] && x->hand[i] != tw[2 * t + 1]) kept[me][kl[me]++] = x->hand[i];
            crib[0] = tw[2 * t], crib[1] = tw[2 * t + 1], crib[2] = theirs[0], crib[3] = theirs[1];
            code = deal_run(x, b, NULL, (const int (*)[MAXH])kept, kl, crib, 4, tw + 2 * t, 2, unseen[6], &side);
            if (!code) code = add_chance(x, b, side, &wins[t]);
        }
    }
    return code;
}

static PyObject *py_board_discard(PyObject *self, PyObject *args) {
    Py_buffer rb;
    PyObject *values, *view, *hand, *throws, *state, *scores, *win, *out = NULL;
    int samples;
    long long target;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OOOOiOOLO", &rb, &values, &view, &hand, &throws, &samples, &state, &scores,
                          &target, &win))
        return NULL;
    Search *x = new_search();
    Board b;
    int tw[2 * MAXH], ntw = 0;
    if (x && !rollout_setup(&x->g, &x->st, &x->r, &rb, values, view, NULL, &x->laid) &&
        !parse_state(state, &x->state) && (ntw = parse_ints(throws, tw, 2 * MAXH, 51)) >= 0 &&
        ((ntw >= 2 && ntw % 2 == 0) || !bad("board_discard: throws as pairs of cards")) &&
        !search_setup(x, hand, Py_None, Py_None, (int)x->r.deal) && !board_setup(x, &b, scores, target, win)) {
        int ok = x->hn == 6; /* each throw: two cards of the hand */
        for (int i = 0; ok && i < ntw; i++) {
            int in = 0;
            for (int j = 0; j < x->hn; j++) in |= x->hand[j] == tw[i];
            ok = in && (i % 2 == 0 || tw[i] != tw[i - 1]);
        }
        double wins[MAXH] = {0};
        if (!ok) bad("board_discard: a hand of six and throws of two of its cards");
        else if (!failed(board_discard_run(x, &b, tw, ntw / 2, samples, wins)))
            out = wins_and_state(wins, ntw / 2, &x->state);
    }
    PyMem_Free(x);
    PyBuffer_Release(&rb);
    return out;
}

PyDoc_STRVAR(board_play_doc, "board_play(rules, values, view, hand, options, gos, samples, state, scores, target, win) "
                             "-> (wins by option, the generator's state after)\n\n"
                             "ExpertStrategy.board_play's samples for the cards ``options``.");

static int board_play_run(Search *x, Board *b, const int *opts, int nopt, int samples, double *wins) {
    int me = x->me, other = 1 - me, code = 0, kept[MAXP][MAXH], kl[MAXP] = {0};
    for (int i = 0; i < x->hn; i++) kept[me][kl[me]++] = x->hand[i];
    for (int i = 0; i < x->laid.n; i++)
        if (x->laid.seat[i] == me) kept[me][kl[me]++] = x->laid.card[i];
    for (int k = 0; k < samples && !code; k++) {
        int held[MAXP][MAXH], hl[MAXP], rest[MAXC], nr = 0, crib[MAXC], clen = x->g.nthrown[me], side;
        plain_sample(x, held, hl);
        memcpy(held[me], x->hand, sizeof(int) * (size_t)x->hn);
        hl[me] = x->hn;
        for (int i = 0; i < x->nunseen; i++) {
            int taken = 0;
            for (int j = 0; j < hl[other]; j++) taken |= held[other][j] == x->unseen[i];
            if (!taken) rest[nr++] = x->unseen[i];
        }
        memcpy(crib, x->g.thrown[me], sizeof(int) * (size_t)clen);
        if (pmt_sample(x->mt, rest, nr, 4 - clen, crib + clen)) return UNSAMPLED;
        kl[other] = 0;
        for (int j = 0; j < hl[other]; j++) kept[other][kl[other]++] = held[other][j];
        for (int i = 0; i < x->laid.n; i++)
            if (x->laid.seat[i] == other) kept[other][kl[other]++] = x->laid.card[i];
        for (int i = 0; i < nopt && !code; i++) {
            PlayState st = x->st;
            memcpy(st.hands, held, sizeof held);
            memcpy(st.hlen, hl, sizeof hl);
            st.first = opts[i];
            code = deal_run(x, b, &st, (const int (*)[MAXH])kept, kl, crib, 4, x->g.thrown[me], x->g.nthrown[me],
                            x->g.starter, &side);
            if (!code) code = add_chance(x, b, side, &wins[i]);
        }
    }
    return code;
}

static PyObject *py_board_play(PyObject *self, PyObject *args) {
    Py_buffer rb;
    PyObject *values, *view, *hand, *options, *gos, *state, *scores, *win, *out = NULL;
    int samples;
    long long target;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OOOOOiOOLO", &rb, &values, &view, &hand, &options, &gos, &samples, &state, &scores,
                          &target, &win))
        return NULL;
    Search *x = new_search();
    Board b;
    int opts[MAXH], nopt = 0;
    if (x && !rollout_setup(&x->g, &x->st, &x->r, &rb, values, view, NULL, &x->laid) &&
        !parse_state(state, &x->state) && (nopt = parse_cards(options, opts, MAXH)) >= 0 &&
        (nopt > 0 || !bad("board_play: no card to value")) && !search_setup(x, hand, gos, Py_None, (int)(x->r.deal - x->r.discard)) &&
        !board_setup(x, &b, scores, target, win) &&
        (x->g.starter >= 0 || !bad("board_play: a play decision, with its starter"))) {
        double wins[MAXH] = {0};
        if (!failed(board_play_run(x, &b, opts, nopt, samples, wins))) out = wins_and_state(wins, nopt, &x->state);
    }
    PyMem_Free(x);
    PyBuffer_Release(&rb);
    return out;
}

PyDoc_STRVAR(derive_doc, "derive(ints) -> rng.derive(*ints), for the tests");

static PyObject *py_derive(PyObject *self, PyObject *arg) {
    int64_t v[15];
    (void)self;
    Py_ssize_t n = PySequence_Size(arg);
    if (n < 1 || n > 15) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "1 to 15 ints");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PySequence_GetItem(arg, i);
        if (!x) return NULL;
        v[i] = PyLong_AsLongLong(x);
        Py_DECREF(x);
        if (PyErr_Occurred()) return NULL;
    }
    return PyLong_FromUnsignedLongLong(derive(v, (int)n));
}

PyDoc_STRVAR(refuse_doc, "refuse(rules) -> why the lane does not play these rules, or None");

static PyObject *py_refuse(PyObject *self, PyObject *arg) {
    Py_buffer rb;
    Rules r;
    (void)self;
    if (PyObject_GetBuffer(arg, &rb, PyBUF_SIMPLE) < 0) return NULL;
    int bad = parse_rules(&rb, &r);
    PyBuffer_Release(&rb);
    if (bad) {
        PyObject *type, *value, *trace;
        PyErr_Fetch(&type, &value, &trace);
        Py_XDECREF(type);
        Py_XDECREF(trace);
        PyObject *why = value ? PyObject_Str(value) : NULL;
        Py_XDECREF(value);
        return why;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"refuse", py_refuse, METH_O, refuse_doc},
    {"game", py_game, METH_VARARGS, game_doc},
    {"games", py_games, METH_VARARGS, games_doc},
    {"ev_values", py_ev_values, METH_O, ev_values_doc},
    {"rollout", py_rollout, METH_VARARGS, rollout_doc},
    {"mc_play", py_mc_play, METH_VARARGS, mc_play_doc},
    {"win_table", py_win_table, METH_VARARGS, win_table_doc},
    {"board_discard", py_board_discard, METH_VARARGS, board_discard_doc},
    {"board_play", py_board_play, METH_VARARGS, board_play_doc},
    {"derive", py_derive, METH_O, derive_doc},
    {"hook_state", py_hook_state, METH_O, hook_state_doc},
    {"hook_cards", py_hook_cards, METH_O, hook_cards_doc},
    {"hook_award", py_hook_award, METH_VARARGS, hook_award_doc},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_lane", "cribsim's native lane (see _lane.c)", -1,
                                    methods, NULL, NULL, NULL, NULL};

/* The rules struct's layout as this module was built with it: ((name, width), ...), which lane.py
 * checks against layout.py before it packs a rule set. */
static PyObject *rules_layout(void) {
    PyObject *t = PyTuple_New(RULES_FIELD_COUNT);
    for (int i = 0; t && i < RULES_FIELD_COUNT; i++) {
        PyObject *item = Py_BuildValue("(si)", RULES_LAYOUT[i].name, RULES_LAYOUT[i].width);
        if (!item) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, item);
    }
    return t;
}

PyMODINIT_FUNC PyInit__lane(void) {
    mt_base();
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddStringConstant(m, "SOURCE", LANE_SOURCE) < 0 ||
              PyModule_AddObject(m, "RULES_LAYOUT", rules_layout()) < 0 ||
              PyModule_AddObject(m, "METRICS", Py_BuildValue("(sssss)", METRIC_NAMES)) < 0 ||
              PyModule_AddObject(m, "KINDS", Py_BuildValue("(ssss)", KIND_NAMES)) < 0 ||
              PyModule_AddIntConstant(m, "EV_HAND", EV_HAND) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
