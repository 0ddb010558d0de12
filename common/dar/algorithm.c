/* algorithm.c - what is asked of one entry's row (algorithm.h); the rows
 * together are the registry's (registry.c). */
#include "algorithm.h"
#include <string.h>

int dar_probe_by_encoder(const struct dar_algorithm *alg, const char *name)
{
    for (int p = 0; p < alg->nprobes; p++)
        if ((alg->probes[p].encoder && strcmp(alg->probes[p].encoder, name) == 0) ||
            (alg->probes[p].decoder && strcmp(alg->probes[p].decoder, name) == 0))
            return p;
    return -1;
}
