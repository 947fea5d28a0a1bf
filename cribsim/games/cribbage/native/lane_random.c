/* lane_random.c: the addressed random streams: BLAKE2b as cribsim/rng.py derives a seed, and CPython's
 * random.Random (MT19937) as a strategy's generator and the cut draw from it (R-DEAL-1's cut, every deck).
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

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

