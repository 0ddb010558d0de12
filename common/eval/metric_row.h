/* metric_row.h - a quantity of the `metrics` tool as one row: its name, the
 * record keys it reads and how it pools over a stream.  Each registry entry
 * carries its rows (struct dar_algorithm's `metrics`, the functions beside
 * them in common/dar/algo_<name>_metrics.c); the tool computes, writes
 * --per-graph and prints --help from them (formats/metric.md).  Here also
 * the checked readers those functions share, so every quantity rejects a
 * bad input with the same words. */
#ifndef DAR_METRIC_ROW_H
#define DAR_METRIC_ROW_H
#include "metrics.h"
#include "stream.h"
#include "tensor.h"

enum metric_edges { EDGES_AUTO, EDGES_ALL, EDGES_TRAIN, EDGES_VAL, EDGES_TEST };

/* How a quantity pools over the records. */
enum metric_pooling {
    /* a (sum, count) over edges, nodes or graphs, added record by record:
       --per-graph writes each graph's own pair */
    METRIC_MEAN,
    /* a score of the confusion matrix of `label` against `pred_label` over
       the scored edges (--edges): --per-graph writes the matrix of blocks
       of each graph's edges, as the score is no sum of the edges' shares */
    METRIC_CONFUSION,
    /* a score of every record's rows together (a ROC curve, a fitted map):
       no graph has a share of its own, --per-graph writes nothing */
    METRIC_POOL,
};
/* "mean", "confusion", "pooled": how --help and the tests name a pooling. */
const char *metric_pooling_name(enum metric_pooling p);

/* The rows a METRIC_POOL quantity keeps of every record: width columns
 * each, with a class (label) or a target (y). */
struct metric_pool {
    double *x;
    uint8_t *label;
    double *y;
    int64_t n, cap;
    int width;                  /* -1 until the first row fixes it */
};
void metric_pool_free(struct metric_pool *p);

/* What a quantity is told besides the record. */
struct metric_context {
    enum metric_edges edges;    /* classification: which edges are scored */
    bool from_fit;              /* the record is from the --fit stream */
};

struct metric_row {
    const char *name;           /* the metric record's `name` */
    const char *keys[10];       /* the record keys it reads: it needs all of them */
    enum metric_pooling pooling;
    /* METRIC_MEAN: adds one record to acc. */
    void (*mean)(struct metric_mean *acc, const struct record *rec);
    /* METRIC_CONFUSION: the score of the pooled matrix. */
    double (*of_confusion)(const int64_t *confusion);
    /* METRIC_POOL: adds one record's rows to p, and the score of p's rows
     * (fit: the --fit stream's rows when needs_fit, else NULL); its count
     * is the number of rows. */
    void (*pool)(struct metric_pool *p, const struct record *rec, const struct metric_context *c);
    double (*pooled)(const struct metric_pool *p, const struct metric_pool *fit);
    bool needs_fit;             /* scored against the rows of --fit FILE's records */
};

/* ---- checked readers (record_die with the key on a bad value) ---- */

/* n or m: 0..INT32_MAX (a negative count would pass record_vector()'s shape
 * check for a tensor of any length, -1 being its wildcard). */
int64_t metric_count(const struct record *rec, const char *key);
/* A node index 0..n-1 (s, t). */
int64_t metric_node_index(const struct record *rec, const char *key, int64_t n);
/* A finite number. */
double metric_finite(const struct record *rec, const char *key);
/* `maxflow`, a max flow's value: a negative one is no max flow and would
 * score as an error of the wrong size, not as bad input. */
double metric_maxflow(const struct record *rec);
void metric_check_finite_f32(const struct record *rec, const char *key, const float *a, int64_t count);
void metric_check_finite_f64(const struct record *rec, const char *key, const double *a, int64_t count);
/* A float32 vector of count finite entries. */
float *metric_f32_vector(const struct record *rec, const char *key, int64_t count);
/* A node vector [n]: float32 and float64 finite, int32 a node index, uint8
 * 0 or 1. */
void *metric_node_vector(const struct record *rec, const char *key, enum dtype dt, int64_t n);
/* The edges of a classification record to score: NULL for all of them. */
uint8_t *metric_edge_mask(const struct record *rec, int64_t m, enum metric_edges edges);

#endif
