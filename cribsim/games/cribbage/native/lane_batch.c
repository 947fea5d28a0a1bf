/* lane_batch.c: a batch of whole matches (R-MATCH-1..3, the match format's table of game points),
 * each written as the line of matches.jsonl.gz the tournament writes for it, with the figures its
 * summary sums read (cribsim/tournament/lanebatch.py).
 *
 * The match loop is cribsim/games/cribbage/match.py's games_until_settled, for the rules the
 * batch path takes (lanebatch.py says which: one layout for every game, one place, the "table"
 * scoring of game points, the sides ranked by score): each game's skunk level (R-MATCH-1), its
 * game points (R-MATCH-2), the match settled (matchplay.settled) and the loser dealing first in
 * the next game (R-MATCH-3). The line is json.dumps(MatchRecord.to_json()) byte for byte (a test
 * holds them to each other).
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* ---- text ------------------------------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t len, cap;
    int nomem;
} Text;

static void text_reserve(Text *t, size_t more) {
    if (t->nomem || t->len + more <= t->cap) return;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + more) cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) { t->nomem = 1; return; }
    t->p = p, t->cap = cap;
}

static void put(Text *t, const char *s, size_t n) {
    text_reserve(t, n);
    if (t->nomem) return;
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

#define PUTS(t, lit) put((t), (lit), sizeof(lit) - 1)

static void put_int(Text *t, int64_t v) {
    char buf[24];
    int i = 24;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do { buf[--i] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) buf[--i] = '-';
    put(t, buf + i, (size_t)(24 - i));
}

static void put_ints(Text *t, const int64_t *v, int n) {
    PUTS(t, "[");
    for (int i = 0; i < n; i++) {
        if (i) PUTS(t, ",");
        put_int(t, v[i]);
    }
    PUTS(t, "]");
}

/* ---- the match format ------------------------------------------------------------------------ */

enum { F_GAMES, F_FIRST_TO, F_TRIPLE_WINS, F_POINTS, F_LINES = F_POINTS + 4, F_NLINES = F_LINES + 3, F_WIDTH };

/* skunk_level: 0 none .. 3 triple, the loser below each line (R-MATCH-1). */
static int skunk_of(const int64_t *fmt, int64_t loser) {
    int level = 0;
    for (int i = 0; i < fmt[F_NLINES]; i++)
        if (loser < fmt[F_LINES + i]) level = i + 1;
    return level;
}

/* matchplay.settled: the match's winner once the format says it is over, else -2. */
static int settled_by(const int64_t *fmt, const int64_t *points, int k, int played, int last_winner) {
    int64_t best = points[0];
    int leader = 0, leaders = 0;
    for (int s = 1; s < k; s++) if (points[s] > best) best = points[s], leader = s;
    for (int s = 0; s < k; s++) leaders += points[s] == best;
    if (fmt[F_GAMES]) {
        if (played < fmt[F_GAMES]) return -2;
        return leaders == 1 ? leader : -1;
    }
    if (best < fmt[F_FIRST_TO]) return -2;
    return leaders == 1 ? leader : last_winner;
}

/* Program.rank_sides by default: the winner, then the others from its left by score (a stable sort). */
static void order_of(const Game *g, int k, int *order) {
    int m = 0;
    order[m++] = g->winner;
    for (int i = 1; i < k; i++) {
        int s = (g->winner + i) % k, at = m++;
        while (at > 1 && g->scores[order[at - 1]] < g->scores[s]) { order[at] = order[at - 1]; at--; }
        order[at] = s;
    }
}

/* match.next_first_dealer (R-MATCH-3): the seat nearest clockwise after the last first dealer
 * whose side lost with the lowest score. */
static int next_dealer(const Game *g, int k, const int *order) {
    int64_t last = g->scores[order[k - 1]];
    for (int i = 1; i <= g->n; i++) {
        int seat = (g->first_dealer + i) % g->n, side = (int)g->r->side_of[seat];
        if (side != g->winner && g->scores[side] == last) return seat;
    }
    return 0; /* (unreachable: a losing side has the lowest score) */
}

/* ---- one game's line and figures --------------------------------------------------------------- */

static const char *const SOURCE_NAMES[NSRC] = {"peg", "hand", "crib", "heels", "other"};
static const char *const METRIC_NAME[NMETRICS] = {METRIC_NAMES};

/* GameRecord.to_json of a game, as json.dumps writes it (``sides``: the rules' sides, rendered). */
static void put_game(Text *t, const Game *g, int k, const int *order, int skunk, const char *sides) {
    PUTS(t, "{\"winner\":");
    put_int(t, g->winner);
    PUTS(t, ",\"scores\":");
    put_ints(t, g->scores, k);
    PUTS(t, ",\"deals\":");
    put_int(t, g->deal_no + 1);
    PUTS(t, ",\"first_dealer\":");
    put_int(t, g->first_dealer);
    if (g->r->side_of[g->first_dealer] == g->winner) PUTS(t, ",\"first_dealer_won\":true,\"skunk\":");
    else PUTS(t, ",\"first_dealer_won\":false,\"skunk\":");
    put_int(t, skunk);
    PUTS(t, ",\"sides\":");
    put(t, sides, strlen(sides));
    PUTS(t, ",\"order\":[");
    for (int i = 0; i < k; i++) {
        if (i) PUTS(t, ",");
        put_int(t, order[i]);
    }
    PUTS(t, "],\"points\":{");
    for (int src = 0; src < NSRC; src++) {
        if (src) PUTS(t, ",");
        PUTS(t, "\"");
        put(t, SOURCE_NAMES[src], strlen(SOURCE_NAMES[src]));
        PUTS(t, "\":[");
        for (int role = 0; role < g->n; role++) {
            if (role) PUTS(t, ",");
            put_int(t, g->by_role[role][src]);
        }
        PUTS(t, "]");
    }
    PUTS(t, "}");
    if (g->touched) {
        PUTS(t, ",\"metrics\":{");
        int first = 1;
        for (int i = 0; i < NMETRICS; i++) {
            if (!(g->touched >> i & 1U)) continue;
            if (!first) PUTS(t, ",");
            first = 0;
            PUTS(t, "\"");
            put(t, METRIC_NAME[i], strlen(METRIC_NAME[i]));
            PUTS(t, "\":");
            put_int(t, g->metric[i]);
        }
        PUTS(t, "}");
    }
    PUTS(t, ",\"trail\":["); /* records.flat_trail: the first scores, then each step's gains */
    for (int s = 0; s < k; s++) {
        if (s) PUTS(t, ",");
        put_int(t, g->trail[s]);
    }
    for (int row = 1; row < g->trail_rows; row++)
        for (int s = 0; s < k; s++) {
            PUTS(t, ",");
            put_int(t, g->trail[(size_t)row * MAXP + s] - g->trail[(size_t)(row - 1) * MAXP + s]);
        }
    PUTS(t, "],\"decisions\":");
    put_int(t, g->asked);
    PUTS(t, "}");
}

/* The figures a game's summary columns read (lanebatch.GAME_FIELDS): its match, deals, whether
 * the first dealer's side won, skunk, decisions, winner, points by role and source, metrics. */
#define GAME_HEAD 6
static int game_width(int n) { return GAME_HEAD + n * NSRC + NMETRICS; }

static void game_row(int64_t *row, const Game *g, int64_t match, int skunk) {
    row[0] = match, row[1] = g->deal_no + 1, row[2] = g->r->side_of[g->first_dealer] == g->winner;
    row[3] = skunk, row[4] = g->asked, row[5] = g->winner;
    for (int role = 0; role < g->n; role++)
        for (int src = 0; src < NSRC; src++) row[GAME_HEAD + role * NSRC + src] = g->by_role[role][src];
    for (int i = 0; i < NMETRICS; i++) row[GAME_HEAD + g->n * NSRC + i] = g->touched >> i & 1U ? g->metric[i] : 0;
}

/* ---- a batch --------------------------------------------------------------------------------- */

typedef struct {
    Text text, games_text; /* the lines; a match's games, written before its winner is known */
    int64_t *ends, *games, *matches;
    size_t ngames, games_cap;
} Batch;

static int batch_game_row(Batch *b, int width) {
    if (b->ngames == b->games_cap) {
        size_t cap = b->games_cap ? 2 * b->games_cap : 1024;
        int64_t *p = realloc(b->games, sizeof(int64_t) * cap * (size_t)width);
        if (!p) return NOMEM;
        b->games = p, b->games_cap = cap;
    }
    return 0;
}

/* The inputs of a batch: a spec a match (variant, table, group, seating, then the lineup entry at
 * each side), each entry's kind and ev values, the format (F_*) and the sides rendered. */
typedef struct {
    const Rules *r;
    const int *kinds;
    const EvTables *const *ev;
    int64_t seed, deal_seed;
    const int64_t *fmt, *specs;
    const char *sides;
} BatchIn;

/* One match of the batch: its line and figures. */
static int batch_match(Batch *b, const BatchIn *in, int64_t m) {
    const Rules *r = in->r;
    int k = (int)r->nsides, n = (int)r->players, width = game_width(n), spec_w = 4 + k;
    const int64_t *spec = in->specs + m * spec_w, *fmt = in->fmt;
    int64_t address[3] = {in->deal_seed, spec[1], spec[2]};
    int64_t key = (int64_t)(derive(address, 3) >> 1); /* Schedule.spec: fits a signed 64-bit address */
    int kinds[MAXP], order[MAXP];
    const EvTables *ev[MAXP];
    for (int s = 0; s < n; s++) {
        int64_t entry = spec[4 + r->side_of[s]];
        kinds[s] = in->kinds[entry], ev[s] = in->ev[entry];
    }
    int64_t points[MAXP] = {0}, *row = b->matches + m * (2 + 2 * k);
    Text *t = &b->text;
    PUTS(t, "{\"schema\":3,\"id\":\"");
    for (int i = 0; i < 4; i++) {
        if (i) PUTS(t, ".");
        put_int(t, spec[i]);
    }
    PUTS(t, "\",\"variant\":");
    put_int(t, spec[0]);
    PUTS(t, ",\"table\":");
    put_int(t, spec[1]);
    PUTS(t, ",\"group\":");
    put_int(t, spec[2]);
    PUTS(t, ",\"seating\":");
    put_int(t, spec[3]);
    PUTS(t, ",\"sides\":");
    put_ints(t, spec + 4, k);
    Text *games = &b->games_text; /* the games go after the winner, known at the end */
    games->len = 0;
    int dealer = -1, winner = -2, played = 0;
    Game g;
    while (winner == -2) {
        g.trail = NULL;
        int code = play_game(&g, r, kinds, ev, NULL, in->seed, key, played, dealer, NULL);
        if (code) { free(g.trail); return code; }
        played++;
        order_of(&g, k, order);
        int64_t loser = INT64_MIN;
        for (int s = 0; s < k; s++) if (s != g.winner && g.scores[s] > loser) loser = g.scores[s];
        int level = skunk_of(fmt, loser);
        if (level == 3 && fmt[F_TRIPLE_WINS]) winner = g.winner;
        else points[g.winner] += fmt[F_POINTS + level], winner = settled_by(fmt, points, k, played, g.winner);
        if (played > 1) PUTS(games, ",");
        put_game(games, &g, k, order, level, in->sides);
        if (batch_game_row(b, width)) { free(g.trail); return NOMEM; }
        game_row(b->games + b->ngames++ * (size_t)width, &g, m, level);
        dealer = next_dealer(&g, k, order);
        if (winner != -2) for (int s = 0; s < k; s++) row[2 + k + s] = g.scores[s];
        free(g.trail);
    }
    PUTS(t, ",\"winner\":");
    put_int(t, winner);
    PUTS(t, ",\"game_points\":");
    put_ints(t, points, k);
    PUTS(t, ",\"forfeit\":null,\"games\":[");
    if (games->len) put(t, games->p, games->len);
    PUTS(t, "]}\n");
    if (games->nomem) return NOMEM;
    row[0] = winner, row[1] = played;
    for (int s = 0; s < k; s++) row[2 + s] = points[s];
    b->ends[m] = (int64_t)t->len;
    return t->nomem ? NOMEM : 0;
}

static PyObject *bytes_of(const void *p, size_t n) { return PyBytes_FromStringAndSize(n ? p : "", (Py_ssize_t)n); }

PyDoc_STRVAR(matches_doc,
             "matches(rules, kinds, values, seed, deal_seed, format, specs, sides) -> (text, ends, games, matches)\n\n"
             "Whole matches in one call without the GIL (cribsim/tournament/lanebatch.py): specs holds a row of "
             "int64 a match (variant, table, group, seating, the lineup entry at each side), its deals addressed "
             "by derive(deal_seed, table, group) >> 1; kinds and values: each lineup entry's strategy kind (bytes) "
             "and ev_values() capsule or None; format: int64 (games, first_to, triple skunk wins, game points "
             "for a win, skunk, double and triple, the three skunk lines, how many lines); sides: the rules' "
             "sides as JSON. Returns every match's line of matches.jsonl.gz (text), where each line ends (int64), "
             "a row of int64 a game (lanebatch.GAME_FIELDS) and a row a match (winner, games, game points by "
             "side, the last game's scores by side).");

static PyObject *py_matches(PyObject *self, PyObject *args) {
    Py_buffer rb, kb, fb, sb;
    PyObject *values;
    long long seed, deal_seed;
    const char *sides;
    Rules r;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*OLLy*y*y", &rb, &kb, &values, &seed, &deal_seed, &fb, &sb, &sides)) return NULL;
    PyObject *out = NULL;
    int kinds[256];
    const EvTables *ev[256];
    Batch b = {0};
    Py_ssize_t entries = kb.len, count = 0;
    int ok = !parse_rules(&rb, &r);
    int spec_w = ok ? 4 + (int)r.nsides : 1;
    if (ok && (entries > 256 || !PyTuple_Check(values) || PyTuple_GET_SIZE(values) != entries ||
               fb.len != (Py_ssize_t)sizeof(int64_t) * F_WIDTH || sb.len % ((Py_ssize_t)sizeof(int64_t) * spec_w)))
        ok = !bad("matches: one kind and value an entry, a format, whole specs");
    for (Py_ssize_t e = 0; ok && e < entries; e++) {
        kinds[e] = ((const uint8_t *)kb.buf)[e];
        ev[e] = NULL;
        PyObject *cap = PyTuple_GET_ITEM(values, e);
        if (kinds[e] == EV && !(ev[e] = PyCapsule_GetPointer(cap, EV_CAPSULE))) ok = 0;
    }
    const int64_t *fmt = fb.buf, *specs = sb.buf;
    if (ok) {
        count = sb.len / ((Py_ssize_t)sizeof(int64_t) * spec_w);
        for (Py_ssize_t m = 0; ok && m < count; m++)
            for (int s = 0; ok && s < r.nsides; s++)
                if (specs[m * spec_w + 4 + s] < 0 || specs[m * spec_w + 4 + s] >= entries ||
                    kinds[specs[m * spec_w + 4 + s]] > HOYLE)
                    ok = !bad("matches: a side's entry outside the lineup, or one the lane does not play");
        if (ok && (fmt[F_NLINES] < 0 || fmt[F_NLINES] > 3)) ok = !bad("matches: at most three skunk lines");
    }
    if (ok) {
        b.ends = malloc(sizeof(int64_t) * (size_t)(count + 1));
        b.matches = malloc(sizeof(int64_t) * (size_t)(count + 1) * (size_t)(2 + 2 * r.nsides));
        if (!b.ends || !b.matches) ok = !PyErr_NoMemory();
    }
    if (ok) {
        BatchIn in = {&r, kinds, ev, seed, deal_seed, fmt, specs, sides};
        int code = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t m = 0; m < count && !code; m++) code = batch_match(&b, &in, m);
        Py_END_ALLOW_THREADS
        if (!code && b.text.nomem) code = NOMEM;
        if (!failed(code))
            out = Py_BuildValue("(NNNN)", bytes_of(b.text.p, b.text.len), bytes_of(b.ends, sizeof(int64_t) * (size_t)count),
                                bytes_of(b.games, sizeof(int64_t) * b.ngames * (size_t)game_width((int)r.players)),
                                bytes_of(b.matches, sizeof(int64_t) * (size_t)count * (size_t)(2 + 2 * r.nsides)));
    }
    free(b.text.p), free(b.games_text.p), free(b.ends), free(b.games), free(b.matches);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&sb);
    return out;
}
