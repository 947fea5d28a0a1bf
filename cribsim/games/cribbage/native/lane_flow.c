/* lane_flow.c: a game's flow: the cut for the first deal (R-DEAL-1), his heels (R-START-2),
 * each deal's phases in the engine's order, the end of a game (R-WIN-1).
 *
 * Part of cribsim's native lane, included by _lane.c (one translation unit). */

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

/* R-START-2: the starter a jack gives the dealer his heels (V-JOKERS: a joker starter too); 1 when
 * that decides the game. */
static int his_heels(Game *g) {
    const Rules *r = g->r;
    return (rank_of(g->starter) == 10 || g->starter >= WILD) && r->heels && award(g, g->dealer, r->heels, HEELS);
}

/* V-FIVECARD: three for last to the first deal's pone, as the game starts; 1 when that decides
 * the game. */
static int first_pone_award(Game *g) {
    const Rules *r = g->r;
    return !g->deal_no && r->first_pone_points && award(g, (g->dealer + 1) % g->n, r->first_pone_points, OTHER);
}

/* The deal passes to the left: ENDLESS after the engine's MAX_DEALS, else 0. */
static int next_deal(Game *g) {
    if (g->deal_no >= 9999) return ENDLESS;
    g->dealer = g->dealer + 1 < g->n ? g->dealer + 1 : 0;
    g->deal_no++;
    return 0;
}

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

/* A game's start at (seed, match, game_no): the seats' kinds and values, the counting model, each
 * seat's generator (none for a seat of kind OUTSIDE: an agent outside the lane, lane_env.c), the
 * first dealer (cut for when ``first_dealer`` < 0, R-DEAL-1) and the targets. */
static void start_game(Game *g, const int *kinds, const EvTables *const *ev, const double *counters, int64_t seed,
                       int64_t match, int64_t game_no, int first_dealer) {
    const Rules *r = g->r;
    g->n = (int)r->players;
    g->seed = seed, g->match = match, g->game_no = game_no;
    counting_model(g, counters);
    MT cut, *gens[MAXP + 1];
    uint64_t keys[MAXP + 1];
    int m = 0;
    for (int s = 0; s < g->n; s++) { /* each seat's generator, and the cut's when it is cut for */
        int64_t key[5] = {seed, match, game_no, STREAM_STRATEGY, s};
        g->kinds[s] = kinds[s];
        g->ev[s] = ev[s];
        if (kinds[s] == OUTSIDE) continue;
        gens[m] = &g->rng[s];
        keys[m++] = derive(key, 5);
    }
    int64_t cut_key[5] = {seed, match, game_no, STREAM_CUT, 0};
    if (first_dealer < 0) {
        gens[m] = &cut;
        keys[m++] = derive(cut_key, 5);
    }
    mt_seed_many(gens, keys, m);
    g->dealer = g->first_dealer = first_dealer >= 0 ? first_dealer : cut_for_deal(r, seed, match, game_no, &cut);
    g->winner = -1;
    for (int s = 0; s < r->nsides; s++) g->targets[s] = r->side_target[s];
}

static int play_deals(Game *g, const int *kinds, const EvTables *const *ev, const double *counters, int64_t seed,
                      int64_t match, int64_t game_no, int first_dealer) {
    const Rules *r = g->r;
    start_game(g, kinds, ev, counters, seed, match, game_no, first_dealer);
    if (keep_trail(g)) return NOMEM;
    for (;;) {
        if (first_pone_award(g)) break;
        if (!g->deal_no) memcpy(g->trail, g->scores, sizeof g->scores); /* the start, after any award */
        deal_cards(g);
        if (r->auction && auction(g)) break;
        discard(g);
        if (r->inspect) inspect_crib(g);
        if (his_heels(g)) break;
        if (play(g)) break;
        if (keep_trail(g)) return NOMEM;
        if (show(g)) break;
        if (keep_trail(g)) return NOMEM;
        if (next_deal(g)) return ENDLESS;
    }
    return keep_trail(g);
}

