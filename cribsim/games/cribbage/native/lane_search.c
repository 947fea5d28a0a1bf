/* lane_search.c: mc's play search (strategies/mc.py, expert.py's reading), rollouts of the play.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

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


/* ---- adaptive's discard rollouts (strategies/adaptive.py AdaptiveStrategy.discard) --------- */

PyDoc_STRVAR(discard_pegs_doc,
             "discard_pegs(rules, values, views, keeps, unseen, samples, state) -> (pegs by keep, the state after)\n\n"
             "adaptive's discard rollouts, two players: ``samples`` times the other player's six drawn from "
             "``unseen`` (random.sample, from the strategy's generator state) and kept as ev's discard by "
             "``values`` keeps them; then, for each keep, the play rolled out from ``views[i]`` (lane.py "
             "view_of) with ``keeps[i]`` in the root seat's hand, as NativePlayRollout.run plays it. By keep, "
             "the sum over the samples of twice the root side's points less all points pegged.");

typedef struct {
    Game g;          /* a keep's rollout, as its view sets it up (no hands yet) */
    PlayState st;
    int keep[MAXH], n;
} KeepRollout;

/* One sample: the other player's four from a draw of six, each keep rolled out; 0 or a failure. */
static int discard_sample(KeepRollout *k, int nk, PlayState *st, Game *reader, PyMT *mt,
                          const int *unseen, int nu, int64_t *pegs) {
    int me = k[0].st.root, other = 1 - me, six[6], thrown[2], four[4], nf = 0;
    if (pmt_sample(mt, unseen, nu, 6, six)) return UNSAMPLED;
    memcpy(reader->hands[other], six, sizeof six);
    reader->hlen[other] = 6;
    ev_discard(reader, other, 2, -1, reader->ev[other], thrown);
    for (int i = 0; i < 6; i++)
        if (six[i] != thrown[0] && six[i] != thrown[1]) four[nf++] = six[i];
    int side = (int)reader->r->side_of[me];
    for (int i = 0; i < nk; i++) { /* the keep's game as its view set it up: only its scores move (as in mc_choose) */
        Game *play = &k[i].g;
        memset(play->scores, 0, sizeof play->scores);
        memcpy(st, &k[i].st, sizeof *st);
        memcpy(st->hands[me], k[i].keep, sizeof(int) * (size_t)k[i].n);
        st->hlen[me] = k[i].n;
        memcpy(st->hands[other], four, sizeof four);
        st->hlen[other] = nf;
        int code = play_from(play, st);
        if (code < 0) return code;
        pegs[i] += 2 * play->scores[side] - play->scores[0] - play->scores[1];
    }
    return 0;
}

static PyObject *py_discard_pegs(PyObject *self, PyObject *args) {
    Py_buffer rb;
    PyObject *values, *views, *keeps, *unseen_o, *state, *out = NULL;
    int samples, unseen[MAXDECK], nu = -1;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OOOOiO", &rb, &values, &views, &keeps, &unseen_o, &samples, &state)) return NULL;
    PyObject *vs = PySequence_Fast(views, "discard_pegs: views"), *ks = PySequence_Fast(keeps, "discard_pegs: keeps");
    Py_ssize_t nk = vs && ks ? PySequence_Fast_GET_SIZE(vs) : 0;
    KeepRollout *k = nk ? PyMem_Calloc((size_t)nk, sizeof *k) : NULL;
    Game *reader = PyMem_Calloc(1, sizeof(Game)); /* ev's discard of the other player's six, as the reading supposes it */
    PlayState *st = PyMem_Calloc(1, sizeof(PlayState));
    Rules r;
    PyMT mt;
    int64_t *pegs = nk ? PyMem_Calloc((size_t)nk, sizeof(int64_t)) : NULL;
    int ok = vs && ks && nk > 0 && nk == PySequence_Fast_GET_SIZE(ks) && k && reader && st && pegs && samples >= 0;
    if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "discard_pegs: a view and a keep each, samples >= 0");
    for (Py_ssize_t i = 0; ok && i < nk; i++) {
        ok = !rollout_setup(&k[i].g, &k[i].st, &r, &rb, values, PySequence_Fast_GET_ITEM(vs, i), NULL, NULL) &&
             (k[i].n = parse_cards(PySequence_Fast_GET_ITEM(ks, i), k[i].keep, MAXH)) >= 0 &&
             (r.players == 2 || !bad("discard_pegs: two players")) &&
             (k[i].st.root == k[0].st.root || !bad("discard_pegs: one root seat"));
    }
    ok = ok && !parse_state(state, &mt) && (nu = parse_cards(unseen_o, unseen, MAXDECK)) >= 0;
    if (ok) {
        reader->r = &r, reader->n = 2, reader->dealer = k[0].g.dealer, reader->crib_owner = k[0].g.crib_owner;
        reader->ev[1 - k[0].st.root] = PyCapsule_GetPointer(values, EV_CAPSULE);
        for (int s = 0; ok && s < samples; s++) ok = !failed(discard_sample(k, (int)nk, st, reader, &mt, unseen, nu, pegs));
    }
    if (ok) {
        PyObject *p = PyTuple_New(nk);
        for (Py_ssize_t i = 0; p && i < nk; i++) {
            PyObject *v = PyLong_FromLongLong(pegs[i]);
            if (!v) { Py_CLEAR(p); break; }
            PyTuple_SET_ITEM(p, i, v);
        }
        out = p ? Py_BuildValue("(NN)", p, state_of(&mt)) : NULL;
    }
    Py_XDECREF(vs);
    Py_XDECREF(ks);
    PyMem_Free(k);
    PyMem_Free(reader);
    PyMem_Free(st);
    PyMem_Free(pegs);
    PyBuffer_Release(&rb);
    return out;
}
