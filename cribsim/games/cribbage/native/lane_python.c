/* lane_python.c: the module's functions: the rules and seats read from Python, a game, a batch of
 * games, ev's values handed over, the state a designer's hook reads.
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

/* ---- Python ---------------------------------------------------------------------------------- */

/* A Python error for play_game's failure; 1 when it failed. */
static int failed(int code) {
    if (code == NOMEM) PyErr_NoMemory();
    else if (code == ENDLESS) PyErr_SetString(PyExc_RuntimeError, "a game did not end within 10,000 deals");
    else if (code == ILLEGAL) PyErr_SetString(PyExc_ValueError, "the rollout's first card is not legal");
    else if (code == UNSAMPLED) PyErr_SetString(PyExc_ValueError, "a sample of more cards than are left");
    else if (code == OFFBOARD) PyErr_SetString(PyExc_ValueError, "scores outside the board table");
    else if (code == HOOKFAIL && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "a hook failed");
    else if (code == UNASKED) PyErr_SetString(PyExc_RuntimeError, "a game ended before any agent was asked");
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



PyDoc_STRVAR(show_values_doc,
             "show_values(rules, hand, keep, starters, seat, dealer, crib_owner, scores) -> means\n\n"
             "For each keep of ``keep`` cards of ``hand`` (in itertools.combinations order), the mean over "
             "``starters`` of what counting it as ``seat``'s hand awards its side less the other sides' mean: "
             "the lane's own show count and the after_count variants that follow it (back ten, nineteen), "
             "the deal's dealer, crib owner and the sides' ``scores`` as given, on a scratch game no count "
             "can end (engine/rollout.py ShowCount.count, for strategies/adaptive.py hand_value). Rules "
             "with a designer's hook in Python are not counted here.");

/* What a count awarded ``side`` less the others' mean (adaptive.net). */
static double net_of(const Game *g, const int64_t *before, int side) {
    int k = (int)g->r->nsides;
    double mine = (double)(g->scores[side] - before[side]), others = 0;
    if (k < 2) return mine;
    for (int s = 0; s < k; s++)
        if (s != side) others += (double)(g->scores[s] - before[s]);
    return mine - others / (k - 1);
}

/* The scratch game of a count: the rules, the deal's seats and the scores, no target reached. */
static int count_setup(Game *g, Rules *r, Py_buffer *rb, int seat, int dealer, int owner, PyObject *scores) {
    memset(g, 0, sizeof *g);
    if (parse_rules(rb, r)) return -1;
    g->r = r;
    g->n = (int)r->players;
    if (seat < 0 || seat >= g->n || dealer < 0 || dealer >= g->n || owner < 0 || owner >= g->n) {
        PyErr_SetString(PyExc_ValueError, "show_values: a seat out of range");
        return -1;
    }
    g->dealer = dealer, g->crib_owner = owner, g->winner = -1;
    int64_t s[MAXP] = {0};
    PyObject *v = PySequence_Fast(scores, "show_values: the scores by side");
    if (!v) return -1;
    int ok = PySequence_Fast_GET_SIZE(v) == r->nsides;
    for (int i = 0; ok && i < r->nsides; i++) {
        s[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(v, i));
        ok = !(s[i] == -1 && PyErr_Occurred());
    }
    Py_DECREF(v);
    if (!ok) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "show_values: one score per side");
        return -1;
    }
    memcpy(g->scores, s, sizeof s);
    for (int i = 0; i < r->nsides; i++) g->targets[i] = LOCKED;
    return 0;
}

/* The joker starter's name for a count of one hand (show()'s joker_named_by_pone): only that
 * hand is known, so another seat's count has it named from no cards (as ShowCount does). */
static int pone_named(const Game *g, int seat, const int *keep, int n) {
    return joker_named_by_pone(g, keep, seat == (g->dealer + 1) % g->n ? n : 0);
}

static PyObject *py_show_values(PyObject *self, PyObject *args) {
    Py_buffer rb;
    PyObject *hand_o, *starters_o, *scores, *out = NULL;
    int keep_n, seat, dealer, owner, hand[MAXH], starters[MAXDECK], idx[MAXH], keep[MAXH];
    Rules r;
    Game g;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*OiOiiiO", &rb, &hand_o, &keep_n, &starters_o, &seat, &dealer, &owner, &scores))
        return NULL;
    int m = -1, ns = -1;
    if (!count_setup(&g, &r, &rb, seat, dealer, owner, scores)) {
        m = parse_ints(hand_o, hand, MAXH, MAXDECK - 1);
        ns = m < 0 ? -1 : parse_ints(starters_o, starters, MAXDECK, MAXDECK - 1);
    }
    if (ns >= 0 && (keep_n < 1 || keep_n > m)) PyErr_SetString(PyExc_ValueError, "show_values: keep out of range");
    else if (ns >= 0 && (out = PyList_New(0))) {
        int64_t before[MAXP];
        memcpy(before, g.scores, sizeof before);
        int side = (int)r.side_of[seat];
        for (int i = 0; i < keep_n; i++) idx[i] = i;
        do {
            for (int i = 0; i < keep_n; i++) keep[i] = hand[idx[i]];
            double total = 0;
            for (int s = 0; s < ns; s++) {
                memcpy(g.scores, before, sizeof before);
                g.starter = starters[s], g.zero_hand = 0;
                count_and_after(&g, seat, keep, keep_n, 0, HAND, pone_named(&g, seat, keep, keep_n));
                total += net_of(&g, before, side);
            }
            PyObject *x = PyFloat_FromDouble(ns ? total / ns : 0.0);
            if (!x || PyList_Append(out, x)) { Py_XDECREF(x); Py_CLEAR(out); break; }
            Py_DECREF(x);
        } while (next_combination(idx, keep_n, m));
    }
    PyBuffer_Release(&rb);
    return out;
}
