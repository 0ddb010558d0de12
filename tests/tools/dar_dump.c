/* dar_dump - a test helper around common/dar/dar.c, for comparing the C model
 * with its PyTorch twin (tests/twin/).
 *
 *   dar_dump --init [--algorithm NAME] --variant V --processor P --agg A --hidden H --seed S [--leak-cut]
 *            [--pointer-head dot|edge] [--layer-norm] [--gate] [--soft-hints] [--phased]
 *       > model.mp: an initialised model record (formats/model.md §5, §7),
 *       the options as dar-fit's (recorded as the keys dar-fit writes);
 *   dar_dump --model model.mp [--teacher all|none|0110...] < batch.mp > grads.mp
 *       reads every traced graph record of stdin as ONE batch and writes one
 *       record {"kind": "gradients", "loss": f64, "losses": {the model's
 *       algorithm's loss names (max-flow: "mask", "pi", "flow_hint",
 *       "cut_hint", "flow", "cut"): f64}, "grads": {name: f32 tensor shaped
 *       as the parameter}} (§6 order); the records are read as the model's
 *       algorithm reads them.
 *
 * --teacher: "all" forces every step, "none" (default) none, otherwise
 * character i (0 or 1) is step i; steps past the end of the string are not
 * forced.  Step 0 always reads frame 0. */
#include "cli.h"
#include "dar.h"
#include "die.h"
#include "io.h"
#include "optim.h"
#include "registry.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>

static bool init, leak_cut, layer_norm, gated, soft_hints, triplets, phased;
static const char *algorithm = "max-flow", *variant = "dual", *processor = "pgn", *agg = "max", *model_path = NULL;
static const char *pointer_head = "dot";
static const char *teacher = "none";
static int64_t hidden = 8, seed = 0;

static const struct cli_option options[] = {
    CLI_FLAG("init", 0, init, "write an initialised model record"),
    CLI_CHOICE("algorithm", 0, algorithm, "NAME", "the algorithm the model learns", DAR_ALGORITHM_NAMES),
    CLI_CHOICE("variant", 0, variant, "V", "model variant", "primal|dual|pipeline|no-algo"),
    CLI_CHOICE("processor", 0, processor, "P", "processor", "pgn|mpnn"),
    CLI_CHOICE("agg", 0, agg, "A", "aggregation", "max|mean|sum"),
    CLI_INT("hidden", 0, hidden, "H", "hidden size", 1, 4096),
    CLI_INT("seed", 0, seed, "S", "init seed", 0, 0),
    CLI_FLAG("leak-cut", 0, leak_cut, "feed the true min cut (the authors' code)"),
    CLI_CHOICE("pointer-head", 0, pointer_head, "D", "pointer decoder (dar-fit --pointer-head)", "dot|edge"),
    CLI_FLAG("layer-norm", 0, layer_norm, "layer-normalise the node update (dar-fit --layer-norm)"),
    CLI_FLAG("gate", 0, gated, "gate the node update (dar-fit --gate)"),
    CLI_FLAG("triplets", 0, triplets, "triplet messages (dar-fit --triplets)"),
    CLI_FLAG("soft-hints", 0, soft_hints, "feed predicted hints back as probabilities (dar-fit --soft-hints)"),
    CLI_FLAG("phased", 0, phased, "a model of phased traces (dar-fit on --bfs-layers or --sp-rounds traces)"),
    CLI_STRING("model", 'm', model_path, "FILE", "model record to differentiate"),
    CLI_STRING("teacher", 0, teacher, "TF", "teacher forcing: all, none or one 0/1 per step"),
    {0},
};

static const struct cli_spec spec = {
    "dar_dump", "--init [options] > model.mp | --model FILE [--teacher TF] < batch.mp > grads.mp",
    "Test helper: write an initialised DAR model, or the loss and gradients of\n"
    "one batch (every record of stdin) for comparison with the PyTorch twin.",
    "dar_dump --init --variant dual --hidden 8 --seed 1 > m.mp && dar_dump --model m.mp < batch.mp | mpcat",
    options,
    NULL,
};

static int64_t init_seed;

static void write_provenance(struct writer *w, void *ctx)
{
    mp_key(w, "provenance");
    mp_map(w, 3);
    mp_key(w, "tool");    mp_str(w, "dar_dump");
    mp_key(w, "version"); mp_str(w, DAR_VERSION);
    mp_key(w, "seed");    mp_int(w, init_seed);
}

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    if (init == (model_path != NULL))
        cli_usage_error(&spec, "give exactly one of --init and --model");
    FILE *out = io_open_output("-", 1, 0);
    struct writer w;
    writer_init(&w, out);
    struct dar_model model;

    if (init) {
        struct dar_config c = {0};
        dar_variant_parse(variant, &c.variant);
        dar_processor_parse(processor, &c.processor);
        dar_agg_parse(agg, &c.agg);
        c.hidden = (int)hidden;
        c.leak_dual = leak_cut;
        c.edge_pointer = !strcmp(pointer_head, "edge");
        c.layer_norm = layer_norm;
        c.gated = gated;
        c.triplets = triplets;
        c.soft_hints = soft_hints;
        c.phased = phased;
        c.algorithm = dar_algorithm_find(algorithm);
        init_seed = seed;
        dar_model_init(&model, &c, (uint64_t)seed);
        dar_model_write_begin(&w, &model, NULL, 1);
        write_provenance(&w, NULL);
        dar_model_free(&model);
        io_close_output(out);
        return 0;
    }

    FILE *mf = io_open_input(model_path);
    dar_model_load(&model, mf, model_path, dar_algorithm_of_model);
    fclose(mf);

    struct reader rd;
    struct record rec;
    reader_init(&rd, stdin, "<stdin>");
    int B = 0, room = 0;
    struct dar_graph **graphs = NULL;
    while (reader_next(&rd, &rec)) {
        if (B == room) {
            room = room ? 2 * room : 32;
            graphs = xrealloc(graphs, sizeof *graphs * (size_t)room);
        }
        graphs[B] = xmalloc(sizeof **graphs);
        model.config.algorithm->read_graph(graphs[B], &rec, DAR_NEED_TRAINING);
        B++;
    }
    reader_free(&rd);
    if (B == 0)
        die(EX_DATAERR, "no graph records on stdin");

    int steps = dar_batch_steps(graphs, B);
    uint8_t *tf = xcalloc((size_t)steps + 1, 1);
    if (strcmp(teacher, "all") == 0) {
        memset(tf, 1, (size_t)steps + 1);
    } else if (strcmp(teacher, "none") != 0) {
        for (size_t i = 0; teacher[i]; i++) {
            if (teacher[i] != '0' && teacher[i] != '1')
                cli_usage_error(&spec, "'--teacher' must be all, none or a string of 0 and 1");
            if ((int)i <= steps)
                tf[i] = teacher[i] == '1';
        }
    }

    struct dar_workspace *ws = dar_workspace_new();
    struct dar_losses L;
    params_zero_grad(model.params, model.nparams);
    dar_loss_and_grad(&model, ws, graphs, B, tf, steps + 1, true, &L);

    mp_map(&w, 4);
    mp_key(&w, "kind");   mp_str(&w, "gradients");
    mp_key(&w, "loss");   mp_double(&w, L.total);
    mp_key(&w, "losses");
    const struct dar_algorithm *alg = model.config.algorithm;
    mp_map(&w, (uint32_t)alg->nlosses);
    for (int t = 0; t < alg->nlosses; t++) {
        mp_key(&w, alg->loss_names[t]);
        mp_double(&w, L.term[t]);
    }
    mp_key(&w, "grads");
    dar_params_write(&w, &model, model.grads);
    io_close_output(out);

    dar_workspace_free(ws);
    for (int b = 0; b < B; b++) {
        dar_graph_free(graphs[b]);
        free(graphs[b]);
    }
    free(graphs);
    free(tf);
    dar_model_free(&model);
    return 0;
}
