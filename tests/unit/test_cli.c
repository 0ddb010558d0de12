/* Unit tests of the option parser: values, canonical cache arguments, lists,
 * repeated options, operands and the usage errors (which exit 64, so each
 * runs in a forked child whose exit status and stderr are checked). */
#include "check.h"
#include "cli.h"
#include "die.h"
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int64_t count = 3;
static double density = 0.75;
static bool flag, quiet, progress;
static const char *name = "a", *keys = "x,y";
static struct cli_repeat labels;

static const struct cli_option options[] = {
    CLI_INT_KEY("count", 'c', count, "N", "how many", 1, 100),
    CLI_DOUBLE_KEY("density", 0, density, "P", "density", 0, 1),
    CLI_FLAG("flag", 0, flag, "a flag"),
    CLI_CHOICE_KEY("name", 'n', name, "X", "a choice", "a|bb"),
    CLI_LIST_KEY("keys", 0, keys, "KEYS", "comma-separated keys", 1, 3),
    CLI_REPEAT("label", 'l', labels, "K=V", "a label (repeat for more)"),
    CLI_QUIET(quiet),
    CLI_PROGRESS(progress),
    {0},
};

static const struct cli_spec spec = {"test", "[options]", "summary", "example", options, NULL};

/* cli_parse on argv in a child: its exit status, and stderr's first line. */
static int parse_in_child(char **argv, char *err, size_t errlen)
{
    int errpipe[2];
    if (pipe(errpipe))
        abort();
    int argc = 0;
    while (argv[argc])
        argc++;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(errpipe[1], 2);
        close(errpipe[0]);
        int first = cli_parse(&spec, argc, argv);
        cli_no_operand(&spec, argc, argv, first);
        _exit(0);
    }
    close(errpipe[1]);
    ssize_t got = read(errpipe[0], err, errlen - 1);
    err[got > 0 ? got : 0] = 0;
    err[strcspn(err, "\n")] = 0;
    close(errpipe[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_values(void)
{
    char *argv[] = {"test", "-c7", "--density=0.05", "--flag", "-n", "bb", "--keys", "b,a", "-lm=d", "--label", "s=1",
                    "--", "-x", NULL};
    int first = cli_parse(&spec, 13, argv);
    CHECK(count == 7 && density == 0.05 && flag && strcmp(name, "bb") == 0 && first == 12,
          "options parsed, '--' ends them (first operand %d)", first);
    CHECK(strcmp(keys, "b,a") == 0, "a list keeps the text given");
    CHECK(labels.count == 2 && strcmp(labels.values[0], "m=d") == 0 && strcmp(labels.values[1], "s=1") == 0,
          "a repeated option keeps every value in order");
    char *canon = cli_canonical_args(&spec);
    CHECK(strcmp(canon, "count=7\ndensity=0.05\nname=bb\nkeys=b,a\n") == 0,
          "canonical arguments, defaults included, in table order");
    free(canon);
    const char *input = "-";
    cli_operand(&spec, 12, argv, 12, &input);
    CHECK(strcmp(input, "-") == 0, "no operand: the value stays");
    cli_operand(&spec, 13, argv, first, &input);
    CHECK(strcmp(input, "-x") == 0, "the one operand");
}

static void test_lists(void)
{
    struct cli_list l;
    cli_list_split(&l, "length,distance,n2v");
    CHECK(l.count == 3 && strcmp(l.items[0], "length") == 0 && strcmp(l.items[2], "n2v") == 0 && !l.items[3],
          "three items, NULL after the last");
    CHECK(cli_list_has(&l, "distance!", 8) && !cli_list_has(&l, "dist", 4), "membership by length and bytes");
    cli_list_free(&l);
    cli_list_split(&l, "");
    CHECK(l.count == 0 && !l.items[0], "the empty list has no item");
    cli_list_free(&l);
}

static void test_usage_errors(void)
{
    static const struct {
        char *argv[6];
        const char *message;
    } cases[] = {
        {{"test", "--keys", "a,,b", NULL}, "test: option '--keys' has an empty item in 'a,,b'"},
        {{"test", "--keys", "a,b,a", NULL}, "test: option '--keys' names 'a' twice"},
        {{"test", "--keys", "a,b,c,d", NULL}, "test: option '--keys' takes at most 3 items, got 4"},
        {{"test", "--keys", "", NULL}, "test: option '--keys' needs at least 1 item, got 0"},
        {{"test", "--quiet", "--progress", NULL}, "test: --quiet and --progress contradict each other"},
        {{"test", "-q", "x", NULL}, "test: unexpected operand 'x'"},
        {{"test", "--count", "0", NULL}, "test: option '--count' must be in 1..100, got '0'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512];
        int status = parse_in_child((char **)cases[i].argv, err, sizeof err);
        CHECK(status == EX_USAGE && strcmp(err, cases[i].message) == 0, "usage error %zu: exit %d, '%s'", i, status,
              err);
    }
}

int main(void)
{
    check_file_name = "cli";
    test_usage_errors();
    test_values();
    test_lists();
    return check_done();
}
