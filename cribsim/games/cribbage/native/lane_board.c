/* lane_board.c: expert's board (strategies/expert.py): deals rolled out to the end of the deal,
 * valued by the chance to win from the board table.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

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
    int64_t a = scores[nxt] < 0 ? 0 : scores[nxt], o = scores[dealer_side] < 0 ? 0 : scores[dealer_side];
    /* (a score below zero, a bid paid, is read as 0, as in Python) */
    if (a >= b->win->n || o >= b->win->n) return -1.0; /* off the table: the caller fails */
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

