/* test_algorithm.c - the registry of algorithms (registry.h): every
 * entry's description is consistent, as the processor assumes without
 * checking, its instance rows agree with its generator, and the option
 * tables' list of names is the registry's. */
#include "check.h"
#include "dar.h"
#include "graphgen.h"
#include "metric_row.h"
#include "registry.h"
#include <stdlib.h>
#include <string.h>

static bool layout_decodes(const struct dar_layout *L, int p)
{
    for (int j = 0; j < L->nnets; j++)
        for (int k = 0; k < L->nets[j].ndecoders; k++)
            if (L->nets[j].decoders[k] == p)
                return true;
    return false;
}

/* The row's schedule shape and defaults are usable, and each loss term
 * scores a head some variant decodes against a probe the graph holds, of
 * the head's location (dar_loss.c counts its values by the head's). */
static void test_row_shape(const struct dar_algorithm *alg)
{
    int bad_default = 0;
    for (int v = 0; v < DAR_VARIANTS; v++)
        if (alg->layouts[v].nnets)
            bad_default += alg->defaults[v].hidden < 1 || !(alg->defaults[v].lr > 0) ||
                           alg->defaults[v].weight_decay < 0;
    CHECK(alg->nets_per_step >= 1 && alg->nets_per_step <= DAR_MAX_NETS && bad_default == 0 &&
          (!alg->leakable_dual || alg->layouts[DAR_DUAL].nnets),
          "%s: %d networks a step, defaults for each variant (%d unusable), a leakable dual only with a dual",
          alg->name, alg->nets_per_step, bad_default);
    if (!alg->loss_terms)
        return;
    int bad_term = 0;
    for (int t = 0; t < alg->nlosses; t++) {
        const struct dar_loss_term *term = &alg->loss_terms[t];
        bool decoded = false;
        for (int v = 0; v < DAR_VARIANTS; v++)
            decoded |= term->head >= 0 && term->head < alg->nprobes && layout_decodes(&alg->layouts[v], term->head);
        bad_term += !decoded || term->target < 0 || term->target >= alg->nprobes ||
                    !alg->probes[term->target].key ||
                    alg->probes[term->target].location != alg->probes[term->head].location;
    }
    CHECK(bad_term == 0, "%s: %d loss terms score decoded heads against the graph's probes (%d wrong)", alg->name,
          alg->nlosses, bad_term);
}

/* The probes the processor encodes must say where their values go, those it
 * decodes how; a bound must be an edge input. */
static void test_entry(const struct dar_algorithm *alg)
{
    bool ok = alg->nprobes <= DAR_MAX_PROBES && alg->nlosses <= DAR_MAX_LOSSES && alg->name && alg->summary;
    CHECK(ok, "%s: %d probes, %d losses within the processor's bounds", alg->name, alg->nprobes, alg->nlosses);
    int bad_bound = 0, bad_width = 0;
    for (int p = 0; p < alg->nprobes; p++) {
        const struct dar_probe *probe = &alg->probes[p];
        if (probe->type == DAR_TYPE_BOUNDED_ANTISYMMETRIC) {
            const struct dar_probe *b = probe->bound >= 0 && probe->bound < alg->nprobes ? &alg->probes[probe->bound]
                                                                                            : NULL;
            bad_bound += !b || b->stage != DAR_STAGE_INPUT || b->location != DAR_LOCATION_EDGE ||
                         probe->location != DAR_LOCATION_EDGE;
        }
        bad_width += probe->width < 1 || (probe->type == DAR_TYPE_CATEGORICAL) != (probe->width > 1);
    }
    CHECK(bad_bound == 0 && bad_width == 0, "%s: bounds are edge inputs (%d wrong), widths fit the types (%d wrong)",
          alg->name, bad_bound, bad_width);
    int variants = 0, bad_encoder = 0, bad_decoder = 0;
    for (int v = 0; v < DAR_VARIANTS; v++) {
        const struct dar_layout *layout = &alg->layouts[v];
        variants += layout->nnets > 0;
        for (int j = 0; j < layout->nnets; j++) {
            const struct dar_network *net = &layout->nets[j];
            for (int p = 0; p < alg->nprobes; p++)
                bad_encoder += (net->encodes >> p & 1) && !alg->probes[p].encoder;
            for (int k = 0; k < net->ndecoders; k++) {
                int p = net->decoders[k];
                bad_decoder += p < 0 || p >= alg->nprobes || !alg->probes[p].decoder ||
                               alg->probes[p].location == DAR_LOCATION_GRAPH;
            }
        }
    }
    CHECK(variants > 0 && bad_encoder == 0 && bad_decoder == 0,
          "%s: %d variants; every encoded probe has an encoder (%d not), every decoded one a decoder (%d not)",
          alg->name, variants, bad_encoder, bad_decoder);
    bool ops = alg->read_graph && alg->edge_input && alg->check && alg->batch_scales && alg->run_group &&
               alg->total_loss && alg->trace && alg->predict && alg->random_baseline && alg->validation_score;
    CHECK(ops, "%s: every operation is there", alg->name);
    /* a model of every variant it has lays out and names its algorithm */
    int made = 0;
    for (int v = 0; v < DAR_VARIANTS; v++) {
        if (!alg->layouts[v].nnets)
            continue;
        struct dar_model m;
        struct dar_config c = {.variant = v, .processor = DAR_PGN, .agg = DAR_AGG_MAX, .hidden = 4,
                               .algorithm = alg};
        dar_model_init(&m, &c, 1);
        made += m.config.algorithm == alg && m.nnets == alg->layouts[v].nnets && m.nparams > 0;
        dar_model_free(&m);
    }
    CHECK(made == variants, "%s: a model of each of its %d variants lays out", alg->name, variants);
    /* its metric rows: `metrics` calls the function of a row's pooling
       without looking, and only a pooled score has rows to fit on */
    int rows = 0, bad_row = 0;
    for (const struct metric_row *row = alg->metrics; row && row->name; row++, rows++)
        bad_row += !row->keys[0] || (row->pooling == METRIC_MEAN ? !row->mean
                                     : row->pooling == METRIC_CONFUSION ? !row->of_confusion
                                     : !row->pool || !row->pooled) ||
                   (row->needs_fit && row->pooling != METRIC_POOL);
    CHECK(rows > 0 && bad_row == 0, "%s: %d metric rows, each with keys and its pooling's function (%d not)",
          alg->name, rows, bad_row);
    test_row_shape(alg);
}

/* The generator's records of an entry's instance carry every key its rows
 * list and pass their checks; the bare structure is refused naming the
 * first key and why the entry needs it. */
static void test_instance(const struct dar_algorithm *alg)
{
    static const char *const families[] = {"two-community", "erdos-renyi", "bipartite-sides", "star"};
    CHECK(alg->ninstance_keys >= 1 && alg->generate && alg->generate->finish && alg->generate->keys_help,
          "%s: instance keys and a generator", alg->name);
    struct graphgen_options o = {.nodes = 12, .density = 0.5, .inter_density = 0.05, .seed = 5,
                                 .instance = alg->generate, .instance_name = alg->name};
    char err[256];
    int made = 0, passed = 0;
    for (size_t f = 0; f < sizeof families / sizeof *families; f++) {
        o.family = families[f];
        if (!graphgen_check(&o, err, sizeof err))
            continue;
        for (int k = 0; k < 4; k++) {
            struct graph g;
            if (!graphgen(&o, k, &g, err, sizeof err))
                continue;
            made++;
            passed += graph_check_keys(&g, alg->instance_keys, alg->ninstance_keys, alg->name, err, sizeof err);
            graph_free(&g);
        }
    }
    CHECK(made > 0 && passed == made, "%s: its generated instances pass its key rows (%d of %d)", alg->name, passed,
          made);
    struct graph g = {.n = 3, .m = 1, .s = -1, .t = -1, .src = (int32_t[]){0}, .dst = (int32_t[]){1}};
    char want[128];
    snprintf(want, sizeof want, "'%s' is missing (%s needs %s)", alg->instance_keys[0].key, alg->name,
             alg->instance_keys[0].what);
    bool refused = !graph_check_keys(&g, alg->instance_keys, alg->ninstance_keys, alg->name, err, sizeof err);
    CHECK(refused && strcmp(err, want) == 0, "%s: a graph without its keys: %s", alg->name, err);
    /* a repair (the repair tool's) has the name it is called by, its help,
     * and options the tool can offer: a kind it reads, a default a choice
     * allows, no name twice, none of the tool's own (-i, -o, -f) */
    if (alg->repair) {
        int bad = 0;
        for (int k = 0; k < alg->nrepair_options; k++) {
            const struct dar_repair_option *o = &alg->repair_options[k];
            bad += !o->name || !o->help || !o->arg;
            bad += o->type != CLI_TYPE_STRING && o->type != CLI_TYPE_CHOICE && o->type != CLI_TYPE_DOUBLE;
            bad += o->type == CLI_TYPE_CHOICE && (!o->choices || !o->value.text || !strstr(o->choices, o->value.text));
            bad += o->type == CLI_TYPE_DOUBLE && !(o->min <= o->value.number && o->value.number <= o->max);
            bad += o->name && (strcmp(o->name, "input") == 0 || strcmp(o->name, "output") == 0 ||
                               strcmp(o->name, "force") == 0);
            bad += o->short_name == 'i' || o->short_name == 'o' || o->short_name == 'f';
            for (int j = 0; j < k; j++)
                bad += o->name && alg->repair_options[j].name && strcmp(o->name, alg->repair_options[j].name) == 0;
        }
        CHECK(alg->repair_tool && alg->repair_summary && alg->repair_example &&
              alg->nrepair_options <= DAR_MAX_REPAIR_OPTIONS && bad == 0,
              "%s: its repair %s has its help and %d options the tool can offer (%d wrong)", alg->name,
              alg->repair_tool ? alg->repair_tool : "(no name)", alg->nrepair_options, bad);
    }
}

int main(void)
{
    check_file_name = "algorithm";
    char names[512], choices[512];
    dar_algorithm_names(names, sizeof names);
    snprintf(choices, sizeof choices, "%s", DAR_ALGORITHM_NAMES);
    for (char *c = choices; *c; c++)
        if (*c == '|')
            *c = ',';
    /* "a, b" against "a,b" */
    char compact[512];
    int k = 0;
    for (const char *c = names; *c && k < (int)sizeof compact - 1; c++)
        if (*c != ' ')
            compact[k++] = *c;
    compact[k] = '\0';
    CHECK(strcmp(compact, choices) == 0, "DAR_ALGORITHM_NAMES '%s' is the registry's '%s'", DAR_ALGORITHM_NAMES,
          names);
    CHECK(dar_algorithm_count >= 1 && strcmp(dar_algorithms[0]->name, "max-flow") == 0 &&
          dar_algorithm_find("max-flow") == dar_algorithms[0] && !dar_algorithm_find("no-such"),
          "max-flow is the first entry, the default; an unknown name finds nothing");
    for (int i = 0; i < dar_algorithm_count; i++) {
        test_entry(dar_algorithms[i]);
        test_instance(dar_algorithms[i]);
    }
    /* the repair tool picks its entry by name: no name twice */
    int twice = 0;
    for (int i = 0; i < dar_algorithm_count; i++)
        for (int j = 0; j < i; j++)
            twice += dar_algorithms[i]->repair_tool && dar_algorithms[j]->repair_tool &&
                     strcmp(dar_algorithms[i]->repair_tool, dar_algorithms[j]->repair_tool) == 0;
    CHECK(twice == 0, "every repair has a name of its own (%d twice)", twice);
    return check_done();
}
