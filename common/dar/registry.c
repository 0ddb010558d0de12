/* registry.c - the registry of algorithms (registry.h): one row per
 * entry, in --help order, the first the default.  A new entry adds its row
 * here and nothing else outside its own files (ARCHITECTURE.md §6). */
#include "registry.h"
#include "algo_matching.h"
#include "algo_maxflow.h"
#include "algo_min_cost_flow.h"
#include "algo_shortest_paths.h"
#include "algo_vertex_cover.h"
#include "dar.h"
#include "graph.h"
#include <stdio.h>
#include <string.h>

const struct dar_algorithm *const dar_algorithms[] = {
    &dar_algorithm_maxflow,
    &dar_algorithm_shortest_paths,
    &dar_algorithm_matching,
    &dar_algorithm_vertex_cover,
    &dar_algorithm_min_cost_flow,
};
const int dar_algorithm_count = sizeof dar_algorithms / sizeof *dar_algorithms;

const struct dar_algorithm *dar_algorithm_find(const char *name)
{
    for (int i = 0; i < dar_algorithm_count; i++)
        if (strcmp(dar_algorithms[i]->name, name) == 0)
            return dar_algorithms[i];
    return NULL;
}

const struct dar_algorithm *dar_algorithm_default(void)
{
    return dar_algorithms[0];
}

const char *dar_algorithm_names(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < dar_algorithm_count && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", dar_algorithms[i]->name);
    return buf;
}

static bool has_all(const struct record *rec, const char *const *keys, int count)
{
    for (int k = 0; k < count; k++)
        if (!record_has(rec, keys[k]))
            return false;
    return count > 0;
}

const struct dar_algorithm *dar_algorithm_of_record(const struct record *rec)
{
    for (int i = 0; i < dar_algorithm_count; i++)
        if (has_all(rec, dar_algorithms[i]->trace_keys, dar_algorithms[i]->ntrace_keys))
            return dar_algorithms[i];
    for (int i = 0; i < dar_algorithm_count; i++)
        if (has_all(rec, dar_algorithms[i]->solution_keys, dar_algorithms[i]->nsolution_keys))
            return dar_algorithms[i];
    for (int i = 0; i < dar_algorithm_count; i++)
        if (!graph_missing_key(rec, dar_algorithms[i]->instance_keys, dar_algorithms[i]->ninstance_keys)) {
            if (dar_algorithms[i] != dar_algorithm_default())
                record_die(rec, "carries no %s trace (no '%s'): run ff-trace --algorithm %s on it first",
                           dar_algorithms[i]->name, dar_algorithms[i]->trace_keys[0], dar_algorithms[i]->name);
            return dar_algorithms[i];
        }
    return dar_algorithm_default();   /* its reader names the missing key */
}

const struct dar_algorithm *dar_algorithm_other_of_record(const struct dar_algorithm *alg, const struct record *rec,
                                                          char *why, size_t size)
{
    if (has_all(rec, alg->solution_keys, alg->nsolution_keys))
        return NULL;
    for (int i = 0; i < dar_algorithm_count; i++) {
        const struct dar_algorithm *other = dar_algorithms[i];
        if (other != alg && has_all(rec, other->solution_keys, other->nsolution_keys)) {
            snprintf(why, size, "carries the trace of %s", other->name);
            return other;
        }
    }
    const char *missing = graph_missing_key(rec, alg->instance_keys, alg->ninstance_keys);
    if (!missing)
        return NULL;
    for (int i = 0; i < dar_algorithm_count; i++) {
        const struct dar_algorithm *other = dar_algorithms[i];
        if (other != alg && !graph_missing_key(rec, other->instance_keys, other->ninstance_keys)) {
            snprintf(why, size, "is a %s instance (no '%s')", other->name, missing);
            return other;
        }
    }
    return NULL;
}

/* The first of other's trace keys that alg's trace has not: the key that
 * gives the record away. */
static const char *own_key(const struct dar_algorithm *other, const struct dar_algorithm *alg)
{
    for (int k = 0; k < other->ntrace_keys; k++) {
        bool shared = false;
        for (int j = 0; j < alg->ntrace_keys && !shared; j++)
            shared = strcmp(other->trace_keys[k], alg->trace_keys[j]) == 0;
        if (!shared)
            return other->trace_keys[k];
    }
    return other->trace_keys[0];
}

void dar_algorithm_refuse_other_trace(const struct dar_algorithm *alg, const struct record *rec)
{
    if (alg->takes_other_traces)
        return;
    for (int i = 0; i < dar_algorithm_count; i++) {
        const struct dar_algorithm *other = dar_algorithms[i];
        if (other != alg && has_all(rec, other->trace_keys, other->ntrace_keys))
            record_die(rec, "carries the trace of %s (key '%s'), not of %s", other->name, own_key(other, alg),
                       alg->name);
    }
}

const struct dar_algorithm *dar_algorithm_of_model(const struct record *rec)
{
    /* records written before the registry are max-flow's */
    if (!record_has(rec, "algorithm"))
        return dar_algorithm_default();
    char buf[64];
    const struct dar_algorithm *alg = dar_algorithm_find(record_str(rec, "algorithm", buf, sizeof buf));
    if (!alg) {
        char names[256];
        record_die(rec, "'algorithm' is '%s', expected one of %s", buf, dar_algorithm_names(names, sizeof names));
    }
    return alg;
}

void dar_algorithms_help(void)
{
    printf("\nalgorithms (the registry; formats/graph.md has their keys):\n");
    for (int i = 0; i < dar_algorithm_count; i++) {
        const struct dar_algorithm *alg = dar_algorithms[i];
        char keys[64];
        printf("  %s%s: %s\n", alg->name, alg == dar_algorithm_default() ? " (the default)" : "", alg->summary);
        printf("      instance: %s\n      trace:", graph_keys_list(alg->instance_keys, alg->ninstance_keys, keys, sizeof keys));
        for (int k = 0; k < alg->ntrace_keys; k++)
            printf(" %s", alg->trace_keys[k]);
        printf("\n      --no-hints:");
        for (int k = 0; k < alg->nsolution_keys; k++)
            printf(" %s", alg->solution_keys[k]);
        printf("\n      variants:");
        for (int v = 0; v < DAR_VARIANTS; v++)
            if (alg->layouts[v].nnets)
                printf(" %s", dar_variant_name((enum dar_variant)v));
        printf("\n      predictions: %s\n      validation score: %s\n", alg->predictions_help, alg->validation_help);
    }
}
