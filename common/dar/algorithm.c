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

void dar_algorithm_hyperparameters(const struct dar_algorithm *alg, enum dar_variant v, int64_t *hidden,
                                   double *lr, double *weight_decay)
{
    const struct dar_hyperparameters *d = &alg->defaults[v];
    if (*hidden == 0)
        *hidden = d->hidden;
    if (*lr < 0)
        *lr = d->lr;
    if (*weight_decay < 0)
        *weight_decay = d->weight_decay;
}
