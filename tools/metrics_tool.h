/* metrics_tool.h - the `metrics` tool's two modes: graph records -> `metric`
 * records (metrics.c), and metric records -> a table (metrics_table.c).
 * The metrics themselves are common/eval/metrics.h. */
#ifndef DAR_METRICS_TOOL_H
#define DAR_METRICS_TOOL_H
#include <stdio.h>

/* The quantities, in the order they are written when none is selected. */
enum metric_quantity {
    Q_MAE_FLOW, Q_MAE_HINT_FLOW, Q_CUT_ACCURACY, Q_MAXFLOW_ERROR,
    Q_CONSERVATION_BEFORE, Q_CONSERVATION_AFTER, Q_FIXED_VALUE_RATIO,
    Q_ACCURACY, Q_BALANCED_ACCURACY, Q_ROC_AUC, Q_ROC_HARD, Q_R2,
    /* shortest paths (after the others: a max-flow record has none of
       their inputs, so its metrics come out as before) */
    Q_POINTER_ACCURACY, Q_MAE_D, Q_FEASIBLE_EDGES, Q_PATH_OPTIMAL, Q_PATH_GAP,
    Q_MATCH_F1, Q_MATCH_RATIO, Q_COVER_VALID_BEFORE, Q_COVER_RATIO, Q_CERTIFIED,
    /* vertex cover (cover-fix's keys) */
    Q_COVER_WEIGHT_RATIO, Q_COVER_OPT_RATIO, Q_OPT_UNPROVEN, Q_PACKING_EXCESS, Q_CERTIFIED_GAP, Q_UNCERTIFIED,
    Q_COUNT
};
const char *metric_quantity_name(enum metric_quantity q);
/* -1 if name is not a quantity. */
int metric_quantity_parse(const char *name);

enum metric_edges { EDGES_AUTO, EDGES_ALL, EDGES_TRAIN, EDGES_VAL, EDGES_TEST };

struct metrics_options {
    int n_quantities;                  /* 0: every quantity whose inputs the first record has */
    enum metric_quantity quantities[Q_COUNT];
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
