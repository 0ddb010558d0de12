/* algorithm.c - the registry of algorithms (algorithm.h): one row per
 * entry, in --help order, the first the default.  A new entry adds its row
 * here and nothing else outside its own files (ARCHITECTURE.md §6). */
#include "algorithm.h"
#include "algo_matching.h"
#include "algo_maxflow.h"
#include "algo_shortest_paths.h"
#include "algo_vertex_cover.h"
#include <stdio.h>
#include <string.h>

const struct dar_algorithm *const dar_algorithms[] = {
    &dar_algorithm_maxflow,
    &dar_algorithm_shortest_paths,
    &dar_algorithm_matching,
    &dar_algorithm_vertex_cover,
};
const int dar_algorithm_count = sizeof dar_algorithms / sizeof *dar_algorithms;

const struct dar_algorithm *dar_algorithm_find(const char *name)
{
    for (int i = 0; i < dar_algorithm_count; i++)
        if (strcmp(dar_algorithms[i]->name, name) == 0)
            return dar_algorithms[i];
    return NULL;
}

const char *dar_algorithm_names(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < dar_algorithm_count && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", dar_algorithms[i]->name);
    return buf;
}

int dar_probe_by_encoder(const struct dar_algorithm *alg, const char *name)
{
    for (int p = 0; p < alg->nprobes; p++)
        if ((alg->probes[p].encoder && strcmp(alg->probes[p].encoder, name) == 0) ||
            (alg->probes[p].decoder && strcmp(alg->probes[p].decoder, name) == 0))
            return p;
    return -1;
}
