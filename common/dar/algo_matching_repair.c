/* algo_matching_repair.c - matching's repair op (match-fix): the predicted
 * edge scores (and node scores) made a valid matching (and cover), with the
 * repairs of common/algos/matching_fix.h, and whether the predicted cover
 * was already valid. */
#include "algo_matching.h"
#include "die.h"
#include "graph.h"
#include "algo_matching.h"
#include "matching_fix.h"
#include "tensor.h"
#include <stdlib.h>

const struct dar_repair_option match_repair_options[MATCH_REPAIR_OPTIONS] = {
    [MATCH_REPAIR_THRESHOLD] = {.name = "threshold", .type = CLI_TYPE_DOUBLE, .arg = "X",
                                .help = "the least score of a matched edge (0: any edge, by score; 0.5: only "
                                        "those predicted matched)",
                                .min = 0.0, .max = 1.0, .value.number = 0.0},
};

static const char *const match_keys[] = {"fixed_match", "fixed_match_size"};
static const char *const both_keys[] = {"fixed_match", "fixed_match_size", "cover_valid_before", "fixed_cover",
                                        "fixed_cover_size"};

/* The scores of key, count of them, each in [0, 1]. */
static float *scores(const struct record *rec, const char *key, int count, const char *what)
{
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "missing key '%s' (%s; run dar-step first)", key, what);
    float *v = record_vector(rec, key, DT_F32, count);
    for (int i = 0; i < count; i++)
        if (!(v[i] >= 0.0f && v[i] <= 1.0f))
            record_die(rec, "'%s' entry %d is %g, expected a score in [0, 1]", key, i, v[i]);
    return v;
}

void match_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options)
{
    struct graph g;
    graph_read_instance(&g, rec, dar_algorithm_matching.instance_keys, dar_algorithm_matching.ninstance_keys, "match-fix");
    float *pm = scores(rec, "pred_match", g.m, "the predicted edge scores");
    float *pc = record_has(rec, "pred_cover") ? scores(rec, "pred_cover", g.n, "the predicted node scores") : NULL;
    uint8_t *match = xmalloc((size_t)g.m + 1), *cover = xmalloc((size_t)g.n + 1);
    float threshold = (float)options[MATCH_REPAIR_THRESHOLD].number;
    int match_size = matching_fix(g.n, g.m, g.src, g.dst, pm, threshold, match);
    writer_begin_enriched(w, rec, pc ? both_keys : match_keys, pc ? 5 : 2);
    mp_key(w, "fixed_match");      mp_vector(w, DT_U8, g.m, match);
    mp_key(w, "fixed_match_size"); mp_int(w, match_size);
    if (pc) {
        bool valid = cover_valid(g.m, g.src, g.dst, pc);
        int cover_size = cover_fix(g.n, g.m, g.src, g.dst, g.side, pc, cover);
        mp_key(w, "cover_valid_before"); mp_bool(w, valid);
        mp_key(w, "fixed_cover");        mp_vector(w, DT_U8, g.n, cover);
        mp_key(w, "fixed_cover_size");   mp_int(w, cover_size);
    }
    free(pm);
    free(pc);
    free(match);
    free(cover);
    graph_free(&g);
}
