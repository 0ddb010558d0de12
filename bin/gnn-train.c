/* gnn-train - GCN, GraphSAGE and C-SAGE on the line graph of vessel graphs (GNN rows of Table 3). */
#include "cache.h"
#include "classify.h"
#include "cli.h"
#include "die.h"
#include "gnn_train.h"
#include "io.h"

static const char *model = "sage", *inputs = "length,distance,curveness", *embed = "", *drop = "", *log_path;
static int64_t layers = 0, hidden = 0, epochs = 1500, patience = 300, eval_every = 0, parts = 9, batch_clusters = 32;
static int64_t split_seed = 12, seed = 0, threads = 0;
static double dropout = -1, lr = 3e-3;
static bool no_cache, verbose, force, quiet, progress;
static const char *input = "-", *output = "-";

static const struct cli_option options[] = {
    CLI_CHOICE_KEY("model", 0, model, "M", "gcn, sage or c-sage (ClusterGCN batches of SAGE)", "gcn|sage|c-sage"),
    CLI_INT_KEY("layers", 0, layers, "L", "graph convolutions (0: the paper's, gcn 3, sage and c-sage 4)", 0, 16),
    CLI_INT_KEY("hidden", 0, hidden, "H", "their width (0: the paper's, gcn 256, sage and c-sage 128)", 0, 4096),
    CLI_DOUBLE_KEY("dropout", 0, dropout, "P", "dropout after each ReLU (-1: the paper's, 0.4, c-sage 0.2)", -1, 0.99),
    CLI_DOUBLE_KEY("lr", 0, lr, "LR", "Adam step size", 1e-9, 10),
    CLI_INT_KEY("epochs", 0, epochs, "N", "at most N epochs", 1, 1e7),
    CLI_INT_KEY("patience", 0, patience, "P", "after epoch 70, stop once no validation metric improved for more than P epochs", 0, 1e7),
    CLI_INT_KEY("eval-every", 0, eval_every, "K", "evaluate every K epochs after epoch 9 (0: 10, c-sage 5)", 0, 1e6),
    CLI_INT_KEY("parts", 0, parts, "P", "c-sage: METIS parts of the line graph", 1, 1 << 20),
    CLI_INT_KEY("batch-clusters", 0, batch_clusters, "B", "c-sage: clusters per step", 1, 1 << 20),
    CLI_LIST_KEY("inputs", 0, inputs, "KEYS", "comma-separated per-edge inputs to the convolutions (f32[m] or f32[m,d])", 1, LC_MAX_INPUTS),
    CLI_LIST_KEY("embed", 0, embed, "KEYS", "comma-separated per-edge embeddings to the final linear layer (e.g. edge_embed,n2v)", 0, LC_MAX_INPUTS),
    CLI_LIST_KEY("drop", 0, drop, "KEYS", "comma-separated keys not to pass through (e.g. edge_embed)", 0, 0),
    CLI_INT_KEY("split-seed", 0, split_seed, "S", "seed of the random 80/10/10 split (the benchmark's is 12)", 0, 0),
    CLI_INT_KEY("seed", 0, seed, "S", "seed of the weights, dropout and batches: one trial", 0, 0),
    CLI_STRING("log", 0, log_path, "FILE", "write the validation metrics of every evaluation as TSV"),
    CLI_THREADS(threads),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_NO_CACHE(no_cache),
    CLI_VERBOSE(verbose),
    CLI_FORCE(force),
    CLI_PROGRESS(progress),
    CLI_QUIET(quiet),
    {0},
};

static const struct cli_spec spec = {
    "gnn-train", "[options] < vessel.mp > classified.mp",
    "Train a graph neural network (GCN, GraphSAGE, or GraphSAGE on ClusterGCN\n"
    "batches of METIS clusters) on the line graph of every vessel graph record\n"
    "(one node per vessel) to classify vessels (capillary, vein, artery), as the\n"
    "brain-vessel benchmark: its random 80/10/10 split, weighted NLL, Adam,\n"
    "early stopping on the validation metrics.  --embed feeds per-edge\n"
    "embeddings to the final linear layer.  Adds split, pred_label, pred_proba\n"
    "and gnn_model (formats/gnn-train.md).  Results are cached by content.",
    "gen-graphs --family vessel --edges 20000 --seed 1 | gnn-train --model sage --epochs 100 | metrics --quantity balanced_accuracy,roc_hard",
    options,
    NULL,
};

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    cleanup_install_signals();
    struct gnn_options o = {model, (int)layers, (int)hidden, dropout, lr, epochs, patience, eval_every, (int)parts,
                            (int)batch_clusters, inputs, embed, drop, split_seed, seed, (int)threads, log_path,
                            progress_mode_of(quiet, progress, true)};
    gnn_options_resolve(&o);
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    const char *name = io_input_name(input);
    /* the log is not part of the key: the output's gnn_model carries the curve */
    struct cached_run run = {.log_path = log_path, .write_log = gnn_write_log, .log_after_miss = true};
    cached_run_begin(&run, &spec, no_cache, verbose);
    FILE *data = cached_run_input(&run, in, name);
    FILE *dest = cached_run_lookup(&run, out);
    if (dest)
        gnn_train_run(data, name, dest, &o);
    cached_run_end(&run);
    io_close_output(out);
    return 0;
}
