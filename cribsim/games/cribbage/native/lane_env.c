/* lane_env.c: many games at once, each paused at the decisions of agents outside the lane and
 * resumed with their answers a token at a time (cribsim/env/vector.py, the vector environment).
 *
 * An environment's game is the lane's Game driven as a state machine over a deal's phases: the
 * deal, each seat's discard, the play a card at a time (lane_play.c play_turn and play_lay, which
 * the lane's own play is made of), the show; the phases in lane_flow.c play_deals' order. A seat
 * of kind OUTSIDE stops the game at each of its decisions; the other seats are the lane's
 * built-in kinds and answer in place, as in a whole game. Rules with a phase a variant adds (an
 * auction, Canadian passes, an inspection) or wild cards are refused in Python (vector.py).
 *
 * What the seat asked sees is written as cribsim/games/cribbage/env.py writes its observation,
 * at the offsets Python passes (from env.py's Layout), and its answers are that module's tokens
 * (a card; a discard, its cards in increasing order), masked to those that lead to a legal
 * answer: the AEC environment's steps, observations and rewards (tests/kernel/test_vector_env.py).
 * Each game ended or truncated starts the env's next game in the same step (Gymnasium's
 * same-step autoreset): env i plays match keys first + i, first + i + N, ... at the seed.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

enum { E_DEAL, E_DISCARD, E_PLAY, E_OVER };
/* the observation's offsets, in the order Python gives them (vector.py), then its size and tokens */
enum { O_HAND, O_CHOSEN, O_PICKED, O_DISCARDED, O_STARTER, O_PILE, O_PLAYED, O_COUNT, O_SCORES, O_DEALER,
       O_CRIB_OWNER, O_GOS, O_DISCARD, O_PLAY, O_SIZE, O_TOKENS, NPARTS };
/* the arrays a step writes, in the order Python gives them */
enum { X_OBS, X_MASK, X_ACTOR, X_REWARD, X_TERM, X_TRUNC, X_SCORES, X_WINNER, NOUT };
#define CARDS 56   /* a card's token, and the width of a part of cards (env.py CARDS) */
#define GO_SLOTS 8 /* env.py GO_SLOTS: the picked tokens' one-hot, and their values k/8 */
#define ENV_CAPSULE "cribsim.lane.envs"

typedef struct {
    Game g;
    PlayState st;
    int phase, seat;           /* the phase; the seat asked (in the discard, the seat to discard next) */
    int legal[MAXH], nlegal;   /* the play: the cards the seat asked may lay */
    int chosen[MAXH], nchosen; /* the tokens picked so far of its answer */
    uint64_t next;             /* the tokens that lead to a legal answer, as bits (every one a card) */
    int pile[MAXPILE];         /* the cards laid since the last reset (st.nranks of them) */
    int64_t match, steps;      /* the game's match key; the steps taken in it */
    double standing[MAXP];     /* the points reward: each seat's margin as last rewarded */
} EnvGame;

typedef struct {
    Rules r;
    int kinds[MAXP];
    const EvTables *ev[MAXP];
    PyObject *values;          /* the seats' ev values (capsules), kept alive with the envs */
    int64_t seed, max_steps;
    int points, at[NPARTS];    /* the reward (1: points, 0: game); the observation's offsets */
    Py_ssize_t count;
    EnvGame *games;
    Py_buffer out[NOUT];
    int bound;                 /* how many of out are held */
} Envs;

/* ---- one game -------------------------------------------------------------------------------- */

/* The discard's next tokens, as bits: the card after those picked in some legal discard, its
 * cards in increasing order (env.py spells a discard so; V-TOSSFIVES' rule binds them). */
static uint64_t discard_next(const EnvGame *e) {
    const Game *g = &e->g;
    int seat = e->seat, k = discards_of(g, seat), m = g->hlen[seat], idx[MAXH];
    const int *hand = g->hands[seat];
    int must = fives_rule(g, hand, m, k);
    uint64_t bits = 0;
    for (int i = 0; i < k; i++) idx[i] = i;
    do {
        int cards[MAXH], ok = 1;
        uint32_t kept = m < 32 ? (1U << m) - 1U : ~0U;
        for (int i = 0; i < k; i++) {
            int c = hand[idx[i]], at = i;
            kept &= ~(1U << idx[i]);
            while (at && cards[at - 1] > c) cards[at] = cards[at - 1], at--;
            cards[at] = c;
        }
        for (int i = 0; ok && i < e->nchosen; i++) ok = cards[i] == e->chosen[i];
        if (ok && (must < 0 || obeys(hand, m, kept, must))) bits |= 1ULL << cards[e->nchosen];
    } while (next_combination(idx, k, m));
    return bits;
}

/* Stop at a decision of ``seat`` (an outside agent's): its legal next tokens. 1. */
static int env_ask(EnvGame *e, int seat) {
    e->seat = seat;
    e->nchosen = 0;
    if (e->phase == E_DISCARD) {
        e->next = discard_next(e);
    } else {
        e->next = 0;
        for (int i = 0; i < e->nlegal; i++) e->next |= 1ULL << e->legal[i];
    }
    return 1;
}

/* ``seat`` lays ``c`` (R-PEG-3..5), the pile kept as cards: 1 when the game is decided. */
static int env_lay(EnvGame *e, int seat, int c) {
    int code = play_lay(&e->g, &e->st, seat, c, c);
    if (!code && e->st.nranks) e->pile[e->st.nranks - 1] = c;
    return code;
}

/* The game decided: 0. */
static int env_over(EnvGame *e) {
    e->phase = E_OVER;
    return 0;
}

/* The discards from e->seat on: 1 at an outside seat's, 0 after the last. */
static int env_discards(EnvGame *e) {
    Game *g = &e->g;
    for (; e->seat < g->n; e->seat++) {
        if (g->kinds[e->seat] == OUTSIDE && discards_of(g, e->seat)) return env_ask(e, e->seat);
        discard_seat(g, e->seat);
    }
    return 0;
}

/* The play from where it stands: 1 at an outside seat's decision, 0 at its end, 2 when decided. */
static int env_play(EnvGame *e) {
    Game *g = &e->g;
    PlayState *st = &e->st;
    for (;;) {
        int seat = play_turn(g, st, e->legal, &e->nlegal);
        if (seat == PLAY_OVER) return 0;
        if (seat == PLAY_DECIDED) return 2;
        if (g->kinds[seat] == OUTSIDE) return env_ask(e, seat);
        int as = -1, c = choose_play(g, seat, st->hands[seat], st->hlen[seat], e->legal, e->nlegal, st->ranks,
                                     st->nranks, st->count, &st->pl, &as);
        g->asked++;
        if (env_lay(e, seat, c)) return 2;
    }
}

/* The game from where it stands to an outside seat's decision (1) or its end (0), a deal's phases
 * in play_deals' order; ENDLESS. */
static int env_run(EnvGame *e) {
    Game *g = &e->g;
    for (;;) {
        int code;
        switch (e->phase) {
        case E_DEAL:
            if (first_pone_award(g)) return env_over(e);
            deal_cards(g);
            e->phase = E_DISCARD, e->seat = 0;
            /* fall through */
        case E_DISCARD:
            if (env_discards(e)) return 1;
            if (his_heels(g)) return env_over(e);
            play_start(g, &e->st);
            e->phase = E_PLAY;
            /* fall through */
        case E_PLAY:
            code = env_play(e);
            if (code == 1) return 1;
            if (code == 2 || show(g)) return env_over(e);
            if (next_deal(g)) return ENDLESS;
            e->phase = E_DEAL;
            break;
        default:
            return 0;
        }
    }
}

/* A new game at e->match: to its first outside decision (1); ENDLESS, or UNASKED for a game that
 * ends before any (none can: no point is given before the first deal's play). */
static int env_start(const Envs *v, EnvGame *e) {
    Game *g = &e->g;
    memset(g, 0, sizeof *g);
    g->r = &v->r;
    start_game(g, v->kinds, v->ev, NULL, v->seed, e->match, 0, -1);
    e->phase = E_DEAL, e->nchosen = 0, e->steps = 0;
    for (int s = 0; s < MAXP; s++) e->standing[s] = 0.0;
    int code = env_run(e);
    return code ? code : UNASKED;
}

/* One token of the seat asked: 0 when its answer is not complete yet, 1 when it was answered and
 * the game waits at the next decision, 2 when the game is over; ENDLESS. */
static int env_answer(EnvGame *e, int token) {
    Game *g = &e->g;
    e->chosen[e->nchosen++] = token;
    if (e->phase == E_DISCARD) {
        if (e->nchosen < discards_of(g, e->seat)) {
            e->next = discard_next(e);
            return 0;
        }
        g->asked++;
        lay_away(g, e->seat, e->chosen, e->nchosen);
        e->seat++;
    } else if (env_lay(e, e->seat, token)) {
        e->nchosen = 0;
        return 2 + env_over(e);
    }
    e->nchosen = 0;
    int code = env_run(e);
    return code == 1 ? 1 : code == 0 ? 2 : code;
}

/* The winning side (table.winner()): the side placed first, or that reached the target; under a
 * reversed objective (V-LOWBALL) the lowest of the others, ties clockwise from it. */
static int env_winner(const Game *g) {
    if (g->r->objective > 0) return g->winner;
    int k = (int)g->r->nsides, best = -1;
    for (int i = 1; i < k; i++) {
        int s = (g->winner + i) % k;
        if (best < 0 || g->scores[s] < g->scores[best]) best = s;
    }
    return best;
}

/* Each seat's margin (table.margins): its side's points less the others' average, times the
 * objective. */
static void env_margins(const Game *g, double *out) {
    const Rules *r = g->r;
    int k = (int)r->nsides;
    int64_t sum = 0;
    for (int s = 0; s < k; s++) sum += g->scores[s];
    for (int seat = 0; seat < g->n; seat++) {
        int64_t own = g->scores[r->side_of[seat]];
        double others = k > 1 ? (double)(sum - own) / (double)(k - 1) : 0.0;
        out[seat] = (double)r->objective * ((double)own - others);
    }
}

/* ---- what the seat asked sees ---------------------------------------------------------------- */

static float share(double x) { return (float)(x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x); }

/* The play's part of the observation: own cards laid away, the starter, the pile, every seat's
 * cards laid this deal (its kept hand less what it holds), the count, the gos. */
static void observe_play(const EnvGame *e, const int *at, float *out) {
    const Game *g = &e->g;
    const PlayState *st = &e->st;
    int seat = e->seat, n = g->n;
    double limit = (double)g->r->limit;
    for (int i = 0; i < g->nthrown[seat]; i++) out[at[O_DISCARDED] + g->thrown[seat][i]] = 1.0f;
    out[at[O_STARTER] + g->starter] = 1.0f;
    for (int i = 0; i < st->nranks; i++) out[at[O_PILE] + e->pile[i]] = 1.0f;
    for (int s = 0; s < n; s++) {
        uint64_t held = 0;
        float *laid = out + at[O_PLAYED] + ((s - seat + n) % n) * CARDS;
        for (int i = 0; i < st->hlen[s]; i++) held |= 1ULL << st->hands[s][i];
        for (int i = 0; i < g->hlen[s]; i++)
            if (!(held >> g->hands[s][i] & 1U)) laid[g->hands[s][i]] = 1.0f;
        if (st->go_low[s]) out[at[O_GOS] + (s - seat + n) % n] = share((st->go_low[s] - 1) / limit);
    }
    out[at[O_COUNT]] = share(st->count / limit);
}

/* The observation of the seat asked (env.py CribbageTable.observe) and its mask. */
static void env_observe(const Envs *v, const EnvGame *e, float *out, int8_t *mask) {
    const Game *g = &e->g;
    const Rules *r = g->r;
    const int *at = v->at;
    int seat = e->seat, n = g->n, k = (int)r->nsides, side = (int)r->side_of[seat];
    memset(out, 0, sizeof(float) * (size_t)at[O_SIZE]);
    memset(mask, 0, (size_t)at[O_TOKENS]);
    const int *hand = g->hands[seat];
    int hn = g->hlen[seat];
    if (e->phase == E_DISCARD) { /* the hand as dealt; nothing laid yet */
        out[at[O_DISCARD]] = 1.0f;
    } else {
        hand = e->st.hands[seat], hn = e->st.hlen[seat];
        out[at[O_PLAY]] = 1.0f;
        observe_play(e, at, out);
    }
    for (int i = 0; i < hn; i++) out[at[O_HAND] + hand[i]] = 1.0f;
    out[at[O_PICKED] + (e->nchosen < GO_SLOTS - 1 ? e->nchosen : GO_SLOTS - 1)] = 1.0f;
    for (int i = 0; i < e->nchosen; i++) out[at[O_CHOSEN] + e->chosen[i]] = (float)((i + 1) / (double)GO_SLOTS);
    for (int j = 0; j < k; j++) {
        int s = (side + j) % k;
        out[at[O_SCORES] + j] = share((double)g->scores[s] / (double)r->side_target[s]);
    }
    out[at[O_DEALER] + (g->dealer - seat + n) % n] = 1.0f;
    out[at[O_CRIB_OWNER] + (g->crib_owner - seat + n) % n] = 1.0f;
    for (uint64_t bits = e->next; bits; bits &= bits - 1) mask[__builtin_ctzll(bits)] = 1;
}

/* ---- the envs, and their Python functions ----------------------------------------------------- */

#define OUT(v, which, type) ((type *)(v)->out[which].buf)

/* Env i's arrays after its step or reset: the observation and mask of the seat asked, the seat,
 * the scores (the game's that ended, when one did). */
static void env_write(const Envs *v, Py_ssize_t i) {
    const EnvGame *e = &v->games[i];
    env_observe(v, e, OUT(v, X_OBS, float) + i * v->at[O_SIZE], OUT(v, X_MASK, int8_t) + i * v->at[O_TOKENS]);
    OUT(v, X_ACTOR, int64_t)[i] = e->seat;
}

static void env_scores(const Envs *v, Py_ssize_t i) {
    const Game *g = &v->games[i].g;
    int64_t *scores = OUT(v, X_SCORES, int64_t) + i * MAXP;
    memcpy(scores, g->scores, sizeof(int64_t) * MAXP);
}

/* The rewards of a step (``answered``: an answer was completed) and of a game that ended. */
static void env_rewards(Envs *v, EnvGame *e, double *reward, int answered) {
    Game *g = &e->g;
    int n = g->n;
    if (v->points && answered) {
        double now[MAXP];
        env_margins(g, now);
        for (int s = 0; s < n; s++) reward[s] = now[s] - e->standing[s], e->standing[s] = now[s];
    }
    if (!v->points && e->phase == E_OVER) {
        int winner = env_winner(g);
        for (int s = 0; s < n; s++) reward[s] = g->r->side_of[s] == winner ? 1.0 : -1.0 / (double)(g->r->nsides - 1);
    }
}

/* Env i answers ``token`` (checked legal); its game ended or truncated starts the next. */
static int env_step_one(Envs *v, Py_ssize_t i, int token) {
    EnvGame *e = &v->games[i];
    double *reward = OUT(v, X_REWARD, double) + i * v->r.players;
    uint8_t *term = OUT(v, X_TERM, uint8_t) + i, *trunc = OUT(v, X_TRUNC, uint8_t) + i;
    int64_t *winner = OUT(v, X_WINNER, int64_t) + i;
    for (int s = 0; s < v->r.players; s++) reward[s] = 0.0;
    int code = env_answer(e, token);
    if (code < 0) return code;
    e->steps++;
    env_rewards(v, e, reward, code > 0);
    *term = code == 2;
    *trunc = !*term && e->steps >= v->max_steps;
    *winner = *term ? env_winner(&e->g) : -1;
    env_scores(v, i);
    if (*term || *trunc) {
        e->match += v->count;
        code = env_start(v, e);
        if (code < 0) return code;
    }
    env_write(v, i);
    return 0;
}

static void envs_free(PyObject *cap) {
    Envs *v = PyCapsule_GetPointer(cap, ENV_CAPSULE);
    if (!v) return;
    for (int i = 0; i < v->bound; i++) PyBuffer_Release(&v->out[i]);
    Py_XDECREF(v->values);
    free(v->games);
    free(v);
}

/* The arrays each step writes, held: C-contiguous, writable, of the sizes the envs need. */
static int bind_outputs(Envs *v, PyObject *arrays) {
    Py_ssize_t n = v->count, p = v->r.players;
    Py_ssize_t sizes[NOUT] = {n * v->at[O_SIZE] * 4, n * v->at[O_TOKENS], n * 8, n * p * 8, n, n, n * MAXP * 8, n * 8};
    if (!PyTuple_Check(arrays) || PyTuple_GET_SIZE(arrays) != NOUT) return bad("envs: a tuple of the arrays a step writes");
    for (int i = 0; i < NOUT; i++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(arrays, i), &v->out[i], PyBUF_CONTIG) < 0) return -1;
        v->bound++;
        if (v->out[i].len != sizes[i]) return bad("envs: an array of the wrong size");
    }
    return 0;
}

/* The observation's offsets: each within its size, and the parts of cards and seats inside it. */
static int parse_layout(Envs *v, PyObject *layout) {
    int n = (int)v->r.players;
    PyObject *t = PySequence_Fast(layout, "envs: the layout is a sequence of ints");
    if (!t) return -1;
    int ok = PySequence_Fast_GET_SIZE(t) == NPARTS;
    for (int i = 0; ok && i < NPARTS; i++) ok = (v->at[i] = int_at(t, i, 0, 1 << 20)) >= 0;
    Py_DECREF(t);
    if (!ok) return bad("envs: a layout of 16 offsets");
    const int *at = v->at;
    int width[O_DISCARD] = {CARDS, CARDS, GO_SLOTS, CARDS, CARDS, CARDS, n * CARDS, 1, n, n, n, n};
    for (int i = 0; i < O_SIZE; i++) ok &= at[i] + (i < O_DISCARD ? width[i] : 1) <= at[O_SIZE];
    return ok && at[O_TOKENS] >= CARDS ? 0 : bad("envs: a layout outside its size");
}

/* Each seat's kind (a byte: 255 for an agent's seat, OUTSIDE) and, for an ev seat, its values. */
static int parse_agents(Envs *v, const Py_buffer *kb, PyObject *values) {
    if (kb->len != v->r.players || !PyTuple_Check(values) || PyTuple_GET_SIZE(values) != v->r.players)
        return bad("envs: one kind and one value a seat");
    for (int s = 0; s < v->r.players; s++) {
        int kind = ((const uint8_t *)kb->buf)[s];
        v->kinds[s] = kind == 255 ? OUTSIDE : kind;
        v->ev[s] = NULL;
        if (kind != 255 && kind > HOYLE) return bad("envs: unknown strategy kind");
        if (kind == EV && !(v->ev[s] = PyCapsule_GetPointer(PyTuple_GET_ITEM(values, s), EV_CAPSULE))) return -1;
    }
    return 0;
}

PyDoc_STRVAR(envs_doc, "envs(rules, kinds, values, count, layout, points, max_steps, arrays) -> envs\n\n"
                       "``count`` games for agents outside the lane (lane_env.c; cribsim/env/vector.py): "
                       "kinds, one byte a seat, 255 for an agent's seat; values, each seat's ev_values() capsule "
                       "or None; layout, the observation's 14 offsets, its size and its tokens; points, 1 for "
                       "the points reward; arrays, what each step writes: observations (float32), masks (int8), "
                       "actors (int64), rewards (float64, a row a seat), terminations and truncations (bool), "
                       "scores (int64, 5 a game) and winners (int64).");

static PyObject *py_envs(PyObject *self, PyObject *args) {
    Py_buffer rb, kb;
    PyObject *values, *layout, *arrays;
    Py_ssize_t count;
    int points;
    long long max_steps;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*OnOpLO", &rb, &kb, &values, &count, &layout, &points, &max_steps, &arrays))
        return NULL;
    Envs *v = calloc(1, sizeof *v);
    PyObject *cap = v ? PyCapsule_New(v, ENV_CAPSULE, envs_free) : PyErr_NoMemory();
    if (!cap) free(v);
    int ok = cap && !parse_rules(&rb, &v->r) && !parse_agents(v, &kb, values);
    if (ok) {
        v->values = values, v->count = count, v->points = points, v->max_steps = max_steps;
        Py_INCREF(values);
        ok = (count > 0 || !bad("envs: at least one")) && (max_steps > 0 || !bad("envs: max_steps above 0")) &&
             !parse_layout(v, layout) && !bind_outputs(v, arrays);
    }
    if (ok && !(v->games = calloc((size_t)count, sizeof(EnvGame)))) ok = !PyErr_NoMemory();
    PyBuffer_Release(&rb);
    PyBuffer_Release(&kb);
    if (!ok) Py_CLEAR(cap);
    return cap;
}

PyDoc_STRVAR(envs_reset_doc, "envs_reset(envs, seed, first_match)\n\n"
                             "Every env's game afresh: env i at (seed, first_match + i, 0), at its first decision.");

static PyObject *py_envs_reset(PyObject *self, PyObject *args) {
    PyObject *cap;
    long long seed, first;
    (void)self;
    if (!PyArg_ParseTuple(args, "OLL", &cap, &seed, &first)) return NULL;
    Envs *v = PyCapsule_GetPointer(cap, ENV_CAPSULE);
    if (!v) return NULL;
    v->seed = seed;
    int code = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < v->count && code >= 0; i++) {
        v->games[i].match = first + i;
        code = env_start(v, &v->games[i]);
        if (code >= 0) {
            env_scores(v, i);
            env_write(v, i);
        }
    }
    Py_END_ALLOW_THREADS
    if (failed(code)) return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(envs_step_doc, "envs_step(envs, actions)\n\n"
                            "Each env's seat asked answers its token (int64, one an env), every token checked "
                            "before any is taken (a ValueError names the first illegal one); the arrays are "
                            "written.");

static PyObject *py_envs_step(PyObject *self, PyObject *args) {
    PyObject *cap;
    Py_buffer ab;
    (void)self;
    if (!PyArg_ParseTuple(args, "Oy*", &cap, &ab)) return NULL;
    Envs *v = PyCapsule_GetPointer(cap, ENV_CAPSULE);
    int code = 0;
    if (v && ab.len != (Py_ssize_t)sizeof(int64_t) * v->count) {
        PyErr_SetString(PyExc_ValueError, "one action an env");
        v = NULL;
    }
    const int64_t *actions = ab.buf;
    for (Py_ssize_t i = 0; v && i < v->count; i++) {
        int64_t a = actions[i];
        if (a < 0 || a >= 64 || !(v->games[i].next >> a & 1U)) {
            PyErr_Format(PyExc_ValueError, "env %zd: token %lld is not legal for seat %d", i, (long long)a,
                         v->games[i].seat);
            v = NULL;
        }
    }
    if (v) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < v->count && code >= 0; i++) code = env_step_one(v, i, (int)actions[i]);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ab);
    if (!v || failed(code)) return NULL;
    Py_RETURN_NONE;
}
