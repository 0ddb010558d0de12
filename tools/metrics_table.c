/* metrics_table.c - metric records from many runs -> one table (markdown or
 * TSV): cells are mean, sample standard deviation and count of the values
 * sharing a row key and a column key (formats/metric.md, "Tables"). */
#include "metrics_tool.h"
#include "cli.h"
#include "die.h"
#include "io.h"
#include "stream.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct strings {
    char **v;
    int n, cap;
};

static int strings_find(const struct strings *s, const char *x)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->v[i], x) == 0)
            return i;
    return -1;
}

static int strings_add(struct strings *s, const char *x)
{
    int i = strings_find(s, x);
    if (i >= 0)
        return i;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = xrealloc(s->v, sizeof *s->v * (size_t)s->cap);
    }
    s->v[s->n] = xstrdup(x);
    return s->n++;
}

static void strings_free(struct strings *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/* "a,b,c" -> the keys; an empty one ("" included) is an error. */
static void split_keys(const char *list, const char *option, struct strings *out)
{
    struct cli_list keys;
    cli_list_split(&keys, list);
    bool empty = keys.count == 0;
    for (int i = 0; i < keys.count; i++)
        empty |= !keys.items[i][0];
    if (empty)
        die(EX_USAGE, "option '--%s' has an empty key in '%s'", option, list);
    for (int i = 0; i < keys.count; i++)
        strings_add(out, keys.items[i]);
    cli_list_free(&keys);
}

struct cell {
    double *values;
    int n, cap;
    char *name, *split;            /* of the first record, to refuse mixtures */
    long first_record;
    bool has_paper;
    double paper_mean, paper_std;  /* paper_std NaN when not given */
};

/* A string field of a msgpack object, copied; NULL if not a str/bin. */
static char *object_string(const msgpack_object *o)
{
    const char *p;
    size_t len;
    if (!mp_string_view(o, &p, &len) || memchr(p, 0, len))
        return NULL;
    char *s = xmalloc(len + 1);
    memcpy(s, p, len);
    s[len] = 0;
    return s;
}

static char *string_key(const struct record *rec, const char *key)
{
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "missing key '%s'", key);
    char *s = object_string(o);
    if (!s)
        record_die(rec, "'%s' is not a string", key);
    return s;
}

/* The value of one row/column key for a metric record: its name, its split
 * or one of its labels ("-" when the record has no such label). */
static const char *key_value(const char *key, const char *name, const char *split,
                             const msgpack_object *labels, const struct record *rec, char **owned)
{
    *owned = NULL;
    if (strcmp(key, "name") == 0)
        return name;
    if (strcmp(key, "split") == 0)
        return split;
    const msgpack_object *value = map_find(labels, key);
    if (!value)
        return "-";
    *owned = object_string(value);
    if (!*owned)
        record_die(rec, "label '%s' is not a string", key);
    return *owned;
}

/* Parts of a row or column key are joined by a byte labels do not hold;
 * shown (headers, --paper) joined by a space. */
#define KEY_SEP "\x1f"

/* The key as shown: parts joined by spaces (malloc'ed). */
static char *shown_key(const char *key)
{
    char *s = xstrdup(key);
    for (char *p = s; *p; p++)
        if (*p == KEY_SEP[0])
            *p = ' ';
    return s;
}

/* Index of the key whose shown form is x, or -1. */
static int find_shown(const struct strings *keys, const char *x)
{
    for (int i = 0; i < keys->n; i++) {
        char *s = shown_key(keys->v[i]);
        bool same = strcmp(s, x) == 0;
        free(s);
        if (same)
            return i;
    }
    return -1;
}

static char *join_key(const struct strings *keys, const char *name, const char *split,
                      const msgpack_object *labels, const struct record *rec)
{
    size_t cap = 64, len = 0;
    char *out = xmalloc(cap);
    out[0] = 0;
    for (int i = 0; i < keys->n; i++) {
        char *owned;
        const char *v = key_value(keys->v[i], name, split, labels, rec, &owned);
        size_t need = strlen(v) + 2;
        out = xreserve(out, &cap, len + need + 1);
        len += (size_t)sprintf(out + len, "%s%s", i ? KEY_SEP : "", v);
        free(owned);
    }
    return out;
}

/* "12.5%" -> 0.125, "0.3" -> 0.3; false if not a number. */
static bool parse_paper_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s)
        return false;
    if (*end == '%') {
        v /= 100;
        end++;
    }
    while (*end == ' ' || *end == '\r')
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

struct table {
    struct strings rows, cols;
    struct cell *cells;            /* rows.n x cols.n, grown with them */
    int cap_rows, cap_cols;
};

static struct cell *table_cell(struct table *t, int r, int c)
{
    if (r >= t->cap_rows || c >= t->cap_cols) {
        int nr = r >= t->cap_rows ? 2 * r + 8 : t->cap_rows;
        int nc = c >= t->cap_cols ? 2 * c + 8 : t->cap_cols;
        struct cell *cells = xcalloc((size_t)nr * (size_t)nc, sizeof *cells);
        for (int i = 0; i < t->cap_rows; i++)
            for (int j = 0; j < t->cap_cols; j++)
                cells[(size_t)i * nc + j] = t->cells[(size_t)i * t->cap_cols + j];
        free(t->cells);
        t->cells = cells;
        t->cap_rows = nr;
        t->cap_cols = nc;
    }
    return &t->cells[(size_t)r * t->cap_cols + c];
}

/* Rows and columns are shown in the order the paper file first names them
 * (so a table follows the paper's layout whatever order the runs came in),
 * then the others in the order first seen.  A mean of "-" is the paper's
 * empty cell: it only places its row and column. */
static void note_order(int *order, int *n, int index)
{
    for (int i = 0; i < *n; i++)
        if (order[i] == index)
            return;
    order[(*n)++] = index;
}

static void read_paper(struct table *t, FILE *f, const char *name, int *row_order, int *n_rows,
                       int *col_order, int *n_cols)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (len == 0 || line[0] == '#')
            continue;
        char *field[5] = {0};
        int nf = 0;
        for (char *p = line; nf < 5;) {
            field[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = 0;
            p = tab + 1;
        }
        double mean, std = NAN;
        bool placeholder = nf >= 3 && strcmp(field[2], "-") == 0;
        if (nf < 3 || nf > 4 || (!placeholder && !parse_paper_number(field[2], &mean)) ||
            (nf == 4 && field[3][0] && !parse_paper_number(field[3], &std)))
            die(EX_DATAERR, "%s: line %ld: expected 'row<TAB>column<TAB>mean[<TAB>std]'", name, lineno);
        int r = find_shown(&t->rows, field[0]), c = find_shown(&t->cols, field[1]);
        if (r < 0 || c < 0) {
            warn("%s: line %ld: no row '%s' and column '%s' in the table", name, lineno, field[0], field[1]);
            continue;
        }
        note_order(row_order, n_rows, r);
        note_order(col_order, n_cols, c);
        if (placeholder)
            continue;
        struct cell *cell = table_cell(t, r, c);
        cell->has_paper = true;
        cell->paper_mean = mean;
        cell->paper_std = std;
    }
    if (ferror(f))
        die(EX_IOERR, "%s: read error:", name);
    free(line);
}

/* Permute rows and columns: row_order[0..n_rows) first, then the rest. */
static void table_reorder(struct table *t, int *row_order, int n_rows, int *col_order, int n_cols)
{
    for (int r = 0; r < t->rows.n; r++)
        note_order(row_order, &n_rows, r);
    for (int c = 0; c < t->cols.n; c++)
        note_order(col_order, &n_cols, c);
    struct table u = {0};
    for (int i = 0; i < t->rows.n; i++)
        strings_add(&u.rows, t->rows.v[row_order[i]]);
    for (int j = 0; j < t->cols.n; j++)
        strings_add(&u.cols, t->cols.v[col_order[j]]);
    for (int i = 0; i < t->rows.n; i++)
        for (int j = 0; j < t->cols.n; j++)
            *table_cell(&u, i, j) = *table_cell(t, row_order[i], col_order[j]);
    strings_free(&t->rows);
    strings_free(&t->cols);
    free(t->cells);
    *t = u;
}

static bool in_list(const struct strings *list, const char *name)
{
    return strings_find(list, name) >= 0;
}

/* Shortest text that reads back to the same double. */
static void shortest(char *buf, size_t cap, double v)
{
    if (isnan(v)) {
        snprintf(buf, cap, "nan");
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

__attribute__((format(printf, 2, 3)))
static void put(FILE *f, const char *fmt, ...)
{
    char stack[1024], *buf = stack;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(stack, sizeof stack, fmt, ap);
    va_end(ap);
    if (len < 0)
        die(EX_SOFTWARE, "cannot format the table");
    if ((size_t)len >= sizeof stack) {
        buf = xmalloc((size_t)len + 1);
        va_start(ap, fmt);
        vsnprintf(buf, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    io_write(f, buf, (size_t)len);
    if (buf != stack)
        free(buf);
}

/* A number as the markdown table shows it: a percent mean carries its '%',
 * the deviation beside it does not. */
static void pretty(char *buf, size_t cap, double v, bool percent, bool percent_sign, int digits)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else if (percent)
        snprintf(buf, cap, "%.*f%s", digits > 2 ? digits - 2 : 0, 100 * v, percent_sign ? "%" : "");
    else
        snprintf(buf, cap, "%.*f", digits, v);
}

static void cell_stats(const struct cell *c, double *mean, double *std)
{
    double sum = 0;
    for (int i = 0; i < c->n; i++)
        sum += c->values[i];
    *mean = c->n ? sum / c->n : NAN;
    double ss = 0;
    for (int i = 0; i < c->n; i++)
        ss += (c->values[i] - *mean) * (c->values[i] - *mean);
    *std = c->n > 1 ? sqrt(ss / (c->n - 1)) : NAN;
}

/* Markdown text with '|' escaped. */
static void put_md_text(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            put(f, "\\|");
        else
            io_write(f, s, 1);
}

/* What selects and places a metric record: the keys joined into its row
 * and column, and the names a table is restricted to (none: all). */
struct table_keys {
    struct strings rows, cols, only;
};

/* One metric record into its cell; dies when two metrics or splits would
 * share a cell. */
static void table_add(struct table *t, const struct table_keys *keys, const struct record *rec)
{
    char *kind = string_key(rec, "kind");
    if (strcmp(kind, "metric") != 0)
        record_die(rec, "a '%s' record, expected 'metric'", kind);
    free(kind);
    char *name = string_key(rec, "name");
    if (keys->only.n && !in_list(&keys->only, name)) {   /* one stream of scores feeds several tables */
        free(name);
        return;
    }
    char *split = string_key(rec, "split");
    double value = record_double(rec, "value");
    const msgpack_object *labels = record_find(rec, "labels");
    static const msgpack_object no_labels = {.type = MSGPACK_OBJECT_MAP};
    if (!labels)
        labels = &no_labels;
    else if (labels->type != MSGPACK_OBJECT_MAP)
        record_die(rec, "'labels' is not a map");
    char *rk = join_key(&keys->rows, name, split, labels, rec);
    char *ck = join_key(&keys->cols, name, split, labels, rec);
    int r = strings_add(&t->rows, rk), c = strings_add(&t->cols, ck);
    char *rs = shown_key(rk), *cs = shown_key(ck);
    struct cell *cell = table_cell(t, r, c);
    if (cell->n == 0) {
        cell->name = xstrdup(name);
        cell->split = xstrdup(split);
        cell->first_record = rec->index;
    } else if (strcmp(cell->name, name) != 0) {
        record_die(rec, "metric '%s' falls in the cell of metric '%s' (record %ld): row '%s', column '%s'; "
                   "add 'name' to --rows or --cols", name, cell->name, cell->first_record, rs, cs);
    } else if (strcmp(cell->split, split) != 0) {
        record_die(rec, "split '%s' falls in the cell of split '%s' (record %ld): row '%s', column '%s'; "
                   "add 'split' to --rows or --cols", split, cell->split, cell->first_record, rs, cs);
    }
    if (cell->n == cell->cap) {
        cell->cap = cell->cap ? 2 * cell->cap : 8;
        cell->values = xrealloc(cell->values, sizeof *cell->values * (size_t)cell->cap);
    }
    cell->values[cell->n++] = value;
    free(rk);
    free(ck);
    free(rs);
    free(cs);
    free(name);
    free(split);
}

/* The paper's values into their cells, rows and columns in its order. */
static void table_add_paper(struct table *t, FILE *paper, const char *paper_name)
{
    int *row_order = xmalloc(sizeof(int) * (size_t)t->rows.n), *col_order = xmalloc(sizeof(int) * (size_t)t->cols.n);
    int n_rows = 0, n_cols = 0;
    read_paper(t, paper, paper_name, row_order, &n_rows, col_order, &n_cols);
    table_reorder(t, row_order, n_rows, col_order, n_cols);
    free(row_order);
    free(col_order);
}

/* The parts of row r's key, one column each: markdown cells or tab-separated. */
static void put_row_key_parts(FILE *f, const struct table *t, int r, int parts, bool markdown)
{
    char *rk = xstrdup(t->rows.v[r]), *p = rk;
    for (int k = 0; k < parts; k++) {
        char *sp = strchr(p, KEY_SEP[0]);
        if (sp) *sp = 0;
        if (markdown) {
            put(f, " ");
            put_md_text(f, p);
            put(f, " |");
        } else
            put(f, "%s%s", k ? "\t" : "", p);
        p = sp ? sp + 1 : p + strlen(p);
    }
    free(rk);
}

/* "mean ± std (n)" or "mean (n)" or "-", then " (paper mean ± std)". */
static void put_md_cell(FILE *f, struct table *t, int r, int c, const struct strings *percent, int digits)
{
    struct cell *cell = table_cell(t, r, c);
    char a[64], b[64];
    put(f, " ");
    /* percent or not by the metric's name; an empty cell (only a
     * paper value) takes the name of a filled cell of its column */
    const char *metric = cell->name;
    for (int i = 0; !metric && i < t->rows.n; i++)
        metric = table_cell(t, i, c)->name;
    bool pc = metric && in_list(percent, metric);
    if (cell->n == 0) {
        put(f, "-");
    } else {
        double mean, std;
        cell_stats(cell, &mean, &std);
        pretty(a, sizeof a, mean, pc, true, digits);
        if (cell->n > 1) {
            pretty(b, sizeof b, std, pc, false, digits);
            put(f, "%s ± %s (%d)", a, b, cell->n);
        } else {
            put(f, "%s (%d)", a, cell->n);
        }
    }
    if (cell->has_paper) {
        pretty(a, sizeof a, cell->paper_mean, pc, true, digits);
        put(f, " (paper %s", a);
        if (!isnan(cell->paper_std)) {
            pretty(b, sizeof b, cell->paper_std, pc, false, digits);
            put(f, " ± %s", b);
        }
        put(f, ")");
    }
    put(f, " |");
}

static void print_markdown(FILE *f, struct table *t, const struct strings *row_keys, const struct strings *percent,
                           const struct metrics_table_options *o)
{
    if (o->title)
        put(f, "**%s**\n\n", o->title);
    put(f, "|");
    for (int k = 0; k < row_keys->n; k++) {
        put(f, " ");
        put_md_text(f, row_keys->v[k]);
        put(f, " |");
    }
    for (int c = 0; c < t->cols.n; c++) {
        char *h = shown_key(t->cols.v[c]);
        put(f, " ");
        put_md_text(f, h);
        put(f, " |");
        free(h);
    }
    put(f, "\n|");
    for (int k = 0; k < row_keys->n; k++)
        put(f, "---|");
    for (int c = 0; c < t->cols.n; c++)
        put(f, "---|");
    put(f, "\n");
    for (int r = 0; r < t->rows.n; r++) {
        put(f, "|");
        put_row_key_parts(f, t, r, row_keys->n, true);
        for (int c = 0; c < t->cols.n; c++)
            put_md_cell(f, t, r, c, percent, o->digits);
        put(f, "\n");
    }
}

static void print_tsv(FILE *f, struct table *t, const struct strings *row_keys, const struct metrics_table_options *o)
{
    if (o->title)
        put(f, "# %s\n", o->title);
    for (int k = 0; k < row_keys->n; k++)
        put(f, "%s%s", k ? "\t" : "", row_keys->v[k]);
    for (int c = 0; c < t->cols.n; c++) {
        char *h = shown_key(t->cols.v[c]);
        put(f, "\t%s\t%s std\t%s n", h, h, h);
        if (o->paper)
            put(f, "\t%s paper\t%s paper std", h, h);
        free(h);
    }
    put(f, "\n");
    for (int r = 0; r < t->rows.n; r++) {
        put_row_key_parts(f, t, r, row_keys->n, false);
        for (int c = 0; c < t->cols.n; c++) {
            struct cell *cell = table_cell(t, r, c);
            char a[40] = "", b[40] = "";
            if (cell->n) {
                double mean, std;
                cell_stats(cell, &mean, &std);
                shortest(a, sizeof a, mean);
                if (cell->n > 1)
                    shortest(b, sizeof b, std);
            }
            put(f, "\t%s\t%s\t%d", a, b, cell->n);
            if (o->paper) {
                a[0] = b[0] = 0;
                if (cell->has_paper) {
                    shortest(a, sizeof a, cell->paper_mean);
                    if (!isnan(cell->paper_std))
                        shortest(b, sizeof b, cell->paper_std);
                }
                put(f, "\t%s\t%s", a, b);
            }
        }
        put(f, "\n");
    }
}

static void table_free(struct table *t)
{
    for (int i = 0; i < t->cap_rows * t->cap_cols; i++) {
        free(t->cells[i].values);
        free(t->cells[i].name);
        free(t->cells[i].split);
    }
    free(t->cells);
    strings_free(&t->rows);
    strings_free(&t->cols);
}

void metrics_table(FILE *in, const char *in_name, FILE *out, const struct metrics_table_options *o)
{
    struct table_keys keys = {0};
    struct strings percent = {0};
    split_keys(o->rows, "rows", &keys.rows);
    split_keys(o->cols, "cols", &keys.cols);
    if (o->percent && o->percent[0])
        split_keys(o->percent, "percent", &percent);
    if (o->only && o->only[0])
        split_keys(o->only, "quantity", &keys.only);
    struct table t = {0};
    struct reader rd;
    struct record rec;
    reader_init(&rd, in, in_name);
    while (reader_next(&rd, &rec))
        table_add(&t, &keys, &rec);
    reader_free(&rd);
    if (t.rows.n == 0)
        die(EX_DATAERR, "no metric records in the input");
    if (o->paper)
        table_add_paper(&t, o->paper, o->paper_name);
    if (o->format == TABLE_MD)
        print_markdown(out, &t, &keys.rows, &percent, o);
    else
        print_tsv(out, &t, &keys.rows, o);
    table_free(&t);
    strings_free(&keys.rows);
    strings_free(&keys.cols);
    strings_free(&keys.only);
    strings_free(&percent);
}
