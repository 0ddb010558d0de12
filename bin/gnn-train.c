/* gnn-train - GCN, GraphSAGE and C-SAGE on the line graph of vessel graphs (GNN rows of Table 3). */
#include "cache.h"
#include "cli.h"
#include "die.h"
#include "gnn_train.h"
#include "io.h"
#include <stdlib.h>

static const char *model = "sage", *inputs = "length,distance,curveness", *embed = "", *drop = "", *log_path;
static int64_t layers = 0, hidden = 0, epochs = 1500, patience = 300, eval_every = 0, parts = 9, batch_clusters = 32;
static int64_t split_seed = 12, seed = 0, threads = 0;
static double dropout = -1, lr = 3e-3;
static bool no_cache, verbose, force, quiet, progress;
static const char *input = "-", *output = "-";

static const struct cli_option options[] = {
    {"model", 0, CLI_CHOICE, &model, "M", "gcn, sage or c-sage (ClusterGCN batches of SAGE)", CLI_KEY, "gcn|sage|c-sage", 0, 0},
    {"layers", 0, CLI_INT, &layers, "L", "graph convolutions (0: the paper's, gcn 3, sage and c-sage 4)", CLI_KEY, NULL, 0, 16},
    {"hidden", 0, CLI_INT, &hidden, "H", "their width (0: the paper's, gcn 256, sage and c-sage 128)", CLI_KEY, NULL, 0, 4096},
    {"dropout", 0, CLI_DOUBLE, &dropout, "P", "dropout after each ReLU (-1: the paper's, 0.4, c-sage 0.2)", CLI_KEY, NULL, -1, 0.99},
    {"lr", 0, CLI_DOUBLE, &lr, "LR", "Adam step size", CLI_KEY, NULL, 1e-9, 10},
    {"epochs", 0, CLI_INT, &epochs, "N", "at most N epochs", CLI_KEY, NULL, 1, 1e7},
    {"patience", 0, CLI_INT, &patience, "P", "after epoch 70, stop once no validation metric improved for more than P epochs", CLI_KEY, NULL, 0, 1e7},
    {"eval-every", 0, CLI_INT, &eval_every, "K", "evaluate every K epochs after epoch 9 (0: 10, c-sage 5)", CLI_KEY, NULL, 0, 1e6},
    {"parts", 0, CLI_INT, &parts, "P", "c-sage: METIS parts of the line graph", CLI_KEY, NULL, 1, 1 << 20},
    {"batch-clusters", 0, CLI_INT, &batch_clusters, "B", "c-sage: clusters per step", CLI_KEY, NULL, 1, 1 << 20},
    {"inputs", 0, CLI_STRING, &inputs, "KEYS", "comma-separated per-edge inputs to the convolutions (f32[m] or f32[m,d])", CLI_KEY, NULL, 0, 0},
    {"embed", 0, CLI_STRING, &embed, "KEYS", "comma-separated per-edge embeddings to the final linear layer (e.g. edge_embed,n2v)", CLI_KEY, NULL, 0, 0},
    {"drop", 0, CLI_STRING, &drop, "KEYS", "comma-separated keys not to pass through (e.g. edge_embed)", CLI_KEY, NULL, 0, 0},
    {"split-seed", 0, CLI_INT, &split_seed, "S", "seed of the random 80/10/10 split (the benchmark's is 12)", CLI_KEY, NULL, 0, 0},
    {"seed", 0, CLI_INT, &seed, "S", "seed of the weights, dropout and batches: one trial", CLI_KEY, NULL, 0, 0},
    {"log", 0, CLI_STRING, &log_path, "FILE", "write the validation metrics of every evaluation as TSV", 0, NULL, 0, 0},
    {"threads", 'j', CLI_INT, &threads, "N", "worker threads (0: one per CPU this process may use); the output does not depend on it", 0, NULL, 0, 256},
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
};

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    if (quiet && progress)
        cli_usage_error(&spec, "--quiet and --progress contradict each other");
    if (!*inputs)
        cli_usage_error(&spec, "--inputs: at least one key");
    cleanup_install_signals();
    struct gnn_options o = {model, (int)layers, (int)hidden, dropout, lr, epochs, patience, eval_every, (int)parts,
                            (int)batch_clusters, inputs, embed, drop, split_seed, seed, (int)threads, log_path,
                            progress_mode_of(quiet, progress, true)};
    gnn_options_resolve(&o);
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    const char *name = io_input_name(input);
    char *args = cli_canonical_args(&spec);
    struct cache c;
    cache_begin(&c, spec.tool, args, NULL, no_cache, verbose);
    FILE *data = cache_add_input(&c, in, name);
    /* the log is not part of the key: the output's gnn_model carries the curve */
    FILE *replay = cache_replay_begin(out, log_path != NULL);
    FILE *dest = cache_lookup(&c, replay);
    if (dest) {
        gnn_train_run(data, name, dest, &o);
        cache_commit(&c);
    }
    cache_end(&c);
    if (log_path) {
        fflush(replay);
        rewind(replay);
        gnn_write_log(replay, "<output>", log_path);
    }
    cache_replay_end(replay, out);
    free(args);
    io_close_output(out);
    return 0;
}
