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
 * Python passes the rules as the struct layout.py declares (lane.py, `pack_rules`); no part keeps
 * state between calls.
 *
 * The source is split by concern, each part naming the rule ids it implements (so that a rule is
 * found in both lanes by its id), in the order they are compiled as one unit:
 *   lane_random.c: the addressed random streams: BLAKE2b as cribsim/rng.py derives a seed, and CPython's
 *   lane_scoring.c: the rules struct (made from layout.py) and the scoring: a card's rank and value
 *   lane_game.c: one game's state: points given and the game won (R-WIN-1, R-SHOW-2, R-MATCH-5's
 *   lane_ev.c: ev (strategies/ev.py): its discard, bid, passes and inspection, and its one-ply play
 *   lane_hoyle.c: hoyle (strategies/hoyle.py): a club player's rules of thumb
 *   lane_variants.c: the variants that add a decision: V-AUCTION's bids, V-CANADIAN's passes,
 *   lane_play.c: the discard (R-DEAL-3) and the play (R-PEG-1..5, V-FIVECARD's play to 31 once,
 *   lane_show.c: the show (R-SHOW-1..2, V-JOKERS' best naming) and what follows each count:
 *   lane_flow.c: a game's flow: the cut for the first deal (R-DEAL-1), his heels (R-START-2),
 *   lane_python.c: the module's functions: the rules and seats read from Python, a game, a batch of
 *   lane_env.c: many games at once, each paused at the decisions of agents outside the lane and
 *   lane_batch.c: a batch of whole matches, each written as its line of the records file, with the
 *   lane_search.c: mc's play search (strategies/mc.py, expert.py's reading), rollouts of the play
 *   lane_board.c: expert's board (strategies/expert.py): deals rolled out to the end of the deal,
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef LANE_SOURCE
#define LANE_SOURCE "unknown"
#endif


#include "lane_random.c"
#include "lane_scoring.c"
#include "lane_game.c"
#include "lane_ev.c"
#include "lane_hoyle.c"
#include "lane_variants.c"
#include "lane_play.c"
#include "lane_show.c"
#include "lane_flow.c"
#include "lane_python.c"
#include "lane_env.c"
#include "lane_batch.c"
#include "lane_search.c"
#include "lane_board.c"

/* ---- the module ------------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"refuse", py_refuse, METH_O, refuse_doc},
    {"game", py_game, METH_VARARGS, game_doc},
    {"games", py_games, METH_VARARGS, games_doc},
    {"matches", py_matches, METH_VARARGS, matches_doc},
    {"ev_values", py_ev_values, METH_O, ev_values_doc},
    {"rollout", py_rollout, METH_VARARGS, rollout_doc},
    {"mc_play", py_mc_play, METH_VARARGS, mc_play_doc},
    {"win_table", py_win_table, METH_VARARGS, win_table_doc},
    {"board_discard", py_board_discard, METH_VARARGS, board_discard_doc},
    {"board_play", py_board_play, METH_VARARGS, board_play_doc},
    {"derive", py_derive, METH_O, derive_doc},
    {"envs", py_envs, METH_VARARGS, envs_doc},
    {"envs_reset", py_envs_reset, METH_VARARGS, envs_reset_doc},
    {"envs_step", py_envs_step, METH_VARARGS, envs_step_doc},
    {"hook_state", py_hook_state, METH_O, hook_state_doc},
    {"hook_cards", py_hook_cards, METH_O, hook_cards_doc},
    {"hook_award", py_hook_award, METH_VARARGS, hook_award_doc},
    {"show_values", py_show_values, METH_VARARGS, show_values_doc},
    {"discard_pegs", py_discard_pegs, METH_VARARGS, discard_pegs_doc},
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
