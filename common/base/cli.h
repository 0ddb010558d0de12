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

enum cli_type { CLI_FLAG, CLI_INT, CLI_DOUBLE, CLI_STRING, CLI_CHOICE };

enum { CLI_KEY = 1 };      /* the option changes the output: part of cache keys */

struct cli_option {
    const char *name;       /* long name without "--" */
    char short_name;        /* 0 for none */
    enum cli_type type;
    void *dest;             /* bool*, int64_t*, double*, const char** */
    const char *arg;        /* placeholder in help, e.g. "N" */
    const char *help;
    int flags;              /* CLI_KEY */
    const char *choices;    /* CLI_CHOICE: "a|b|c" */
    double min, max;        /* CLI_INT/CLI_DOUBLE bounds, used when min < max */
};

struct cli_spec {
    const char *tool;       /* "ff-trace" */
    const char *synopsis;   /* "[options] < graphs.mp > traced.mp" */
    const char *summary;    /* one paragraph */
    const char *example;    /* an example pipeline */
    const struct cli_option *options;   /* terminated by {0} */
};

/* Option rows most tools share, spelled once (dest is a variable). */
#define CLI_INPUT(dest)    {"input", 'i', CLI_STRING, &(dest), "FILE", "read FILE instead of stdin", 0, NULL, 0, 0}
#define CLI_OUTPUT(dest)   {"output", 'o', CLI_STRING, &(dest), "FILE", "write FILE instead of stdout", 0, NULL, 0, 0}
#define CLI_FORCE(dest)    {"force", 'f', CLI_FLAG, &(dest), NULL, "write msgpack even to a terminal", 0, NULL, 0, 0}
#define CLI_NO_CACHE(dest) {"no-cache", 0, CLI_FLAG, &(dest), NULL, "neither read nor write the cache", 0, NULL, 0, 0}
#define CLI_VERBOSE(dest)  {"verbose", 'v', CLI_FLAG, &(dest), NULL, "say cache hit or miss on stderr", 0, NULL, 0, 0}
#define CLI_PROGRESS(dest) {"progress", 0, CLI_FLAG, &(dest), NULL, "show progress even when stderr is not a terminal", 0, NULL, 0, 0}
#define CLI_QUIET(dest)    {"quiet", 'q', CLI_FLAG, &(dest), NULL, "no progress line", 0, NULL, 0, 0}

/* Parse argv; sets dar_tool.  Returns the index of the first operand. */
int cli_parse(const struct cli_spec *spec, int argc, char **argv);
/* Canonical "name=value\n" lines of every CLI_KEY option (malloc'ed). */
char *cli_canonical_args(const struct cli_spec *spec);
/* Usage error: "tool: message" + "try 'tool --help'" on stderr, exit 64. */
__attribute__((noreturn, format(printf, 2, 3)))
void cli_usage_error(const struct cli_spec *spec, const char *fmt, ...);

#endif
