/* algo_vertex_cover_repair.c - vertex cover's repair op (cover-fix): the
 * predicted cover completed, the predicted packing made feasible
 * (common/algos/vertex_cover_repair.h does the work). */
#include "algo_vertex_cover.h"
#include "die.h"
#include "graph.h"
#include "tensor.h"
#include "vertex_cover.h"
#include "vertex_cover_repair.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct dar_repair_option vc_repair_options[VC_REPAIR_OPTIONS] = {
    [VC_REPAIR_KEY] = {.name = "key", .short_name = 'k', .type = CLI_TYPE_STRING, .arg = "NAME",
                       .help = "the predicted cover's node scores", .value.text = "pred_cover"},
    [VC_REPAIR_DUAL_KEY] = {.name = "dual-key", .type = CLI_TYPE_STRING, .arg = "NAME",
                            .help = "the predicted packing (repaired when the record has it)",
                            .value.text = "pred_packing"},
    [VC_REPAIR_THRESHOLD] = {.name = "threshold", .type = CLI_TYPE_DOUBLE, .arg = "X",
                             .help = "a node starts in the cover when its score is above X",
                             .min = -1e30, .max = 1e30, .value.number = 0.5},
    [VC_REPAIR_COMPLETE] = {.name = "complete", .type = CLI_TYPE_CHOICE, .arg = "HOW",
                            .help = "which node covers an uncovered edge", .choices = "ratio|score",
                            .value.text = "ratio"},
};

/* A prediction of count numbers as doubles: a float vector, or u8 (a 0/1
 * cover or mask fed back as a prediction), every entry finite. */
static double *prediction(const struct record *rec, const char *key, int64_t count, const char *what)
{
    struct tensor_view t;
    char err[160];
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "missing key '%s' (%s; choose another with --%s)", key, what,
                   strcmp(what, "the predicted packing") == 0 ? "dual-key" : "key");
    if (!tensor_view(o, &t, err, sizeof err))
        record_die(rec, "'%s' %s", key, err);
    if (t.ndim != 1 || t.shape[0] != count || (t.dtype != DT_F32 && t.dtype != DT_F64 && t.dtype != DT_U8))
        record_die(rec, "'%s' must be a vector of %lld numbers (f32, f64 or u8): %s", key, (long long)count, what);
    double *a = xmalloc(sizeof *a * (size_t)(count ? count : 1));
    for (int64_t i = 0; i < count; i++) {
        const unsigned char *p = (const unsigned char *)t.data;
        if (t.dtype == DT_U8) {
            a[i] = p[i];
        } else if (t.dtype == DT_F32) {
            float f;
            memcpy(&f, p + 4 * i, 4);
            a[i] = f;
        } else {
            memcpy(&a[i], p + 8 * i, 8);
        }
        if (!isfinite(a[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, a[i]);
    }
    return a;
}

static const char *const cover_keys[] = {"fixed_cover", "fixed_cover_weight", "cover_added",
                                         "fixed_packing", "packing_value", "packing_excess"};

/* The predicted scores completed into a cover; the predicted packing, when
 * the record has one, scaled into a feasible packing. */
void vc_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options)
{
    const char *key = options[VC_REPAIR_KEY].text, *dual_key = options[VC_REPAIR_DUAL_KEY].text;
    enum vertex_cover_completion completion = strcmp(options[VC_REPAIR_COMPLETE].text, "score") == 0
                                                  ? VERTEX_COVER_COMPLETE_SCORE : VERTEX_COVER_COMPLETE_RATIO;
    struct graph g;
    graph_read_instance(&g, rec, dar_algorithm_vertex_cover.instance_keys, dar_algorithm_vertex_cover.ninstance_keys, "vertex-cover");
    size_t n1 = (size_t)g.n + 1, m1 = (size_t)g.m + 1;
    double *scores = prediction(rec, key, g.n, "the predicted cover's node scores");
    bool dual = record_has(rec, dual_key);
    double *pred_y = dual ? prediction(rec, dual_key, g.m, "the predicted packing") : NULL;
    float *score = xmalloc(sizeof *score * n1);
    for (int v = 0; v < g.n; v++)
        score[v] = (float)scores[v];
    uint8_t *cover = xmalloc(n1);
    double *y = xmalloc(sizeof *y * m1), packing_value = 0, excess = 0;
    int added = vertex_cover_complete(g.n, g.m, g.src, g.dst, g.node_w, score, options[VC_REPAIR_THRESHOLD].number,
                                      completion, cover);
    if (dual) {
        excess = vertex_cover_pack_repair(g.n, g.m, g.src, g.dst, g.node_w, pred_y, y);
        for (int e = 0; e < g.m; e++)
            packing_value += y[e];
    }
    writer_begin_enriched(w, rec, cover_keys, dual ? 6 : 3);
    mp_key(w, "fixed_cover");        mp_vector(w, DT_U8, g.n, cover);
    mp_key(w, "fixed_cover_weight"); mp_double(w, vertex_cover_weight(g.n, g.node_w, cover));
    mp_key(w, "cover_added");        mp_int(w, added);
    if (dual) {
        mp_key(w, "fixed_packing");  mp_vector(w, DT_F64, g.m, y);
        mp_key(w, "packing_value");  mp_double(w, packing_value);
        mp_key(w, "packing_excess"); mp_double(w, excess);
    }
    free(scores); free(pred_y); free(score); free(cover); free(y);
    graph_free(&g);
}
