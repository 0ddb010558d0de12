/* Unit tests of cached_run (cache.h): the key is the one the plain cache
 * calls make from the same spec and inputs, a hit replays the side log from
 * the stored record, and log_after_miss rebuilds it after a miss too. */
#include "check.h"
#include "cache.h"
#include "cli.h"
#include "die.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t count = 3;
static bool no_cache, verbose;
static const struct cli_option options[] = {
    CLI_INT_KEY("count", 'c', count, "N", "how many", 1, 100),
    CLI_NO_CACHE(no_cache),
    CLI_VERBOSE(verbose),
    {0},
};
static const struct cli_spec spec = {"pretend", "[options]", "summary", "example", options, NULL};

static int logs_written;
static char last_log_source[32], last_log_record[64];

static void write_log(FILE *record, const char *record_name, const char *log_path)
{
    logs_written++;
    snprintf(last_log_source, sizeof last_log_source, "%s", record_name);
    size_t n = fread(last_log_record, 1, sizeof last_log_record - 1, record);
    last_log_record[n] = 0;
}

static FILE *input_of(const char *text)
{
    FILE *f = tmpfile();
    fputs(text, f);
    rewind(f);
    return f;
}

/* One run over input text with the given log settings; out's bytes into got.
 * Returns whether it computed (a miss). */
static bool one_run(const char *text, const char *log_path, bool log_after_miss, char *got, size_t cap,
                    char key[33])
{
    FILE *in = input_of(text), *out = tmpfile();
    struct cached_run run = {.log_path = log_path, .write_log = write_log, .log_after_miss = log_after_miss};
    cached_run_begin(&run, &spec, false, false);
    FILE *data = cached_run_input(&run, in, "<input>");
    snprintf(key, 33, "%s", cache_key_hex(&run.cache));
    FILE *dest = cached_run_lookup(&run, out);
    if (dest) {
        char line[64];
        size_t n = fread(line, 1, sizeof line - 1, data);
        line[n] = 0;
        fprintf(dest, "computed from %s", line);
    }
    cached_run_end(&run);
    rewind(out);
    size_t n = fread(got, 1, cap - 1, out);
    got[n] = 0;
    fclose(out);
    fclose(in);
    return dest != NULL;
}

int main(void)
{
    check_file_name = "cached_run";
    char root[] = "/tmp/dar-test-cached-run-XXXXXX";
    if (!mkdtemp(root))
        die(EX_CANTCREAT, "mkdtemp:");
    setenv("DAR_CACHE", root, 1);

    /* the key of the plain calls, for the same description */
    char *args = cli_canonical_args(&spec);
    struct cache c;
    cache_begin(&c, spec.tool, args, NULL, false, false);
    FILE *in = input_of("abc");
    cache_add_input(&c, in, "<x>");
    char plain[33];
    snprintf(plain, sizeof plain, "%s", cache_key_hex(&c));
    cache_end(&c);
    fclose(in);
    free(args);

    char got[128], key[33];
    bool miss = one_run("abc", NULL, false, got, sizeof got, key);
    CHECK(miss && strcmp(got, "computed from abc") == 0, "first run computes: '%s'", got);
    CHECK(strcmp(key, plain) == 0, "the key is the plain calls' key (%s)", key);
    miss = one_run("abc", "log", false, got, sizeof got, key);
    CHECK(!miss && strcmp(got, "computed from abc") == 0, "second run is a hit with the same bytes");
    CHECK(logs_written == 1 && strcmp(last_log_source, "<cache>") == 0 &&
          strcmp(last_log_record, "computed from abc") == 0, "a hit rebuilds the log from the stored record");

    logs_written = 0;
    miss = one_run("xyz", "log", false, got, sizeof got, key);
    CHECK(miss && logs_written == 0 && strcmp(got, "computed from xyz") == 0,
          "a miss leaves the log to the computation");
    miss = one_run("uvw", "log", true, got, sizeof got, key);
    CHECK(miss && logs_written == 1 && strcmp(last_log_source, "<output>") == 0 &&
          strcmp(last_log_record, "computed from uvw") == 0 && strcmp(got, "computed from uvw") == 0,
          "log_after_miss: a miss rebuilds it from the output, which still reaches out");

    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        return 1;
    return check_done();
}
