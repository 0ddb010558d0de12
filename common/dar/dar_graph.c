/* dar_graph.c - what every entry's graphs share: freeing one (its probes
 * whatever their type, the instance, the vessel inputs). */
#include "dar.h"
#include <stdlib.h>
#include <string.h>

void dar_graph_free(struct dar_graph *dg)
{
    graph_free(&dg->g);
    free(dg->phase);
    free(dg->length);
    free(dg->distance);
    free(dg->curveness);
    for (int p = 0; p < DAR_MAX_PROBES; p++)
        free(dg->probe[p]);
    memset(dg, 0, sizeof *dg);
}
