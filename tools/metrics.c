/* metrics.c - the `metrics` filter: graph records -> one metric record per
 * quantity (formats/metric.md), each computed over the whole stream.  The
 * quantities are the registry entries' metric rows (metric_row.h): this
 * file selects them, runs them record by record, pools them by their kind
 * and writes them.  The table mode is metrics_table.c. */
#include "metrics_tool.h"
#include "registry.h"
#include "die.h"
#include "stream.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The registry's rows, flattened once: the entry and row of each quantity. */
static struct {
    int count;
    const struct dar_algorithm *entry[METRIC_QUANTITIES_MAX];
    const struct metric_row *row[METRIC_QUANTITIES_MAX];
} quantities;

static void list_quantities(void)
{
    if (quantities.count)
        return;
    for (int i = 0; i < dar_algorithm_count; i++)
        for (const struct metric_row *row = dar_algorithms[i]->metrics; row && row->name; row++) {
            if (quantities.count == METRIC_QUANTITIES_MAX)
                die(EX_SOFTWARE, "more than %d metric rows in the registry", METRIC_QUANTITIES_MAX);
            /* a record names its quantity only: two rows of one name would be one column */
            for (int q = 0; q < quantities.count; q++)
                if (strcmp(quantities.row[q]->name, row->name) == 0)
                    die(EX_SOFTWARE, "metric '%s' is a row of both %s and %s", row->name,
                        quantities.entry[q]->name, dar_algorithms[i]->name);
            quantities.entry[quantities.count] = dar_algorithms[i];
            quantities.row[quantities.count++] = row;
        }
}

int metric_quantity_count(void)
{
    list_quantities();
    return quantities.count;
}

const struct metric_row *metric_quantity_row(int q)
{
    list_quantities();
    return quantities.row[q];
}

const char *metric_quantity_name(int q)
{
    return q >= 0 && q < metric_quantity_count() ? quantities.row[q]->name : "?";
}

int metric_quantity_parse(const char *name)
{
    for (int q = 0; q < metric_quantity_count(); q++)
        if (strcmp(name, quantities.row[q]->name) == 0)
            return q;
    return -1;
}

void metric_quantities_help(void)
{
    list_quantities();
    printf("\nquantities (the registry entries' metric rows, written in this order; how each\n"
           "pools: a mean over edges, nodes or graphs, a score of the confusion matrix,\n"
           "or of every record's rows together; then the keys it reads):\n");
    for (int q = 0; q < quantities.count; q++) {
        const struct metric_row *row = quantities.row[q];
        if (q == 0 || quantities.entry[q] != quantities.entry[q - 1])
            printf("  %s:\n", quantities.entry[q]->name);
        printf("    %-20s %-9s", row->name, metric_pooling_name(row->pooling));
        for (int k = 0; row->keys[k]; k++)
            printf(" %s", row->keys[k]);
        printf("%s\n", row->needs_fit ? " (and --fit FILE)" : "");
    }
}

static const char *missing_key(const struct record *rec, int q)
{
    const struct metric_row *row = quantities.row[q];
    for (int k = 0; row->keys[k]; k++)
        if (!record_has(rec, row->keys[k]))
            return row->keys[k];
    return NULL;
}

static void require_keys(const struct record *rec, int q)
{
    const char *key = missing_key(rec, q);
    if (key)
        record_die(rec, "missing key '%s' (needed by %s)", key, quantities.row[q]->name);
}

/* Each quantity's accumulator, by its kind; the confusion matrix is one for
 * every METRIC_CONFUSION quantity. */
struct accumulators {
    struct metric_mean mean[METRIC_QUANTITIES_MAX];
    struct metric_pool pool[METRIC_QUANTITIES_MAX];
    int64_t *confusion;
};

static void accumulators_init(struct accumulators *acc, bool confusion)
{
    memset(acc, 0, sizeof *acc);
    for (int q = 0; q < METRIC_QUANTITIES_MAX; q++)
        acc->pool[q].width = -1;
    if (confusion)
        acc->confusion = xcalloc((size_t)METRIC_CLASSES * METRIC_CLASSES, sizeof *acc->confusion);
}

static void accumulators_free(struct accumulators *acc)
{
    for (int q = 0; q < METRIC_QUANTITIES_MAX; q++)
        metric_pool_free(&acc->pool[q]);
    free(acc->confusion);
}

/* The METRIC_CONFUSION quantities' matrix: label against pred_label over
 * the scored edges. */
static void add_confusion(int64_t *confusion, const struct record *rec, enum metric_edges edges)
{
    int64_t m = metric_count(rec, "m");
    uint8_t *label = record_vector(rec, "label", DT_U8, m);
    uint8_t *keep = metric_edge_mask(rec, m, edges);
    uint8_t *pred = record_vector(rec, "pred_label", DT_U8, m);
    metric_confusion_add(confusion, label, pred, keep, m);
    free(pred);
    free(keep);
    free(label);
}

/* One record into the selected quantities, in the registry's order. */
static void accumulate(struct accumulators *acc, const bool *sel, const struct record *rec,
                       const struct metrics_options *o)
{
    struct metric_context ctx = {.edges = o->edges};
    bool confusion = false;
    for (int q = 0; q < quantities.count; q++) {
        const struct metric_row *row = quantities.row[q];
        if (!sel[q])
            continue;
        switch (row->pooling) {
        case METRIC_MEAN:
            row->mean(&acc->mean[q], rec);
            break;
        case METRIC_CONFUSION:
            if (!confusion)
                add_confusion(acc->confusion, rec, o->edges);
            confusion = true;
            break;
        case METRIC_POOL:
            row->pool(&acc->pool[q], rec, &ctx);
            break;
        }
    }
}

static void check_kind(const struct record *rec, const char *want)
{
    char kind[32];
    if (!record_has(rec, "kind"))
        record_die(rec, "missing key 'kind'");
    record_str(rec, "kind", kind, sizeof kind);
    if (strcmp(kind, want) != 0)
        record_die(rec, "a '%s' record, expected '%s'", kind, want);
}

static void write_metric(struct writer *w, const struct metrics_options *o, const char *name,
                         double value, int64_t count)
{
    mp_map(w, 6);
    mp_key(w, "kind");   mp_str(w, "metric");
    mp_key(w, "name");   mp_str(w, name);
    mp_key(w, "value");  mp_double(w, value);
    mp_key(w, "count");  mp_int(w, count);
    mp_key(w, "split");  mp_str(w, o->split);
    mp_key(w, "labels");
    mp_map(w, (uint32_t)o->n_labels);
    for (int i = 0; i < o->n_labels; i++) {
        mp_key(w, o->label_keys[i]);
        mp_str(w, o->label_values[i]);
    }
}

/* The rows of the --fit stream, for every quantity scored against them
 * (when it is given, whether they are selected or not, so a bad --fit
 * stream is an error either way). */
static void read_fit(const struct metrics_options *o, struct accumulators *fit)
{
    struct reader rd;
    struct record rec;
    struct metric_context ctx = {.edges = o->edges, .from_fit = true};
    long records = 0;
    reader_init(&rd, o->fit, o->fit_name);
    while (reader_next(&rd, &rec)) {
        check_kind(&rec, "graph");
        for (int q = 0; q < quantities.count; q++)
            if (quantities.row[q]->needs_fit) {
                require_keys(&rec, q);
                quantities.row[q]->pool(&fit->pool[q], &rec, &ctx);
            }
        records++;
    }
    reader_free(&rd);
    if (!records)
        die(EX_DATAERR, "%s: no graph records to fit the linear map on", o->fit_name);
}

/* --per-graph: a record's own (sum, count) of every quantity that is a mean
 * over edges, nodes or graphs, so a bootstrap over the test graphs can pool
 * any resample of them (formats/metric.md).  The record is accumulated a
 * second time, into its own accumulators, so the pooled sums keep their
 * order and the metric records their bytes. */
static void write_per_graph(struct writer *w, const struct metrics_options *o, const int *order, int n_order,
                            const struct record *rec, long index)
{
    struct accumulators one;
    bool sel[METRIC_QUANTITIES_MAX] = {false};
    accumulators_init(&one, false);
    for (int i = 0; i < n_order; i++)
        sel[order[i]] = quantities.row[order[i]]->pooling == METRIC_MEAN;
    accumulate(&one, sel, rec, o);
    for (int i = 0; i < n_order; i++) {
        int q = order[i];
        if (!sel[q])
            continue;
        const struct metric_mean *mean = &one.mean[q];
        mp_map(w, 8);
        mp_key(w, "kind");   mp_str(w, "graph_metric");
        mp_key(w, "name");   mp_str(w, quantities.row[q]->name);
        mp_key(w, "graph");  mp_int(w, index);
        mp_key(w, "sum");    mp_double(w, mean->sum);
        mp_key(w, "count");  mp_int(w, mean->count);
        mp_key(w, "value");  mp_double(w, metric_mean_value(mean));
        mp_key(w, "split");  mp_str(w, o->split);
        mp_key(w, "labels");
        mp_map(w, (uint32_t)o->n_labels);
        for (int k = 0; k < o->n_labels; k++) {
            mp_key(w, o->label_keys[k]);
            mp_str(w, o->label_values[k]);
        }
    }
    accumulators_free(&one);
}

/* The blocks a record's scored edges are cut into for --per-graph: enough
 * for a percentile interval, few enough that a resample is cheap whatever the
 * graph's size (a vessel graph has millions of edges, one record). */
enum { CONFUSION_BLOCKS = 100 };

/* --per-graph, classification: the balanced accuracy and the ROC of hard
 * predictions are no sums of edges' shares, but functions of the confusion
 * matrix, which is one.  So a record's scored edges, in edge order, are cut
 * into CONFUSION_BLOCKS contiguous blocks (fewer when there are fewer edges),
 * and each block's confusion matrix is written as one `confusion` record:
 * a resample of blocks pools to the matrix of those edges (formats/metric.md).
 * Contiguous, so that edges near each other in the record stay together. */
static void write_confusion_blocks(struct writer *w, const struct metrics_options *o,
                                   const struct record *rec, long index)
{
    int64_t m = metric_count(rec, "m");
    uint8_t *label = record_vector(rec, "label", DT_U8, m);
    uint8_t *pred = record_vector(rec, "pred_label", DT_U8, m);
    uint8_t *keep = metric_edge_mask(rec, m, o->edges);
    int64_t scored = 0;
    for (int64_t e = 0; e < m; e++)
        scored += !keep || keep[e];
    int64_t blocks = scored < CONFUSION_BLOCKS ? scored : CONFUSION_BLOCKS;
    int64_t *confusion = xcalloc((size_t)METRIC_CLASSES * METRIC_CLASSES, sizeof *confusion);
    int64_t e = 0, k = 0;
    for (int64_t b = 0; b < blocks; b++) {
        int64_t end = (b + 1) * scored / blocks, in_block = 0;
        for (; k < end; e++)
            if (!keep || keep[e]) {
                confusion[(int)label[e] * METRIC_CLASSES + pred[e]]++;
                in_block++;
                k++;
            }
        uint32_t cells = 0;
        for (int c = 0; c < METRIC_CLASSES * METRIC_CLASSES; c++)
            cells += confusion[c] != 0;
        mp_map(w, 8);
        mp_key(w, "kind");      mp_str(w, "graph_metric");
        mp_key(w, "name");      mp_str(w, "confusion");
        mp_key(w, "graph");     mp_int(w, index);
        mp_key(w, "block");     mp_int(w, b);
        mp_key(w, "count");     mp_int(w, in_block);
        mp_key(w, "confusion");
        mp_array(w, cells);
        for (int c = 0; c < METRIC_CLASSES * METRIC_CLASSES; c++)
            if (confusion[c]) {
                mp_array(w, 3);
                mp_int(w, c / METRIC_CLASSES);
                mp_int(w, c % METRIC_CLASSES);
                mp_int(w, confusion[c]);
                confusion[c] = 0;
            }
        mp_key(w, "split");     mp_str(w, o->split);
        mp_key(w, "labels");
        mp_map(w, (uint32_t)o->n_labels);
        for (int i = 0; i < o->n_labels; i++) {
            mp_key(w, o->label_keys[i]);
            mp_str(w, o->label_values[i]);
        }
    }
    free(confusion);
    free(keep);
    free(pred);
    free(label);
}

void metrics_run(FILE *in, const char *in_name, FILE *out, const struct metrics_options *o)
{
    struct reader rd;
    struct record rec;
    struct writer w, per_graph;
    struct accumulators acc, fit;
    list_quantities();
    accumulators_init(&acc, true);
    accumulators_init(&fit, false);
    if (o->fit) {
        read_fit(o, &fit);
        for (int q = 0; q < quantities.count; q++)
            acc.pool[q].width = fit.pool[q].width;
    }
    bool sel[METRIC_QUANTITIES_MAX] = {false}, confusion = false;
    int order[METRIC_QUANTITIES_MAX], n_order = 0;
    for (int i = 0; i < o->n_quantities; i++) {
        sel[o->quantities[i]] = true;
        order[n_order++] = o->quantities[i];
    }
    reader_init(&rd, in, in_name);
    writer_init(&w, out);
    if (o->per_graph)
        writer_init(&per_graph, o->per_graph);
    long records = 0;
    while (reader_next(&rd, &rec)) {
        check_kind(&rec, "graph");
        if (records == 0 && n_order == 0) {
            for (int q = 0; q < quantities.count; q++)
                if (!missing_key(&rec, q) && (!quantities.row[q]->needs_fit || o->fit)) {
                    sel[q] = true;
                    order[n_order++] = q;
                }
            if (n_order == 0)
                record_die(&rec, "has the inputs of no metric (see 'metrics --help' for what each needs)");
        }
        if (records == 0)
            for (int i = 0; i < n_order; i++)
                confusion |= quantities.row[order[i]]->pooling == METRIC_CONFUSION;
        for (int i = 0; i < n_order; i++)
            require_keys(&rec, order[i]);
        accumulate(&acc, sel, &rec, o);
        if (o->per_graph) {
            write_per_graph(&per_graph, o, order, n_order, &rec, records);
            if (confusion)
                write_confusion_blocks(&per_graph, o, &rec, records);
        }
        records++;
    }
    reader_free(&rd);
    if (records == 0)
        die(EX_DATAERR, "no graph records in the input");

    for (int i = 0; i < n_order; i++) {
        int q = order[i];
        const struct metric_row *row = quantities.row[q];
        double value = NAN;
        int64_t count = 0;
        switch (row->pooling) {
        case METRIC_MEAN:
            value = metric_mean_value(&acc.mean[q]);
            count = acc.mean[q].count;
            break;
        case METRIC_CONFUSION:
            value = row->of_confusion(acc.confusion);
            for (int k = 0; k < METRIC_CLASSES * METRIC_CLASSES; k++)
                count += acc.confusion[k];
            break;
        case METRIC_POOL:
            value = row->pooled(&acc.pool[q], row->needs_fit ? &fit.pool[q] : NULL);
            count = acc.pool[q].n;
            break;
        }
        write_metric(&w, o, row->name, value, count);
    }
    accumulators_free(&acc);
    accumulators_free(&fit);
}
