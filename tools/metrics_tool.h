/* metrics_tool.h - the `metrics` tool's two modes: graph records -> `metric`
 * records (metrics.c), and metric records -> a table (metrics_table.c).
 * The quantities are the registry entries' metric rows (common/eval/metric_row.h),
 * the metrics themselves common/eval/metrics.h. */
#ifndef DAR_METRICS_TOOL_H
#define DAR_METRICS_TOOL_H
#include "metric_row.h"
#include <stdio.h>

/* The quantities: every registry entry's metric rows (struct
 * dar_algorithm's `metrics`), entry after entry in the registry's order,
 * which is the order they are written in when none is selected.  q is an
 * index into them. */
enum { METRIC_QUANTITIES_MAX = 64 };
int metric_quantity_count(void);
const struct metric_row *metric_quantity_row(int q);
const char *metric_quantity_name(int q);
/* -1 if name is not a quantity. */
int metric_quantity_parse(const char *name);
/* metrics --help's section on the quantities (cli_spec.more_help): each
 * entry's rows, with how they pool and the keys they read. */
void metric_quantities_help(void);

struct metrics_options {
    int n_quantities;                  /* 0: every quantity whose inputs the first record has */
    int quantities[METRIC_QUANTITIES_MAX];
    const char *split;                 /* the `split` field written */
    int n_labels;
    const char **label_keys, **label_values;
    enum metric_edges edges;           /* classification: which edges are scored */
    FILE *fit;                         /* r2: the stream the linear map is fitted on, or NULL */
    const char *fit_name;
    FILE *per_graph;                   /* or NULL: one graph_metric record per graph and quantity,
                                          and per block of edges for the confusion matrix */
};

/* Graph records from in -> one metric record per quantity on out. */
void metrics_run(FILE *in, const char *in_name, FILE *out, const struct metrics_options *o);

enum metric_table_format { TABLE_MD, TABLE_TSV };
struct metrics_table_options {
    enum metric_table_format format;
    const char *rows, *cols;           /* comma-separated keys: name, split or a label */
    const char *title;                 /* or NULL */
    FILE *paper;                       /* or NULL: TSV row, column, mean[, std] */
    const char *paper_name;
    const char *percent;               /* comma-separated names shown as percentages */
    int digits;                        /* decimals of plain numbers */
    const char *only;                  /* comma-separated metric names to keep, or NULL: all */
};

/* Metric records from in -> a table on out (text). */
void metrics_table(FILE *in, const char *in_name, FILE *out, const struct metrics_table_options *o);

#endif
