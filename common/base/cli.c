/* cli.c - table-driven option parsing, --help and canonical cache arguments. */
#include "cli.h"
#include "die.h"
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DAR_VERSION
#define DAR_VERSION "0.0.0"
#endif

static bool choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && memcmp(p, v, n) == 0)
            return true;
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

void cli_usage_error(const struct cli_spec *spec, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\nusage: %s %s\ntry '%s --help' for more information\n",
            spec->tool, msg, spec->tool, spec->synopsis, spec->tool);
    exit(EX_USAGE);
}

/* The option's current value as text: the default when printed by --help,
 * the resolved value when printed into a cache key. */
static void format_value(const struct cli_option *o, char *buf, size_t cap)
{
    switch (o->type) {
    case CLI_TYPE_FLAG: snprintf(buf, cap, "%s", *(bool *)o->dest ? "true" : "false"); break;
    case CLI_TYPE_INT: snprintf(buf, cap, "%lld", (long long)*(int64_t *)o->dest); break;
    case CLI_TYPE_DOUBLE: {
        /* the shortest text that reads back to the same double: exact for
         * cache keys, readable in --help */
        double v = *(double *)o->dest;
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(buf, cap, "%.*g", digits, v);
            if (strtod(buf, NULL) == v)
                break;
        }
        break;
    }
    case CLI_TYPE_STRING:
    case CLI_TYPE_CHOICE:
    case CLI_TYPE_LIST: {
        const char *s = *(const char **)o->dest;
        snprintf(buf, cap, "%s", s ? s : "");
        break;
    }
    case CLI_TYPE_REPEAT: {
        const struct cli_repeat *r = o->dest;
        size_t len = 0;
        buf[0] = 0;
        for (int i = 0; i < r->count && len < cap; i++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", r->values[i]);
        break;
    }
    }
}

static void print_help(const struct cli_spec *spec)
{
    printf("usage: %s %s\n\n%s\n\noptions:\n", spec->tool, spec->synopsis, spec->summary);
    for (const struct cli_option *o = spec->options; o->name; o++) {
        char left[96], def[128] = "";
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if (o->type != CLI_TYPE_FLAG) {
            char v[96];
            format_value(o, v, sizeof v);
            if (v[0])
                snprintf(def, sizeof def, " (default: %s)", v);
        }
        printf("  %-28s %s%s\n", left, o->help, def);
        if (o->type == CLI_TYPE_CHOICE)
            printf("  %-28s one of: %s\n", "", o->choices);
    }
    printf("  %-28s %s\n  %-28s %s\n", "-h, --help", "show this help and exit",
           "    --version", "show the version and exit");
    if (spec->more_help)
        spec->more_help();
    printf("\nenvironment:\n"
           "  DAR_CACHE             cache directory, or 'off' (default $XDG_CACHE_HOME/dar or ~/.cache/dar)\n"
           "  OPENBLAS_NUM_THREADS  no effect: OpenBLAS runs one thread inside each of the tool's (--threads)\n");
    printf("\nexit status: 0 ok, 64 usage, 65 bad input data, 66 cannot open input,\n"
           "  70 internal error, 73 cannot create output, 74 I/O error\n");
    if (spec->example)
        printf("\nexample:\n  %s\n", spec->example);
}

/* A list's items are named things (keys, quantities): an empty or repeated
 * one is a typo, refused here rather than in every tool that splits it. */
static void check_list(const struct cli_spec *spec, const struct cli_option *o, const char *v)
{
    struct cli_list l;
    cli_list_split(&l, v);
    for (int i = 0; i < l.count; i++) {
        if (!l.items[i][0])
            cli_usage_error(spec, "option '--%s' has an empty item in '%s'", o->name, v);
        for (int j = 0; j < i; j++)
            if (strcmp(l.items[i], l.items[j]) == 0)
                cli_usage_error(spec, "option '--%s' names '%s' twice", o->name, l.items[i]);
    }
    if (o->min < o->max && l.count < o->min)
        cli_usage_error(spec, "option '--%s' needs at least %g item%s, got %d", o->name, o->min, o->min == 1 ? "" : "s",
                        l.count);
    if (o->min < o->max && l.count > o->max)
        cli_usage_error(spec, "option '--%s' takes at most %g items, got %d", o->name, o->max, l.count);
    cli_list_free(&l);
}

static void set_value(const struct cli_spec *spec, const struct cli_option *o, const char *v)
{
    char *end;
    switch (o->type) {
    case CLI_TYPE_FLAG:
        *(bool *)o->dest = true;
        return;
    case CLI_TYPE_INT: {
        errno = 0;
        long long x = strtoll(v, &end, 10);
        if (errno || end == v || *end)
            cli_usage_error(spec, "option '--%s' needs an integer, got '%s'", o->name, v);
        if (o->min < o->max && (x < o->min || x > o->max))
            cli_usage_error(spec, "option '--%s' must be in %g..%g, got '%s'", o->name, o->min, o->max, v);
        *(int64_t *)o->dest = x;
        return;
    }
    case CLI_TYPE_DOUBLE: {
        errno = 0;
        double x = strtod(v, &end);
        if (errno || end == v || *end || !isfinite(x))
            cli_usage_error(spec, "option '--%s' needs a number, got '%s'", o->name, v);
        if (o->min < o->max && (x < o->min || x > o->max))
            cli_usage_error(spec, "option '--%s' must be in [%g, %g], got '%s'", o->name, o->min, o->max, v);
        *(double *)o->dest = x;
        return;
    }
    case CLI_TYPE_LIST:
        check_list(spec, o, v);
        *(const char **)o->dest = v;
        return;
    case CLI_TYPE_REPEAT: {
        struct cli_repeat *r = o->dest;
        r->values = xrealloc(r->values, sizeof *r->values * (size_t)(r->count + 1));
        r->values[r->count++] = v;
        return;
    }
    case CLI_TYPE_CHOICE:
        if (!choice_ok(o->choices, v))
            cli_usage_error(spec, "option '--%s' must be one of %s, got '%s'", o->name, o->choices, v);
        /* fall through */
    case CLI_TYPE_STRING:
        *(const char **)o->dest = v;
        return;
    }
}

static const struct cli_option *find_flag(const struct cli_spec *spec, const char *name)
{
    for (const struct cli_option *o = spec->options; o->name; o++)
        if (o->type == CLI_TYPE_FLAG && strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

static void check_quiet_progress(const struct cli_spec *spec)
{
    const struct cli_option *quiet = find_flag(spec, "quiet"), *progress = find_flag(spec, "progress");
    if (quiet && progress && *(bool *)quiet->dest && *(bool *)progress->dest)
        cli_usage_error(spec, "--quiet and --progress contradict each other");
}

/* The default of each CLI_KEY_IF_SET row, as format_value writes it, taken
 * before parsing (the destination's initial value is the default). */
enum { MAX_DEFAULTS = 64 };
static char key_if_set_default[MAX_DEFAULTS][64];

int cli_parse(const struct cli_spec *spec, int argc, char **argv)
{
    dar_tool = spec->tool;
    int row = 0;
    for (const struct cli_option *o = spec->options; o->name && row < MAX_DEFAULTS; o++, row++)
        if (o->flags & CLI_KEY_IF_SET)
            format_value(o, key_if_set_default[row], sizeof key_if_set_default[row]);
    int i = 1;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || strcmp(a, "-") == 0)
            break;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(spec);
            exit(0);
        }
        if (strcmp(a, "--version") == 0) {
            printf("%s (dar) %s\n", spec->tool, DAR_VERSION);
            exit(0);
        }
        const struct cli_option *o = NULL;
        const char *inline_value = NULL;
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            for (const struct cli_option *p = spec->options; p->name; p++)
                if (strlen(p->name) == len && memcmp(p->name, name, len) == 0)
                    o = p;
            if (eq)
                inline_value = eq + 1;
        } else {
            for (const struct cli_option *p = spec->options; p->name; p++)
                if (p->short_name && p->short_name == a[1])
                    o = p;
            if (o && a[2])
                inline_value = a + 2;   /* -n16 */
        }
        if (!o)
            cli_usage_error(spec, "unknown option '%s'", a);
        if (o->type == CLI_TYPE_FLAG) {
            if (inline_value)
                cli_usage_error(spec, "option '--%s' takes no value", o->name);
            set_value(spec, o, NULL);
            continue;
        }
        const char *v = inline_value;
        if (!v) {
            if (i + 1 >= argc)
                cli_usage_error(spec, "option '--%s' needs a value", o->name);
            v = argv[++i];
        }
        set_value(spec, o, v);
    }
    check_quiet_progress(spec);
    return i;
}

void cli_no_operand(const struct cli_spec *spec, int argc, char **argv, int first)
{
    if (first < argc)
        cli_usage_error(spec, "unexpected operand '%s'", argv[first]);
}

void cli_operand(const struct cli_spec *spec, int argc, char **argv, int first, const char **dest)
{
    if (first + 1 < argc)
        cli_usage_error(spec, "too many operands");
    if (first < argc)
        *dest = argv[first];
}

char *cli_canonical_args(const struct cli_spec *spec)
{
    size_t cap = 256, len = 0;
    char *out = xmalloc(cap);
    out[0] = 0;
    int row = 0;
    for (const struct cli_option *o = spec->options; o->name; o++, row++) {
        if (!(o->flags & CLI_KEY))
            continue;
        char v[512];
        format_value(o, v, sizeof v);
        if ((o->flags & CLI_KEY_IF_SET) && row < MAX_DEFAULTS && strcmp(v, key_if_set_default[row]) == 0)
            continue;
        size_t need = strlen(o->name) + strlen(v) + 3;
        if (len + need >= cap) {
            cap = 2 * (len + need);
            out = xrealloc(out, cap);
        }
        len += (size_t)sprintf(out + len, "%s=%s\n", o->name, v);
    }
    return out;
}

void cli_list_split(struct cli_list *l, const char *list)
{
    size_t len = strlen(list);
    int count = len ? 1 : 0;
    for (const char *p = list; *p; p++)
        count += *p == ',';
    /* the pointers, then one copy of the text with each comma made a NUL */
    l->items = xmalloc(sizeof *l->items * (size_t)(count + 1) + len + 1);
    char *text = memcpy((char *)(l->items + count + 1), list, len + 1);
    l->count = 0;
    for (char *p = text; count; p++) {
        l->items[l->count++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p = 0;
    }
    l->items[l->count] = NULL;
}

bool cli_list_has(const struct cli_list *l, const char *s, size_t len)
{
    for (int i = 0; i < l->count; i++)
        if (strlen(l->items[i]) == len && memcmp(l->items[i], s, len) == 0)
            return true;
    return false;
}

void cli_list_free(struct cli_list *l)
{
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

int cli_pairs(const struct cli_spec *spec, const char *option, const struct cli_repeat *r, const char ***keys,
              const char ***values)
{
    size_t text = 0;
    for (int i = 0; i < r->count; i++)
        text += strlen(r->values[i]) + 1;
    const char **pointers = xmalloc(sizeof *pointers * 2 * (size_t)(r->count + 1) + text);
    char *copy = (char *)(pointers + 2 * (r->count + 1));
    *keys = pointers;
    *values = pointers + r->count + 1;
    for (int i = 0; i < r->count; i++) {
        const char *v = r->values[i], *eq = strchr(v, '=');
        if (!eq || eq == v)
            cli_usage_error(spec, "option '--%s' needs KEY=VALUE, got '%s'", option, v);
        size_t len = (size_t)(eq - v);
        memcpy(copy, v, len);
        copy[len] = 0;
        for (int k = 0; k < i; k++)
            if (strcmp((*keys)[k], copy) == 0)
                cli_usage_error(spec, "option '--%s' names '%s' twice", option, copy);
        (*keys)[i] = copy;
        (*values)[i] = eq + 1;
        copy += len + 1;
    }
    return r->count;
}
