/* Native move generator: the search of `referee.rules.Rules.outcomes`, in C.
 *
 * rules.py is the reference; this file repeats its search step for step so that both give
 * the same outcomes, in the same order, with the same move sequences:
 *
 *   - the mover's view: own[p] the mover's checkers on its point p (0 = off, 25 = bar),
 *     opp[p] the opponent's checkers mapped onto the mover's numbering;
 *   - a breadth-first search die by die, for each order of the dice, keeping the first
 *     sequence that reaches each (own, opp, head_moves) state, in insertion order;
 *   - the same filter for using the dice (5.4.26) and the same "the last checker borne off
 *     is a full play" convention, then one outcome per distinct (own, opp) placement.
 *
 * Only `outcomes` is native: `explanations` (relaxed rules) and `play` stay pure Python.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define POINTS 26 /* 0 = off, 1-24 = points, 25 = bar */
#define OFF 0
#define BAR 25
#define HEAD 24
#define MAX_DICE 4
#define MAX_STARTS 25 /* a state has at most one step per start point 1-25 */
#define ROUTE 24

typedef struct {
    unsigned char own[POINTS];
    unsigned char opp[POINTS];
    unsigned char head_moves; /* checkers taken off the head so far (5.4.11) */
    unsigned char n_moves;
    unsigned char moves[MAX_DICE][2]; /* (start, end) of each step */
} State;

/* The members up to here are the keys of rules.py: `placement_key` and `key`. */
#define PLACEMENT_SIZE offsetof(State, head_moves)
#define KEY_SIZE offsetof(State, n_moves)

/* The states of one search level, in insertion order (like the Python dict), with an
 * open-addressing hash index over the first `key_size` bytes to drop repeats. */
typedef struct {
    State *items;
    Py_ssize_t n, cap;
    uint32_t *slots; /* index + 1 into items; 0 = empty */
    size_t mask;
    size_t key_size;
} Level;

/* The rules of the variant, as rules.py's hooks give them for this turn. */
typedef struct {
    int head_limit;  /* checkers that may leave the head this turn */
    int closed_from; /* enemy checkers that close a point */
    int hits;        /* landing on a lone enemy checker sends it to the bar */
    int block;       /* the six-point block rule applies (5.4.13) */
    int front;       /* the opponent's most advanced checker as a route index */
    unsigned char route[POINTS];   /* the mover's point -> index along the opponent's way */
    unsigned char at_route[ROUTE]; /* route index -> the mover's point */
} Rules;

static int
level_init(Level *level, Py_ssize_t cap, size_t key_size)
{
    size_t size = 4;
    while (size < 2 * (size_t)cap) /* at most half full keeps the probes short */
        size *= 2;
    level->items = PyMem_Malloc((size_t)cap * sizeof(State));
    level->slots = PyMem_Calloc(size, sizeof(uint32_t));
    level->n = 0;
    level->cap = cap;
    level->mask = size - 1;
    level->key_size = key_size;
    if (level->items == NULL || level->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
level_free(Level *level)
{
    PyMem_Free(level->items);
    PyMem_Free(level->slots);
    level->items = NULL;
    level->slots = NULL;
    level->n = 0;
}

/* FNV-1a: short keys, and good enough spread for a power-of-two table. */
static size_t
hash_key(const unsigned char *key, size_t size)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < size; i++) {
        h ^= key[i];
        h *= 1099511628211ULL;
    }
    return (size_t)(h ^ (h >> 29));
}

/* The candidate state is written at items[n]; keep it unless an equal key is there already
 * (the first sequence to reach a state wins, as in rules.py). */
static void
level_keep_candidate(Level *level)
{
    const State *candidate = &level->items[level->n];
    size_t slot = hash_key((const unsigned char *)candidate, level->key_size) & level->mask;
    while (level->slots[slot]) {
        const State *seen = &level->items[level->slots[slot] - 1];
        if (memcmp(seen, candidate, level->key_size) == 0)
            return;
        slot = (slot + 1) & level->mask;
    }
    level->slots[slot] = (uint32_t)(level->n + 1);
    level->n++;
}

/* Room for one more candidate; the capacities are upper bounds, so this never fails unless
 * the bounds are wrong, and then it fails loudly rather than writing past the end. */
static int
level_has_room(const Level *level)
{
    if (level->n < level->cap)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "_movegen: search level overflow");
    return 0;
}

/* LongNardy.makes_block: six consecutive route indices held, with the landing point among
 * them, and no opponent checker ahead of the furthest such window. */
static int
makes_block(const Rules *rules, const unsigned char *own, int landing)
{
    int index = rules->route[landing];
    int low = index, high = index;
    while (low > 0 && index - low < 5 && own[rules->at_route[low - 1]])
        low--;
    while (high < ROUTE - 1 && high - index < 5 && own[rules->at_route[high + 1]])
        high++;
    if (high - low < 5)
        return 0;
    return rules->front <= high;
}

/* Rules._steps without relaxed rules: append every legal step of `die` from `from` to
 * `next`. Returns -1 with an exception set on failure. */
static int
steps(const Rules *rules, const State *from, int die, Level *next)
{
    const unsigned char *own = from->own, *opp = from->opp;
    int on_bar = own[BAR] > 0;
    int outside_home = 0; /* points 7-24 and the bar */
    for (int p = 7; p < POINTS; p++)
        outside_home += own[p];

    for (int start = BAR; start >= 1; start--) {
        if (!own[start])
            continue;
        if (on_bar && start != BAR)
            continue; /* the bar is entered first (21.8) */
        if (start == HEAD && from->head_moves >= rules->head_limit)
            continue; /* 5.4.11 */
        int end = start - die;
        if (end >= 1) {
            if (opp[end] >= rules->closed_from)
                continue; /* 5.4.12, 21.4 */
        }
        else {
            if (outside_home)
                continue; /* bearing off only when all are home (5.4.38) */
            if (end < 0) {
                int higher = 0; /* over-shooting only from the highest point (5.4.37) */
                for (int p = start + 1; p <= 6; p++)
                    higher |= own[p];
                if (higher)
                    continue;
            }
            end = OFF;
        }
        if (!level_has_room(next))
            return -1;
        State *after = &next->items[next->n];
        memcpy(after, from, sizeof(State));
        after->own[start]--;
        after->own[end]++;
        if (rules->hits && end != OFF && opp[end] == 1) {
            after->opp[end] = 0; /* a blot is hit (21.6-21.7) */
            after->opp[BAR]++;
        }
        /* Only a newly taken point can complete a block; `own` is still the state before. */
        if (rules->block && end != OFF && !own[end] && makes_block(rules, after->own, end))
            continue;
        after->head_moves += (start == HEAD);
        after->moves[after->n_moves][0] = (unsigned char)start;
        after->moves[after->n_moves][1] = (unsigned char)end;
        after->n_moves++;
        level_keep_candidate(next);
    }
    return 0;
}

/* Distinct states after k steps, bounding each level's capacity. With doubles a state is
 * fixed by the multiset of the k start points (hits and head count included), so at most
 * C(24 + k, k) of them; with two different dice, at most 25^k. */
static const Py_ssize_t DOUBLES_BOUND[MAX_DICE + 1] = {1, 25, 325, 2925, 20475};
static const Py_ssize_t MIXED_BOUND[MAX_DICE + 1] = {1, 25, 625, 0, 0};

/* The search for one order of the dice: levels[0] is the start, levels[k] the states after
 * k dice. Returns the depth reached (levels[depth] is the deepest non-empty), or -1. */
static int
search(const Rules *rules, const State *start, const int *dice, int n_dice,
       const Py_ssize_t *bound, Level *levels)
{
    if (level_init(&levels[0], 1, KEY_SIZE) < 0)
        return -1;
    levels[0].items[0] = *start;
    levels[0].n = 1;
    int depth = 0;
    for (int k = 0; k < n_dice; k++) {
        Py_ssize_t cap = levels[k].n * MAX_STARTS;
        if (cap > bound[k + 1])
            cap = bound[k + 1];
        if (level_init(&levels[k + 1], cap, KEY_SIZE) < 0)
            return -1;
        for (Py_ssize_t i = 0; i < levels[k].n; i++) {
            if (steps(rules, &levels[k].items[i], dice[k], &levels[k + 1]) < 0)
                return -1;
        }
        if (levels[k + 1].n == 0)
            break;
        depth = k + 1;
    }
    return depth;
}

/* A tuple of the 26 counts, read through `order` when given (the mirror table). */
static PyObject *
counts_tuple(const unsigned char *counts, const unsigned char *order)
{
    PyObject *result = PyTuple_New(POINTS);
    if (result == NULL)
        return NULL;
    for (int p = 0; p < POINTS; p++) {
        PyObject *count = PyLong_FromLong(counts[order ? order[p] : p]);
        if (count == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, p, count); /* steals */
    }
    return result;
}

/* (start, end) as an instance of move_type, a subclass of tuple (Rules' Move), built the
 * way tuple's own __new__ builds subclass instances, which is what calling it would do. */
static PyObject *
move_pair(PyTypeObject *move_type, int start, int end)
{
    PyObject *pair = move_type->tp_alloc(move_type, 2);
    if (pair == NULL)
        return NULL;
    PyObject *first = PyLong_FromLong(start);
    PyObject *second = first ? PyLong_FromLong(end) : NULL;
    if (second == NULL) {
        Py_XDECREF(first);
        Py_DECREF(pair);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, first); /* steals */
    PyTuple_SET_ITEM(pair, 1, second);
    return pair;
}

/* (own counts, opponent's counts in his numbering, moves) for one outcome; a new reference
 * or NULL. Built here, in the caller's types, because converting in Python cost more than
 * the search itself. */
static PyObject *
outcome_tuple(const State *state, const unsigned char *mirror, PyTypeObject *move_type)
{
    PyObject *result = PyTuple_New(3);
    if (result == NULL)
        return NULL;
    PyObject *own = counts_tuple(state->own, NULL);
    if (own == NULL)
        goto fail;
    PyTuple_SET_ITEM(result, 0, own);
    PyObject *theirs = counts_tuple(state->opp, mirror);
    if (theirs == NULL)
        goto fail;
    PyTuple_SET_ITEM(result, 1, theirs);
    PyObject *moves = PyTuple_New(state->n_moves);
    if (moves == NULL)
        goto fail;
    PyTuple_SET_ITEM(result, 2, moves);
    for (int i = 0; i < state->n_moves; i++) {
        PyObject *move = move_pair(move_type, state->moves[i][0], state->moves[i][1]);
        if (move == NULL)
            goto fail;
        PyTuple_SET_ITEM(moves, i, move);
    }
    return result;
fail:
    Py_DECREF(result); /* frees what was set so far; unset items are NULL */
    return NULL;
}

static int
byte_sum(const unsigned char *counts)
{
    int total = 0;
    for (int p = 0; p < POINTS; p++)
        total += counts[p];
    return total;
}

PyDoc_STRVAR(plays_doc,
"plays(own, opp, die1, die2, head_limit, closed_from, hits, block, front, route, at_route,\n"
"      mirror, move_type)\n"
"--\n\n"
"The distinct outcomes of a roll, as Rules.outcomes finds them: a list of (own, theirs,\n"
"moves), own the mover's 26 counts, theirs the opponent's read back to his own numbering\n"
"through mirror (26 bytes, theirs[p] = opp[mirror[p]]), moves a tuple of move_type (a\n"
"subclass of tuple) pairs (start, end). own and opp come in as 26 bytes each.\n"
"route (25 bytes) and at_route (24 bytes) are LongNardy's block tables, read when block\n"
"is true. Returns None when a count is too large for a byte (the caller falls back).");

static PyObject *
plays(PyObject *module, PyObject *args)
{
    (void)module;
    const char *own_in, *opp_in, *route_in, *at_route_in, *mirror_in; /* what y# gives */
    Py_ssize_t own_len, opp_len, route_len, at_route_len, mirror_len;
    PyTypeObject *move_type;
    int die1, die2;
    Rules rules;
    if (!PyArg_ParseTuple(args, "y#y#iiiippiy#y#y#O!:plays", &own_in, &own_len, &opp_in,
                          &opp_len, &die1, &die2, &rules.head_limit, &rules.closed_from,
                          &rules.hits, &rules.block, &rules.front, &route_in, &route_len,
                          &at_route_in, &at_route_len, &mirror_in, &mirror_len, &PyType_Type,
                          &move_type))
        return NULL;
    if (own_len != POINTS || opp_len != POINTS || mirror_len != POINTS) {
        PyErr_SetString(PyExc_ValueError, "own, opp and mirror must be 26 bytes each");
        return NULL;
    }
    for (int p = 0; p < POINTS; p++) {
        if ((unsigned char)mirror_in[p] >= POINTS) {
            PyErr_SetString(PyExc_ValueError, "mirror must map points 0-25 to 0-25");
            return NULL;
        }
    }
    if (!PyType_IsSubtype(move_type, &PyTuple_Type) || move_type->tp_itemsize == 0) {
        PyErr_SetString(PyExc_TypeError, "move_type must be a subclass of tuple");
        return NULL;
    }
    if (die1 < 1 || die1 > 6 || die2 < 1 || die2 > 6) {
        PyErr_SetString(PyExc_ValueError, "each die must be from 1 to 6");
        return NULL;
    }
    memset(rules.route, 0, sizeof rules.route);
    memset(rules.at_route, 0, sizeof rules.at_route);
    if (rules.block) {
        int bad = route_len != POINTS - 1 || at_route_len != ROUTE;
        for (int p = 1; !bad && p <= ROUTE; p++)
            bad = (unsigned char)route_in[p] >= ROUTE || (unsigned char)at_route_in[p - 1] < 1 ||
                  (unsigned char)at_route_in[p - 1] > ROUTE;
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "route must map points 1-24 to 0-23, and "
                                              "at_route 0-23 back to points 1-24");
            return NULL;
        }
        memcpy(rules.route, route_in, POINTS - 1);
        memcpy(rules.at_route, at_route_in, ROUTE);
    }

    State start;
    memset(&start, 0, sizeof start);
    memcpy(start.own, own_in, POINTS);
    memcpy(start.opp, opp_in, POINTS);
    /* Steps move checkers, never add any, so no count can pass a side's total; the Python
     * reference keeps arbitrary counts (and raises past 255), so leave such input to it. */
    if (byte_sum(start.own) > 255 || byte_sum(start.opp) > 255)
        Py_RETURN_NONE;

    int big = die1 > die2 ? die1 : die2, small = die1 > die2 ? die2 : die1;
    int orders[2][MAX_DICE] = {{big, small}, {small, big}};
    int n_orders = 2, n_dice = 2;
    const Py_ssize_t *bound = MIXED_BOUND;
    if (big == small) {
        for (int k = 0; k < MAX_DICE; k++)
            orders[0][k] = big;
        n_orders = 1;
        n_dice = MAX_DICE;
        bound = DOUBLES_BOUND;
    }

    Level levels[2][MAX_DICE + 1];
    Level distinct = {0};
    memset(levels, 0, sizeof levels);
    PyObject *result = NULL;
    int depth[2] = {0, 0}, most = 0;
    for (int o = 0; o < n_orders; o++) {
        depth[o] = search(&rules, &start, orders[o], n_dice, bound, levels[o]);
        if (depth[o] < 0)
            goto done;
        if (depth[o] > most)
            most = depth[o];
    }

    /* Play as many dice as possible; if only one of two can be played, the larger (5.4.26).
     * Bearing off the last checker ends the game, so it counts as a full play whenever it
     * happens. With no step at all, the start itself is the one outcome. */
    const Level *chosen[3];
    int n_chosen = 0;
    if (most == 1 && n_orders == 2 && depth[0] == 1) {
        chosen[n_chosen++] = &levels[0][1];
    }
    else {
        for (int o = 0; o < n_orders; o++) {
            if (depth[o] == most)
                chosen[n_chosen++] = &levels[o][most];
        }
    }
    Py_ssize_t total = 0;
    for (int c = 0; c < n_chosen; c++)
        total += chosen[c]->n;
    for (int o = 0; o < n_orders; o++) {
        for (int k = 1; k <= depth[o]; k++)
            total += levels[o][k].n;
    }
    if (level_init(&distinct, total, PLACEMENT_SIZE) < 0)
        goto done;
    for (int c = 0; c < n_chosen; c++) {
        for (Py_ssize_t i = 0; i < chosen[c]->n; i++) {
            distinct.items[distinct.n] = chosen[c]->items[i];
            level_keep_candidate(&distinct);
        }
    }
    for (int o = 0; o < n_orders; o++) {
        for (int k = 1; k <= depth[o]; k++) {
            for (Py_ssize_t i = 0; i < levels[o][k].n; i++) {
                if (levels[o][k].items[i].own[OFF] != 15)
                    continue;
                distinct.items[distinct.n] = levels[o][k].items[i];
                level_keep_candidate(&distinct);
            }
        }
    }

    result = PyList_New(distinct.n);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < distinct.n; i++) {
        PyObject *outcome =
            outcome_tuple(&distinct.items[i], (const unsigned char *)mirror_in, move_type);
        if (outcome == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, outcome); /* steals */
    }

done:
    for (int o = 0; o < 2; o++) {
        for (int k = 0; k <= MAX_DICE; k++)
            level_free(&levels[o][k]);
    }
    level_free(&distinct);
    return result;
}

static PyMethodDef movegen_methods[] = {
    {"plays", plays, METH_VARARGS, plays_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef movegen_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "referee._movegen",
    .m_doc = "Native move generator for referee.rules.Rules.outcomes.",
    .m_size = -1,
    .m_methods = movegen_methods,
};

PyMODINIT_FUNC
PyInit__movegen(void)
{
    return PyModule_Create(&movegen_module);
}
