/* lowcard: a cribbage bot in C that speaks cribsim's player protocol (docs/protocol.md).
 *
 * It discards the highest cards it holds and plays its lowest legal card. It reads one JSON
 * request per line on standard input and writes one reply per line on standard output, with
 * the request's "id"; it needs no JSON library: it only looks for the few fields it uses.
 *
 *   cc -O2 -o lowcard lowcard.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE (1 << 20)

/* the whole numbers of the array field "name": [..] in line, at most max; -1 if absent */
static int int_array(const char *line, const char *name, int *out, int max) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":[", name);
    const char *p = strstr(line, key);
    if (!p) return -1;
    p += strlen(key);
    int n = 0;
    while (*p && *p != ']' && n < max) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p) { p++; continue; }
        out[n++] = (int)v;
        p = end;
    }
    return n;
}

static int int_field(const char *line, const char *name, int dflt) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *p = strstr(line, key);
    return p ? atoi(p + strlen(key)) : dflt;
}

static int has(const char *line, const char *text) { return strstr(line, text) != NULL; }

static int by_rank_desc(const void *a, const void *b) { return *(const int *)b - *(const int *)a; }

int main(void) {
    static char line[MAX_LINE];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        int id = int_field(line, "id", 0); /* every reply carries its request's id */
        if (has(line, "\"kind\":\"hello\"")) {
            if (!has(line, "\"game\":\"cribbage\"")) {
                printf("{\"id\":%d,\"kind\":\"error\",\"message\":\"lowcard plays cribbage only\"}\n", id);
                continue;
            }
            printf("{\"id\":%d,\"kind\":\"capabilities\",\"protocol\":3,\"name\":\"lowcard\","
                   "\"decisions\":[\"discard\",\"play\"],\"understands\":[],\"games\":[\"cribbage\"]}\n", id);
        } else if (has(line, "\"kind\":\"decide\"")) {
            int cards[64];
            if (has(line, "\"decision\":\"discard\"")) {
                int n = int_array(line, "hand", cards, 64), k = int_field(line, "discards", 1);
                qsort(cards, n, sizeof cards[0], by_rank_desc); /* card = rank * 4 + suit */
                printf("{\"id\":%d,\"kind\":\"reply\",\"answer\":[", id);
                for (int i = 0; i < k && i < n; i++) printf(i ? ",%d" : "%d", cards[i]);
                printf("]}\n");
            } else {
                int n = int_array(line, "legal", cards, 64), best = -1;
                for (int i = 0; i < n; i++) if (best < 0 || cards[i] < best) best = cards[i];
                printf("{\"id\":%d,\"kind\":\"reply\",\"answer\":%d}\n", id, best);
            }
        } else {
            printf("{\"id\":%d,\"kind\":\"ok\"}\n", id); /* match, seed, result */
        }
    }
    return 0;
}
