/* metrics - the paper's metrics as records, and tables of them over runs. */
#include "cli.h"
#include "die.h"
#include "io.h"
#include "metrics_tool.h"
#include <stdlib.h>
#include <string.h>

static bool force;
static const char *input = "-", *output = "-", *split = "test", *quantities = "",
                  *fit = "", *edges = "auto", *table = "", *rows = "model", *cols = "name",
                  *title = "", *paper = "", *per_graph = "",
                  *percent = "cut_accuracy,accuracy,balanced_accuracy,roc_auc,roc_hard";
static int64_t digits = 3;
static struct cli_repeat labels;

static const struct cli_option options[] = {
    CLI_STRING("split", 0, split, "NAME", "the split the records are from, written in every metric record"),
    CLI_REPEAT("label", 'l', labels, "KEY=VALUE", "a label for every metric record (repeat for more: model=dual, seed=3, ...)"),
    CLI_LIST("quantity", 0, quantities, "LIST", "comma-separated quantities, listed below (default: every one whose inputs the "
     "first record has; with --table: the metrics to keep)", 0, 0),
    CLI_STRING("fit", 0, fit, "FILE", "r2: fit the linear map from max-pooled embeddings to maxflow on FILE's graphs"),
    CLI_STRING("per-graph", 0, per_graph, "FILE", "also write each graph's sum and count of every mean quantity, and the confusion "
     "matrix of each block of its scored edges, to FILE (graph_metric records, for a bootstrap over the graphs and edges)"),
    CLI_CHOICE("edges", 0, edges, "WHICH", "classification: score the edges whose 'split' is train (0), val (1) or test (2), or all; "
     "auto: test when the record has 'split', else all", "auto|all|train|val|test"),
    CLI_CHOICE("table", 0, table, "FORMAT", "read metric records and print a table instead", "md|tsv"),
    CLI_LIST("rows", 0, rows, "KEYS", "table: comma-separated row keys (name, split or a label)", 0, 0),
    CLI_LIST("cols", 0, cols, "KEYS", "table: comma-separated column keys", 0, 0),
    CLI_STRING("title", 0, title, "TEXT", "table: a title line (say the profile)"),
    CLI_STRING("paper", 0, paper, "FILE", "table: TSV of row, column, mean[, std] from the paper, shown beside ours"),
    CLI_LIST("percent", 0, percent, "LIST", "table: metrics shown as percentages", 0, 0),
    CLI_INT("digits", 0, digits, "N", "table: decimals of plain numbers (percentages get N-2)", 0, 12),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "metrics", "[options] < enriched.mp > metrics.mp\n       metrics --table md|tsv [options] < metrics.mp",
    "Score graph records: write one `metric` record {kind, name, value, count,\n"
    "split, labels} per quantity, pooled over the whole input (formats/metric.md\n"
    "defines each quantity exactly).  With --table, read metric records from\n"
    "many runs and print mean +- sample std (n) per row label and column.",
    "dar-step --model dual.mp < test.mp | flow-fix | metrics -l model=dual -l seed=1 > m.mp; "
    "cat run*/m.mp | metrics --table md",
    options,
    metric_quantities_help,
};

/* The names of --quantity, checked against the known quantities. */
static int parse_quantities(int *out)
{
    struct cli_list l;
    cli_list_split(&l, quantities);
    for (int i = 0; i < l.count; i++) {
        int q = metric_quantity_parse(l.items[i]);
        if (q < 0)
            cli_usage_error(&spec, "unknown quantity '%s'", l.items[i]);
        if (i == METRIC_QUANTITIES_MAX)
            cli_usage_error(&spec, "more than %d quantities", METRIC_QUANTITIES_MAX);
        out[i] = q;
    }
    int count = l.count;
    cli_list_free(&l);
    return count;
}

int main(int argc, char **argv)
{
    cli_operand(&spec, argc, argv, cli_parse(&spec, argc, argv), &input);
    struct metrics_options o = {.split = split, .fit_name = fit};
    o.n_quantities = parse_quantities(o.quantities);
    o.n_labels = cli_pairs(&spec, "label", &labels, &o.label_keys, &o.label_values);
    FILE *in = io_open_input(input);
    const char *in_name = io_input_name(input);
    if (table[0]) {
        if (labels.count || fit[0] || per_graph[0] || strcmp(edges, "auto"))
            cli_usage_error(&spec, "--table reads metric records: --label, --fit, --per-graph and --edges do not apply");
        struct metrics_table_options t = {strcmp(table, "md") == 0 ? TABLE_MD : TABLE_TSV, rows, cols,
                                          title[0] ? title : NULL, paper[0] ? io_open_input(paper) : NULL, paper,
                                          percent, (int)digits, quantities};
        FILE *out = io_open_output(output, 0, force);
        metrics_table(in, in_name, out, &t);
        if (t.paper)
            fclose(t.paper);
        io_close_output(out);
    } else {
        o.edges = strcmp(edges, "all") == 0 ? EDGES_ALL : strcmp(edges, "train") == 0 ? EDGES_TRAIN
                : strcmp(edges, "val") == 0 ? EDGES_VAL : strcmp(edges, "test") == 0 ? EDGES_TEST : EDGES_AUTO;
        for (int i = 0; i < o.n_quantities; i++)
            if (metric_quantity_row(o.quantities[i])->needs_fit && !fit[0])
                cli_usage_error(&spec, "quantity '%s' needs --fit FILE (the embeddings the linear map is fitted on)",
                                metric_quantity_name(o.quantities[i]));
        o.fit = fit[0] ? io_open_input(fit) : NULL;
        FILE *out = io_open_output(output, 1, force);
        o.per_graph = per_graph[0] ? io_open_output(per_graph, 1, force) : NULL;
        metrics_run(in, in_name, out, &o);
        if (o.per_graph)
            io_close_output(o.per_graph);
        if (o.fit)
            fclose(o.fit);
        io_close_output(out);
    }
    free(o.label_keys);
    return 0;
}
