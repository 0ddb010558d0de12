/* mcf_eval - a test helper around min-cost flow's evaluation half
 * (common/dar/algo_min_cost_flow.h), before its registry row exists: the
 * repair op over a stream, as the repair tool runs a row's op, or the
 * metric rows on every record, for tests/320-min-cost-flow-repair.bats.
 *
 *   mcf_eval [--key K] [--potential-key K] < predicted.mp > fixed.mp
 *   mcf_eval --metrics < fixed.mp > scores.mp
 *
 * --metrics writes one record per input record: `graph` (its index) and,
 * for every metric row whose keys the record has, the row's name with
 * [sum, count] of that record alone. */
#include "algo_min_cost_flow.h"
#include "cli.h"
#include "die.h"
#include "io.h"
#include "stream.h"
#include <string.h>

static const char *input = "-", *output = "-";
static const char *key = "pred_flow", *potential_key = "pred_potential";
static bool force, metrics;

static const struct cli_option options[] = {
    CLI_STRING("key", 'k', key, "NAME", "the key holding the predicted flow"),
    CLI_STRING("potential-key", 0, potential_key, "NAME", "the predicted potentials (when the record has them)"),
    CLI_FLAG("metrics", 0, metrics, "the metric rows of each record instead of the repair"),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "mcf_eval", "[options] < records.mp > out.mp",
    "Test helper: min-cost flow's repair op, or its metric rows, on a stream.",
    "mcf_eval < predicted.mp | mcf_eval --metrics",
    options,
    NULL,
};

static void repair_each(struct writer *w, const struct record *rec, void *context)
{
    mcf_repair(w, rec, context);
}

static bool has_keys(const struct record *rec, const struct metric_row *row)
{
    for (int k = 0; row->keys[k]; k++)
        if (!record_has(rec, row->keys[k]))
            return false;
    return true;
}

static void metrics_each(struct writer *w, const struct record *rec, void *context)
{
    uint32_t count = 1;
    for (const struct metric_row *row = mcf_metrics; row->name; row++)
        count += has_keys(rec, row);
    mp_map(w, count);
    mp_key(w, "graph");
    mp_int(w, rec->index);
    for (const struct metric_row *row = mcf_metrics; row->name; row++)
        if (has_keys(rec, row)) {
            struct metric_mean acc = {0};
            row->mean(&acc, rec);
            mp_key(w, row->name);
            mp_array(w, 2);
            mp_double(w, acc.sum);
            mp_int(w, acc.count);
        }
}

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    union dar_repair_value values[MCF_REPAIR_OPTIONS] = {[MCF_REPAIR_KEY].text = key,
                                                         [MCF_REPAIR_POTENTIAL_KEY].text = potential_key};
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct stream_map map = {.each = metrics ? metrics_each : repair_each, .context = values};
    stream_map(in, strcmp(input, "-") ? input : NULL, out, &map);
    io_close_output(out);
    return 0;
}
