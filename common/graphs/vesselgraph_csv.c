/* vesselgraph_csv.c - the VesselGraph processed CSV pair as a vessel record
 * (vesselgraph_csv.h). */
#include "vesselgraph_csv.h"
#include "die.h"
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 256

struct csv {
    FILE *f;
    char *path;
    char *line;
    size_t cap;
    long lineno;
    int nfields;                 /* in the header */
    char *field[MAX_FIELDS];     /* of the current row, NUL-terminated in line */
};

__attribute__((noreturn, format(printf, 2, 3)))
static void csv_die(const struct csv *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    die(EX_DATAERR, "%s:%ld: %s", c->path, c->lineno, msg);
}

/* Split the next non-blank line into fields; false at end of file. */
static bool csv_next(struct csv *c)
{
    for (;;) {
        errno = 0;
        ssize_t len = getline(&c->line, &c->cap, c->f);
        if (len < 0) {
            if (ferror(c->f))
                die(EX_IOERR, "%s: read error:", c->path);
            return false;
        }
        c->lineno++;
        while (len > 0 && (c->line[len - 1] == '\n' || c->line[len - 1] == '\r'))
            c->line[--len] = 0;
        if ((size_t)len != strlen(c->line))
            csv_die(c, "NUL byte in line");
        if (c->lineno == 1 && len >= 3 && memcmp(c->line, "\xef\xbb\xbf", 3) == 0)
            memmove(c->line, c->line + 3, (size_t)(len -= 3) + 1);
        bool blank = true;
        for (ssize_t i = 0; i < len && blank; i++)
            blank = c->line[i] == ' ' || c->line[i] == '\t';
        if (blank)
            continue;
        int n = 0;
        char *p = c->line;
        for (;;) {
            if (n == MAX_FIELDS)
                csv_die(c, "more than %d fields", MAX_FIELDS);
            c->field[n++] = p;
            char *semi = strchr(p, ';');
            if (!semi)
                break;
            *semi = 0;
            p = semi + 1;
        }
        if (c->lineno > 1 && n != c->nfields)
            csv_die(c, "%d fields, expected %d as in the header", n, c->nfields);
        if (c->lineno == 1)
            c->nfields = n;
        return true;
    }
}

static void csv_open(struct csv *c, const char *dir, const char *name)
{
    memset(c, 0, sizeof *c);
    size_t len = strlen(dir) + strlen(name) + 2;
    c->path = xmalloc(len);
    snprintf(c->path, len, "%s/%s", dir, name);
    c->f = fopen(c->path, "r");
    if (!c->f)
        die(EX_NOINPUT, "cannot open '%s':", c->path);
    if (!csv_next(c)) {
        c->lineno = 1;
        csv_die(c, "empty file, expected a header row");
    }
}

static void csv_close(struct csv *c)
{
    fclose(c->f);
    free(c->path);
    free(c->line);
}

/* The header column called name, or -1. */
static int csv_column(const struct csv *c, const char *name)
{
    for (int i = 0; i < c->nfields; i++) {
        const char *h = c->field[i];
        size_t l = strlen(h);
        if (l >= 2 && h[0] == '"' && h[l - 1] == '"' && l - 2 == strlen(name) && strncmp(h + 1, name, l - 2) == 0)
            return i;
        if (strcmp(h, name) == 0)
            return i;
    }
    return -1;
}

static int csv_require(const struct csv *c, const char *name)
{
    int i = csv_column(c, name);
    if (i < 0)
        csv_die(c, "no '%s' column in the header", name);
    return i;
}

static double csv_number(const struct csv *c, int col, const char *name)
{
    const char *s = c->field[col];
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    while (end != s && (*end == ' ' || *end == '\t'))
        end++;
    if (end == s || *end)
        csv_die(c, "'%s' is '%.40s', not a number", name, s);
    if (!isfinite(x))
        csv_die(c, "'%s' is '%.40s', not a finite number", name, s);
    return x;
}

static float csv_float(const struct csv *c, int col, const char *name)
{
    double x = csv_number(c, col, name);
    if (fabs(x) > 3.4e38)
        csv_die(c, "'%s' is %g, outside float32 range", name, x);
    return strtof(c->field[col], NULL);   /* read as float32 directly: exact round trip of %.9g */
}

static int64_t csv_index(const struct csv *c, int col, const char *name, int64_t limit)
{
    double x = csv_number(c, col, name);
    if (x != floor(x) || x < 0)
        csv_die(c, "'%s' is '%.40s', expected a node id (an integer >= 0)", name, c->field[col]);
    if (x >= (double)limit)
        csv_die(c, "'%s' is %.0f, outside 0..%lld", name, x, (long long)limit - 1);
    return (int64_t)x;
}

/* The one file in dir whose name ends with suffix. */
static char *find_one(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        die(EX_NOINPUT, "cannot open directory '%s':", dir);
    char *found = NULL;
    struct dirent *ent;
    size_t sl = strlen(suffix);
    while ((ent = readdir(d))) {
        size_t l = strlen(ent->d_name);
        if (l <= sl || strcmp(ent->d_name + l - sl, suffix) != 0)
            continue;
        if (found) {
            closedir(d);
            die(EX_NOINPUT, "%s: more than one '*%s' file ('%s', '%s')", dir, suffix, found, ent->d_name);
        }
        found = xstrdup(ent->d_name);
    }
    closedir(d);
    if (!found)
        die(EX_NOINPUT, "%s: no '*%s' file", dir, suffix);
    return found;
}

static void *grow(void *p, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap)
        return p;
    while (*cap < need)
        *cap = *cap ? *cap * 2 : 1024;
    return xrealloc(p, size * (size_t)*cap);
}

static void read_nodes(const char *dir, const char *name, struct vessel_graph *v)
{
    struct csv c;
    csv_open(&c, dir, name);
    int cid = csv_require(&c, "id"), cx = csv_require(&c, "pos_x"), cy = csv_require(&c, "pos_y"),
        cz = csv_require(&c, "pos_z");
    int64_t n = 0, cap = 0, lcap = 0;
    int64_t *ids = NULL, *lines = NULL;
    float *pos = NULL;
    int64_t pcap = 0;
    while (csv_next(&c)) {
        if (n >= INT32_MAX - 1)
            csv_die(&c, "too many nodes");
        ids = grow(ids, &cap, n + 1, sizeof *ids);
        lines = grow(lines, &lcap, n + 1, sizeof *lines);
        pos = grow(pos, &pcap, 3 * (n + 1), sizeof *pos);
        ids[n] = csv_index(&c, cid, "id", INT32_MAX);
        pos[3 * n] = csv_float(&c, cx, "pos_x");
        pos[3 * n + 1] = csv_float(&c, cy, "pos_y");
        pos[3 * n + 2] = csv_float(&c, cz, "pos_z");
        lines[n] = c.lineno;
        n++;
    }
    if (n < 2) {
        c.lineno = c.lineno ? c.lineno : 1;
        csv_die(&c, "%lld node rows, a graph needs at least 2", (long long)n);
    }
    v->g.n = (int)n;
    v->pos = xmalloc(sizeof *v->pos * 3 * (size_t)n);
    uint8_t *seen = xcalloc((size_t)n, 1);
    for (int64_t i = 0; i < n; i++) {
        c.lineno = lines[i];
        if (ids[i] >= n)
            csv_die(&c, "'id' is %lld, outside 0..%lld (ids must number the %lld nodes)", (long long)ids[i],
                    (long long)n - 1, (long long)n);
        if (seen[ids[i]])
            csv_die(&c, "node id %lld appears twice", (long long)ids[i]);
        seen[ids[i]] = 1;
        memcpy(v->pos + 3 * ids[i], pos + 3 * i, 3 * sizeof(float));
    }
    free(seen);
    free(ids);
    free(lines);
    free(pos);
    csv_close(&c);
}

static void read_edges(const char *dir, const char *name, struct vessel_graph *v)
{
    struct csv c;
    csv_open(&c, dir, name);
    int c1 = csv_require(&c, "node1id"), c2 = csv_require(&c, "node2id"), ca[VESSEL_ATTRS];
    for (int k = 0; k < VESSEL_ATTRS; k++)
        ca[k] = csv_require(&c, vessel_attr_names[k]);
    int64_t m = 0, cap[VESSEL_ATTRS + 4] = { 0 };
    int32_t *u = NULL, *w = NULL;
    int64_t *lines = NULL;
    uint8_t *label = NULL;
    float *attr[VESSEL_ATTRS] = { 0 };
    while (csv_next(&c)) {
        if (m >= INT32_MAX - 1)
            csv_die(&c, "too many edges");
        u = grow(u, &cap[0], m + 1, sizeof *u);
        w = grow(w, &cap[1], m + 1, sizeof *w);
        lines = grow(lines, &cap[2], m + 1, sizeof *lines);
        label = grow(label, &cap[3], m + 1, 1);
        int64_t a = csv_index(&c, c1, "node1id", v->g.n), b = csv_index(&c, c2, "node2id", v->g.n);
        if (a == b)
            csv_die(&c, "edge joins node %lld to itself", (long long)a);
        u[m] = (int32_t)(a < b ? a : b);
        w[m] = (int32_t)(a < b ? b : a);
        lines[m] = c.lineno;
        for (int k = 0; k < VESSEL_ATTRS; k++) {
            attr[k] = grow(attr[k], &cap[4 + k], m + 1, sizeof(float));
            attr[k][m] = csv_float(&c, ca[k], vessel_attr_names[k]);
        }
        label[m] = vessel_label(csv_number(&c, ca[VA_MIN_RADIUS_AVG], "minRadiusAvg"));
        m++;
    }
    int32_t *perm = xmalloc(sizeof *perm * (size_t)(m ? m : 1));
    vessel_sort_edges(v->g.n, (int)m, u, w, perm);
    for (int64_t i = 1; i < m; i++) {
        int32_t e = perm[i], f = perm[i - 1];
        if (u[e] == u[f] && w[e] == w[f]) {
            c.lineno = lines[e] > lines[f] ? lines[e] : lines[f];
            csv_die(&c, "nodes %d and %d are already joined on line %lld", u[e], w[e],
                    (long long)(lines[e] > lines[f] ? lines[f] : lines[e]));
        }
    }
    struct graph *g = &v->g;
    g->m = (int)m;
    g->src = xmalloc(sizeof *g->src * (size_t)(m ? m : 1));
    g->dst = xmalloc(sizeof *g->dst * (size_t)(m ? m : 1));
    v->label = xmalloc((size_t)(m ? m : 1));
    for (int k = 0; k < VESSEL_ATTRS; k++)
        v->attr[k] = xmalloc(sizeof(float) * (size_t)(m ? m : 1));
    for (int64_t i = 0; i < m; i++) {
        int32_t e = perm[i];
        g->src[i] = u[e];
        g->dst[i] = w[e];
        v->label[i] = label[e];
        for (int k = 0; k < VESSEL_ATTRS; k++)
            v->attr[k][i] = attr[k][e];
    }
    free(perm);
    free(u);
    free(w);
    free(lines);
    free(label);
    for (int k = 0; k < VESSEL_ATTRS; k++)
        free(attr[k]);
    csv_close(&c);
}

void vesselgraph_read(const char *dir, uint64_t seed, struct vessel_graph *v)
{
    memset(v, 0, sizeof *v);
    char *nodes = find_one(dir, "_nodes_processed.csv");
    char *edges = find_one(dir, "_edges_processed.csv");
    read_nodes(dir, nodes, v);
    read_edges(dir, edges, v);
    free(nodes);
    free(edges);
    vessel_finish(v, seed);
}
