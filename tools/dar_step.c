/* dar_step.c - predictions of a trained model (or the random baseline) added
 * to graph records: the model's algorithm (algorithm.h) writes them, the
 * baseline's is the one --algorithm names.
 *
 * The model follows the trace's phase flags and length, as the paper's
 * evaluation does.  A graph that was only generated (no trace) gets them from
 * running the algorithm: only the flags and the length are used, no hint or
 * solution enters the model. */
#include "dar_step.h"
#include "registry.h"
#include "stream.h"
#include "workers.h"

struct each_context {
    const struct dar_step_options *o;
    struct dar_workspace *ws;
};

static void step_record(struct writer *w, const struct record *rec, void *context)
{
    const struct each_context *c = context;
    const struct dar_step_options *o = c->o;
    const struct dar_algorithm *alg = o->random_baseline ? (o->algorithm ? o->algorithm : dar_algorithm_default())
                                                         : o->model->config.algorithm;
    /* a record of another algorithm would otherwise fail on whichever of
     * this one's keys it lacks, which does not say what is wrong */
    char why[128];
    const struct dar_algorithm *other = dar_algorithm_other_of_record(alg, rec, why, sizeof why);
    if (other && o->random_baseline)
        record_die(rec, "%s; the baseline asked for is %s's: give --algorithm %s", why, alg->name, other->name);
    if (other)
        record_die(rec, "%s, but the model was trained on %s", why, alg->name);
    dar_algorithm_refuse_other_trace(alg, rec);
    if (o->random_baseline)
        alg->random_baseline(w, rec, o->seed);
    else
        alg->predict(w, rec, o->model, c->ws, o->hints, o->embed, o->embed_step);
}

void dar_step_run(FILE *in, const char *in_name, FILE *out, const struct dar_step_options *o)
{
    workers_start_option(o->threads);
    struct each_context c = {o, o->model ? dar_workspace_new() : NULL};
    stream_map(in, in_name, out, &(struct stream_map){.each = step_record, .context = &c});
    if (c.ws)
        dar_workspace_free(c.ws);
    workers_stop();
}
