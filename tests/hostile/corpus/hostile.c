/* hostile: the C bots of the hostile corpus (tests/hostile). Each plays as examples/bots/lowcard.c
 * does (lowest card, highest discards) and, by its first argument, tries one thing a stranger's
 * bot might:
 *
 *   spy PATH...        at its first decision, reports what it could reach: the files PATH...
 *                      (read=N of them readable), the processes it sees and whose memory or
 *                      environment it can read, the organiser's token (ORGANISER_TOKEN= in any
 *                      environment, or its value, the last PATH, in any memory), a user namespace
 *                      of its own (userns), a session of its own (setsid); as an error reply
 *                      "findings k=v ...", so the match's forfeit carries them
 *   stderr_killer      at hello, grows its standard error to 64 MiB and writes a forged
 *                      "cribsim:" line at its end (where stderr is the organiser's log file, every
 *                      later write of another sandboxed bot would pass its file-size limit)
 *   logger             an honest bot that writes a line on standard error at every request
 *   memhog MB N        at its first decision, N processes each take MB MiB (touched), then plays
 *   holder N           at hello, N processes that sleep (and live as long as it does)
 *   flood MB           at hello, writes MB MiB on standard error
 *
 *   cc -O2 -o hostile hostile.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LINE (1 << 20)

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

static int readable(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    char c;
    int ok = read(fd, &c, 1) >= 0;
    close(fd);
    return ok;
}

/* whether the file holds needle in its first max bytes */
static int file_holds(const char *path, const char *needle, size_t max) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    char *buf = malloc(max);
    ssize_t n = read(fd, buf, max);
    close(fd);
    int found = n > 0 && memmem(buf, (size_t)n, needle, strlen(needle)) != NULL;
    free(buf);
    return found;
}

/* reads what it can of pid's memory (readable regions, up to 8 MiB): -1 unreadable, else 1 if the needle is there */
static int memory_holds(int pid, const char *needle) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *maps = fopen(path, "r");
    if (!maps) return -1;
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int mem = open(path, O_RDONLY);
    if (mem < 0) { fclose(maps); return -1; }
    char line[512], *buf = malloc(1 << 20);
    int got = -1, found = 0;
    size_t total = 0;
    while (!found && total < (8u << 20) && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r') continue;
        for (unsigned long at = lo; at < hi && !found && total < (8u << 20); at += 1 << 20) {
            size_t want = hi - at < (1u << 20) ? hi - at : 1u << 20;
            ssize_t n = pread(mem, buf, want, (off_t)at);
            if (n <= 0) break;
            got = 1;
            total += (size_t)n;
            if (*needle && memmem(buf, (size_t)n, needle, strlen(needle))) found = 1;
        }
    }
    free(buf);
    close(mem);
    fclose(maps);
    return got < 0 ? -1 : found;
}

static void findings(char *out, size_t size, int argc, char **argv) {
    int files = 0, procs = 0, mem = 0, env = 0, token = 0;
    const char *value = argc > 2 ? argv[argc - 1] : "";
    for (int i = 2; i < argc - 1; i++) files += readable(argv[i]);
    DIR *d = opendir("/proc");
    struct dirent *e;
    int me = getpid();
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 0) continue;
        procs++;
        if (pid == me) continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        if (readable(path)) env++;
        if (file_holds(path, "ORGANISER_TOKEN=", 1 << 20)) token = 1;
        int m = memory_holds(pid, value);
        if (m >= 0) mem++;
        if (m > 0) token = 1;
    }
    if (d) closedir(d);
    int userns = unshare(CLONE_NEWUSER) == 0;
    int sid = setsid() >= 0;
    snprintf(out, size, "findings read=%d procs=%d env=%d mem=%d token=%s userns=%s setsid=%s", files, procs, env,
             mem, token ? "yes" : "no", userns ? "yes" : "no", sid ? "yes" : "no");
}

static void hog(int mb, int n) {
    for (int i = 0; i < n; i++) {
        if (fork() == 0) {
            size_t size = (size_t)mb << 20;
            char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p != MAP_FAILED) for (size_t j = 0; j < size; j += 4096) p[j] = 1;
            pause();
            _exit(0);
        }
    }
    sleep(2); /* time for the children to take it */
}

int main(int argc, char **argv) {
    static char line[MAX_LINE];
    const char *mode = argc > 1 ? argv[1] : "";
    int decided = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        int id = int_field(line, "id", 0);
        if (!strcmp(mode, "logger")) { fprintf(stderr, "logger: request %d\n", id); fflush(stderr); }
        if (has(line, "\"kind\":\"hello\"")) {
            if (!strcmp(mode, "stderr_killer")) {
                ftruncate(2, 64 << 20);
                lseek(2, 0, SEEK_END);
                dprintf(2, "cribsim: run complete: forged by the stderr killer\n");
            } else if (!strcmp(mode, "holder")) {
                int n = argc > 2 ? atoi(argv[2]) : 60;
                for (int i = 0; i < n; i++) if (fork() == 0) { pause(); _exit(0); }
            } else if (!strcmp(mode, "flood")) {
                static char junk[1 << 16];
                memset(junk, 'x', sizeof junk);
                int mb = argc > 2 ? atoi(argv[2]) : 100;
                for (int i = 0; i < mb * 16; i++) if (write(2, junk, sizeof junk) < 0) break;
            }
            printf("{\"id\":%d,\"kind\":\"capabilities\",\"protocol\":3,\"name\":\"hostile\","
                   "\"decisions\":[\"discard\",\"play\"],\"understands\":[]}\n", id);
        } else if (has(line, "\"kind\":\"decide\"")) {
            if (!decided++) {
                if (!strcmp(mode, "spy")) {
                    char found[512];
                    findings(found, sizeof found, argc, argv);
                    printf("{\"id\":%d,\"kind\":\"error\",\"message\":\"%s\"}\n", id, found);
                    continue;
                }
                if (!strcmp(mode, "memhog")) hog(argc > 2 ? atoi(argv[2]) : 400, argc > 3 ? atoi(argv[3]) : 12);
            }
            int cards[64];
            if (has(line, "\"decision\":\"discard\"")) {
                int n = int_array(line, "hand", cards, 64), k = int_field(line, "discards", 1);
                qsort(cards, n, sizeof cards[0], by_rank_desc);
                printf("{\"id\":%d,\"kind\":\"reply\",\"answer\":[", id);
                for (int i = 0; i < k && i < n; i++) printf(i ? ",%d" : "%d", cards[i]);
                printf("]}\n");
            } else {
                int n = int_array(line, "legal", cards, 64), best = -1;
                for (int i = 0; i < n; i++) if (best < 0 || cards[i] < best) best = cards[i];
                printf("{\"id\":%d,\"kind\":\"reply\",\"answer\":%d}\n", id, best);
            }
        } else {
            printf("{\"id\":%d,\"kind\":\"ok\"}\n", id);
        }
    }
    return 0;
}
