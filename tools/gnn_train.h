/* gnn_train.h - gnn-train (formats/gnn-train.md): GCN, GraphSAGE and
 * ClusterGCN-SAGE (C-SAGE) on the line graph of a vessel graph record, the
 * GNN rows of the paper's Table 3.
 *
 * Protocol (reference/table3-baselines.md §1, the benchmark's gnn.py and
 * cluster_gcn.py): the random 80/10/10 split of lc-train (bvg.md §3), Adam
 * (torch defaults), the weighted NLL with class weights N / count_c over all
 * labels, one step per epoch (GCN, SAGE) or per batch of clusters (C-SAGE);
 * evaluation on the validation vessels every eval_every epochs once the
 * epoch is past 9 (and at the last epoch), with dropout off on the whole
 * graph; early stop once the epoch is past 70 and no validation metric
 * improved for more than `patience` epochs; the parameters of the
 * evaluation with the best validation balanced accuracy (the first, on
 * ties) make the predictions. */
#ifndef DAR_GNN_TRAIN_H
#define DAR_GNN_TRAIN_H
#include "progress.h"
#include <stdint.h>
#include <stdio.h>

struct gnn_options {
    const char *model;        /* gcn | sage | c-sage */
    int layers, hidden;       /* 0: the model's paper value */
    double dropout;           /* < 0: the model's paper value */
    double lr;
    int64_t epochs, patience, eval_every;   /* eval_every 0: 10 (gcn, sage), 5 (c-sage) */
    int parts, batch_clusters;              /* C-SAGE */
    const char *inputs;       /* comma-separated keys to the convolutions */
    const char *embed;        /* comma-separated keys to the head, or "" */
    const char *drop;         /* keys not passed through, or "" */
    int64_t split_seed, seed;
    int threads;              /* 0: cpus_usable() */
    const char *log;          /* TSV of the evaluations, or NULL */
    enum progress_mode progress;
};

/* Resolve the model-dependent defaults in place (layers, hidden, dropout,
 * eval_every); returns the name that is not a model, or NULL. */
const char *gnn_options_resolve(struct gnn_options *o);

/* Filter: every graph record of in, enriched with split, pred_label,
 * pred_proba and gnn_model, to out. */
void gnn_train_run(FILE *in, const char *in_name, FILE *out, const struct gnn_options *o);

/* The --log TSV (record, epoch, loss, the validation metrics; one row per
 * evaluation) from gnn-train's output stream, whose gnn_model records carry
 * the curve: the same file after a computation and after a cache hit. */
void gnn_write_log(FILE *output, const char *name, const char *log_path);

#endif
