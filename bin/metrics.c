/* metrics - the paper's metrics as records, and tables of them over runs. */
#include "cli.h"
#include "die.h"
#include "io.h"
#include "metrics_tool.h"
#include <stdlib.h>
#include <string.h>

static bool force;
static const char *input = "-", *output = "-", *split = "test", *label = "", *quantities = "",
                  *fit = "", *edges = "auto", *table = "", *rows = "model", *cols = "name",
                  *title = "", *paper = "",
                  *percent = "cut_accuracy,accuracy,balanced_accuracy,roc_auc,roc_hard";
static int64_t digits = 3;

static const struct cli_option options[] = {
    {"split", 0, CLI_STRING, &split, "NAME", "the split the records are from, written in every metric record", 0, NULL, 0, 0},
    {"label", 'l', CLI_STRING, &label, "KEY=VALUE", "a label for every metric record (repeat for more: model=dual, seed=3, ...)", 0, NULL, 0, 0},
    {"quantity", 0, CLI_STRING, &quantities, "LIST", "comma-separated quantities (default: every one whose inputs the first record has; with --table: the metrics to keep): "
     "mae_flow mae_hint_flow cut_accuracy maxflow_error conservation_before conservation_after fixed_value_ratio "
     "accuracy balanced_accuracy roc_auc roc_hard r2", 0, NULL, 0, 0},
    {"fit", 0, CLI_STRING, &fit, "FILE", "r2: fit the linear map from max-pooled embeddings to maxflow on FILE's graphs", 0, NULL, 0, 0},
    {"edges", 0, CLI_CHOICE, &edges, "WHICH", "classification: score the edges whose 'split' is train (0), val (1) or test (2), or all; "
     "auto: test when the record has 'split', else all", 0, "auto|all|train|val|test", 0, 0},
    {"table", 0, CLI_CHOICE, &table, "FORMAT", "read metric records and print a table instead", 0, "md|tsv", 0, 0},
    {"rows", 0, CLI_STRING, &rows, "KEYS", "table: comma-separated row keys (name, split or a label)", 0, NULL, 0, 0},
    {"cols", 0, CLI_STRING, &cols, "KEYS", "table: comma-separated column keys", 0, NULL, 0, 0},
    {"title", 0, CLI_STRING, &title, "TEXT", "table: a title line (say the profile)", 0, NULL, 0, 0},
    {"paper", 0, CLI_STRING, &paper, "FILE", "table: TSV of row, column, mean[, std] from the paper, shown beside ours", 0, NULL, 0, 0},
    {"percent", 0, CLI_STRING, &percent, "LIST", "table: metrics shown as percentages", 0, NULL, 0, 0},
    {"digits", 0, CLI_INT, &digits, "N", "table: decimals of plain numbers (percentages get N-2)", 0, NULL, 0, 12},
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
};

/* --label may be given several times; cli_parse keeps only the last, so the
 * labels are collected from argv first, skipping the values of the other
 * options so a value that looks like --label is not taken for one. */
static int collect_labels(int argc, char **argv, const char **keys, const char **values)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--") == 0 || a[0] != '-' || strcmp(a, "-") == 0)
            break;
        if (strcmp(a, "--label") == 0 || strcmp(a, "-l") == 0) {
            if (i + 1 >= argc)
                cli_usage_error(&spec, "option '--label' needs a value");
            v = argv[++i];
        } else if (strncmp(a, "--label=", 8) == 0) {
            v = a + 8;
        } else if (strncmp(a, "-l", 2) == 0) {
            v = a + 2;
        } else {
            for (const struct cli_option *o = options; o->name; o++) {
                bool is_long = a[1] == '-' && strcmp(a + 2, o->name) == 0;
                bool is_short = a[1] != '-' && o->short_name && a[1] == o->short_name && !a[2];
                if ((is_long || is_short) && o->type != CLI_FLAG)
                    i++;
            }
            continue;
        }
        const char *eq = strchr(v, '=');
        if (!eq || eq == v)
            cli_usage_error(&spec, "option '--label' needs KEY=VALUE, got '%s'", v);
        char *key = xstrdup(v);
        key[eq - v] = 0;
        for (int k = 0; k < n; k++)
            if (strcmp(keys[k], key) == 0)
                cli_usage_error(&spec, "label '%s' given twice", key);
        keys[n] = key;
        values[n++] = eq + 1;
    }
    return n;
}

static int parse_quantities(const char *list, enum metric_quantity *out)
{
    int n = 0;
    char *copy = xstrdup(list);
    for (char *save, *q = strtok_r(copy, ",", &save); q; q = strtok_r(NULL, ",", &save)) {
        int k = metric_quantity_parse(q);
        if (k < 0)
            cli_usage_error(&spec, "unknown quantity '%s'", q);
        for (int i = 0; i < n; i++)
            if (out[i] == (enum metric_quantity)k)
                cli_usage_error(&spec, "quantity '%s' given twice", q);
        out[n++] = (enum metric_quantity)k;
    }
    free(copy);
    return n;
}

int main(int argc, char **argv)
{
    const char **keys = xcalloc((size_t)argc + 1, sizeof *keys);
    const char **values = xcalloc((size_t)argc + 1, sizeof *values);
    dar_tool = spec.tool;
    int n_labels = collect_labels(argc, argv, keys, values);
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        input = argv[first++];
    if (first < argc)
        cli_usage_error(&spec, "too many operands");
    FILE *in = io_open_input(input);
    const char *in_name = io_input_name(input);

    if (table[0]) {
        if (n_labels || fit[0] || strcmp(edges, "auto"))
            cli_usage_error(&spec, "--table reads metric records: --label, --fit and --edges do not apply");
        struct metrics_table_options o = {
            strcmp(table, "md") == 0 ? TABLE_MD : TABLE_TSV, rows, cols, title[0] ? title : NULL,
            paper[0] ? io_open_input(paper) : NULL, paper, percent, (int)digits, quantities,
        };
        if (quantities[0]) {   /* validate the names; the table keeps only these */
            enum metric_quantity unused[Q_COUNT];
            parse_quantities(quantities, unused);
        }
        FILE *out = io_open_output(output, 0, force);
        metrics_table(in, in_name, out, &o);
        if (o.paper)
            fclose(o.paper);
        io_close_output(out);
    } else {
        struct metrics_options o = {0};
        o.n_quantities = parse_quantities(quantities, o.quantities);
        o.split = split;
        o.n_labels = n_labels;
        o.label_keys = keys;
        o.label_values = values;
        o.edges = strcmp(edges, "all") == 0 ? EDGES_ALL : strcmp(edges, "train") == 0 ? EDGES_TRAIN
                : strcmp(edges, "val") == 0 ? EDGES_VAL : strcmp(edges, "test") == 0 ? EDGES_TEST : EDGES_AUTO;
        bool wants_r2 = false;
        for (int i = 0; i < o.n_quantities; i++)
            wants_r2 |= o.quantities[i] == Q_R2;
        if (wants_r2 && !fit[0])
            cli_usage_error(&spec, "quantity 'r2' needs --fit FILE (the embeddings the linear map is fitted on)");
        if (fit[0]) {
            o.fit = io_open_input(fit);
            o.fit_name = fit;
        }
        FILE *out = io_open_output(output, 1, force);
        metrics_run(in, in_name, out, &o);
        if (o.fit)
            fclose(o.fit);
        io_close_output(out);
    }
    for (int i = 0; i < n_labels; i++)
        free((char *)keys[i]);
    free(keys);
    free(values);
    return 0;
}
