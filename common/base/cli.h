/* cli.h - option parsing shared by every tool, from one table per tool.
 *
 * The table drives three things, so they cannot drift apart: parsing
 * (--name VALUE, --name=VALUE, -x VALUE, "--" ends options), the --help text
 * (every option with its default, read from the destination's initial value)
 * and the canonical argument string that goes into cache keys (every option
 * marked CLI_KEY, defaults included, in table order).
 *
 * Every tool also gets --help/-h (usage on stdout, exit 0), --version (exit 0);
 * an unknown option or bad value prints a short usage on stderr, exit 64. */
#ifndef DAR_CLI_H
#define DAR_CLI_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

enum cli_type {
    CLI_TYPE_FLAG, CLI_TYPE_INT, CLI_TYPE_DOUBLE, CLI_TYPE_STRING, CLI_TYPE_CHOICE,
    CLI_TYPE_LIST,          /* "a,b,c": non-empty, distinct items; min..max of them */
    CLI_TYPE_REPEAT,        /* given any number of times: every value kept */
};

enum {
    CLI_KEY = 1,            /* the option changes the output: part of cache keys */
    CLI_KEY_IF_SET = 2,     /* with CLI_KEY: in the key only when not at its default, so
                               an option added later leaves the keys (and the
                               provenance) of every run without it as they were */
};

/* A repeatable option's values, in the order given. */
struct cli_repeat {
    int count;
    const char **values;    /* point into argv */
};

struct cli_option {
    const char *name;       /* long name without "--" */
    char short_name;        /* 0 for none */
    enum cli_type type;
    void *dest;             /* bool*, int64_t*, double*, const char** (string, choice, list), struct cli_repeat* */
    const char *arg;        /* placeholder in help, e.g. "N" */
    const char *help;
    int flags;              /* CLI_KEY */
    const char *choices;    /* CLI_CHOICE: "a|b|c" */
    double min, max;        /* bounds, used when min < max: of the value, or of a list's item count */
};

struct cli_spec {
    const char *tool;       /* "ff-trace" */
    const char *synopsis;   /* "[options] < graphs.mp > traced.mp" */
    const char *summary;    /* one paragraph */
    const char *example;    /* an example pipeline */
    const struct cli_option *options;   /* terminated by {0} */
    void (*more_help)(void);            /* or NULL: prints a section after the options */
};

/* One table row per option, by type; the _KEY forms enter the cache key.
 * The conditional expressions only make the compiler check var's type. */
#define CLI_ROW_(type_, name_, letter, ptr, metavar, help_, flags_) \
    .name = (name_), .short_name = (letter), .type = (type_), .dest = (ptr), .arg = (metavar), \
    .help = (help_), .flags = (flags_)
#define CLI_FLAG_ROW_(name, letter, var, help, flags) \
    {CLI_ROW_(CLI_TYPE_FLAG, name, letter, 1 ? &(var) : (bool *)0, NULL, help, flags)}
#define CLI_INT_ROW_(name, letter, var, metavar, help, min_, max_, flags) \
    {CLI_ROW_(CLI_TYPE_INT, name, letter, 1 ? &(var) : (int64_t *)0, metavar, help, flags), .min = (min_), .max = (max_)}
#define CLI_DOUBLE_ROW_(name, letter, var, metavar, help, min_, max_, flags) \
    {CLI_ROW_(CLI_TYPE_DOUBLE, name, letter, 1 ? &(var) : (double *)0, metavar, help, flags), .min = (min_), .max = (max_)}
#define CLI_STRING_ROW_(type, name, letter, var, metavar, help, flags) \
    {CLI_ROW_(type, name, letter, 1 ? &(var) : (const char **)0, metavar, help, flags)}

#define CLI_FLAG(name, letter, var, help)     CLI_FLAG_ROW_(name, letter, var, help, 0)
#define CLI_FLAG_KEY(name, letter, var, help) CLI_FLAG_ROW_(name, letter, var, help, CLI_KEY)
#define CLI_INT(name, letter, var, metavar, help, min, max) \
    CLI_INT_ROW_(name, letter, var, metavar, help, min, max, 0)
#define CLI_INT_KEY(name, letter, var, metavar, help, min, max) \
    CLI_INT_ROW_(name, letter, var, metavar, help, min, max, CLI_KEY)
#define CLI_DOUBLE(name, letter, var, metavar, help, min, max) \
    CLI_DOUBLE_ROW_(name, letter, var, metavar, help, min, max, 0)
#define CLI_DOUBLE_KEY(name, letter, var, metavar, help, min, max) \
    CLI_DOUBLE_ROW_(name, letter, var, metavar, help, min, max, CLI_KEY)
#define CLI_STRING(name, letter, var, metavar, help) \
    CLI_STRING_ROW_(CLI_TYPE_STRING, name, letter, var, metavar, help, 0)
#define CLI_STRING_KEY(name, letter, var, metavar, help) \
    CLI_STRING_ROW_(CLI_TYPE_STRING, name, letter, var, metavar, help, CLI_KEY)
#define CLI_CHOICE(name, letter, var, metavar, help, choices_) \
    {CLI_ROW_(CLI_TYPE_CHOICE, name, letter, 1 ? &(var) : (const char **)0, metavar, help, 0), .choices = (choices_)}
#define CLI_CHOICE_KEY_IF_SET(name, letter, var, metavar, help, choices_) \
    {CLI_ROW_(CLI_TYPE_CHOICE, name, letter, 1 ? &(var) : (const char **)0, metavar, help, CLI_KEY | CLI_KEY_IF_SET), \
     .choices = (choices_)}
#define CLI_FLAG_KEY_IF_SET(name, letter, var, help) CLI_FLAG_ROW_(name, letter, var, help, CLI_KEY | CLI_KEY_IF_SET)
#define CLI_STRING_KEY_IF_SET(name, letter, var, metavar, help) \
    CLI_STRING_ROW_(CLI_TYPE_STRING, name, letter, var, metavar, help, CLI_KEY | CLI_KEY_IF_SET)
#define CLI_INT_KEY_IF_SET(name, letter, var, metavar, help, min_, max_) \
    CLI_INT_ROW_(name, letter, var, metavar, help, min_, max_, CLI_KEY | CLI_KEY_IF_SET)
#define CLI_DOUBLE_KEY_IF_SET(name, letter, var, metavar, help, min_, max_) \
    CLI_DOUBLE_ROW_(name, letter, var, metavar, help, min_, max_, CLI_KEY | CLI_KEY_IF_SET)
#define CLI_CHOICE_KEY(name, letter, var, metavar, help, choices_) \
    {CLI_ROW_(CLI_TYPE_CHOICE, name, letter, 1 ? &(var) : (const char **)0, metavar, help, CLI_KEY), .choices = (choices_)}
/* The value stays the text given ("" is no item), so cache keys read it as
 * written; cli_list_split gives the items.  min..max items when min < max. */
#define CLI_LIST(name, letter, var, metavar, help, min_items, max_items) \
    {CLI_ROW_(CLI_TYPE_LIST, name, letter, 1 ? &(var) : (const char **)0, metavar, help, 0), \
     .min = (min_items), .max = (max_items)}
#define CLI_LIST_KEY(name, letter, var, metavar, help, min_items, max_items) \
    {CLI_ROW_(CLI_TYPE_LIST, name, letter, 1 ? &(var) : (const char **)0, metavar, help, CLI_KEY), \
     .min = (min_items), .max = (max_items)}
#define CLI_REPEAT(name, letter, var, metavar, help) \
    {CLI_ROW_(CLI_TYPE_REPEAT, name, letter, 1 ? &(var) : (struct cli_repeat *)0, metavar, help, 0)}

/* Option rows most tools share, spelled once (dest is a variable). */
#define CLI_INPUT(dest)    CLI_STRING("input", 'i', dest, "FILE", "read FILE instead of stdin")
#define CLI_OUTPUT(dest)   CLI_STRING("output", 'o', dest, "FILE", "write FILE instead of stdout")
#define CLI_FORCE(dest)    CLI_FLAG("force", 'f', dest, "write msgpack even to a terminal")
#define CLI_NO_CACHE(dest) CLI_FLAG("no-cache", 0, dest, "neither read nor write the cache")
#define CLI_VERBOSE(dest)  CLI_FLAG("verbose", 'v', dest, "say cache hit or miss on stderr")
#define CLI_PROGRESS(dest) CLI_FLAG("progress", 0, dest, "show progress even when stderr is not a terminal")
#define CLI_QUIET(dest)    CLI_FLAG("quiet", 'q', dest, "no progress line")
/* Not a key: every tool's output is the same bits at any thread count. */
#define CLI_THREADS(dest)  CLI_INT("threads", 'j', dest, "N", \
                                   "threads (0: one per CPU this process may use); the output does not depend on it", 0, 1024)

/* Parse argv; sets dar_tool.  Returns the index of the first operand.  A
 * tool with both --quiet and --progress refuses them together. */
int cli_parse(const struct cli_spec *spec, int argc, char **argv);
/* After cli_parse: a usage error unless argv has no operand from first on. */
void cli_no_operand(const struct cli_spec *spec, int argc, char **argv, int first);
/* After cli_parse: the one optional operand (a FILE in place of -i), if
 * given, into *dest; a second operand is a usage error. */
void cli_operand(const struct cli_spec *spec, int argc, char **argv, int first, const char **dest);
/* Canonical "name=value\n" lines of every CLI_KEY option (malloc'ed). */
char *cli_canonical_args(const struct cli_spec *spec);
/* Usage error: "tool: message" + "try 'tool --help'" on stderr, exit 64. */
__attribute__((noreturn, format(printf, 2, 3)))
void cli_usage_error(const struct cli_spec *spec, const char *fmt, ...);

/* A CLI_LIST value's items: list "a,b" gives count 2 and items "a", "b"
 * (one allocation, freed by cli_list_free); "" gives none. */
struct cli_list {
    int count;
    char **items;
};
void cli_list_split(struct cli_list *l, const char *list);
/* Is the len bytes at s one of the items? */
bool cli_list_has(const struct cli_list *l, const char *s, size_t len);
void cli_list_free(struct cli_list *l);

/* A CLI_REPEAT option of KEY=VALUE values: count pairs into keys[] and
 * values[] (one allocation: free(*keys) releases both).  A value without
 * '=', an empty key or a key given twice is a usage error. */
int cli_pairs(const struct cli_spec *spec, const char *option, const struct cli_repeat *r, const char ***keys,
              const char ***values);

#endif
