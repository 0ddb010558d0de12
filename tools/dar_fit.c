/* dar_fit.c - the training loop of dar-fit.
 *
 * Everything random is addressed by the iteration k (rng.h): the batch of
 * iteration k is rng(seed, "batch", k), its teacher-forcing draws
 * rng(seed, "teacher", k).  So a run resumed at iteration k0 from a record
 * written at k0 draws exactly what an uninterrupted run draws, and with the
 * model, the optimizer state and the best checkpoint restored the result is
 * the same bytes.  Validation runs at every multiple of --eval-every; when
 * --iters is not one, a last validation picks the output parameters but is not
 * remembered in the resume state (an uninterrupted longer run never saw it). */
#include "dar_fit.h"
#include "cache.h"
#include "curve.h"
#include "dar_fit_checkpoint.h"
#include "registry.h"
#include "die.h"
#include "io.h"
#include "optim.h"
#include "rng.h"
#include "stream.h"
#include "tensor.h"
#include "workers.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef DAR_VERSION
#define DAR_VERSION "0.0.0"
#endif

struct dataset {
    struct dar_graph *graphs;
    int count;
    char hash[33];             /* XXH3-128 of the stream's bytes */
    const struct dar_algorithm *algorithm;  /* whose trace the records carry */
};

/* The records of in (its bytes freed once read: the graphs are copies). */
static void dataset_load(struct dataset *d, struct input_bytes *in, int need)
{
    const char *name = in->name;
    size_t len = in->length;
    memcpy(d->hash, in->hash, sizeof d->hash);
    FILE *mem = fmemopen(in->bytes, len ? len : 1, "rb");
    if (!mem)
        die(EX_SOFTWARE, "cannot read '%s' from memory:", name);
    struct reader rd;
    struct record rec;
    int cap = 64;
    d->graphs = xmalloc(sizeof *d->graphs * (size_t)cap);
    d->count = 0;
    d->algorithm = NULL;
    reader_init(&rd, mem, name);
    if (len)
        while (reader_next(&rd, &rec)) {
            const struct dar_algorithm *alg = dar_algorithm_of_record(&rec);
            if (d->algorithm && alg != d->algorithm)
                record_die(&rec, "carries the trace of %s, the records before it that of %s", alg->name,
                           d->algorithm->name);
            d->algorithm = alg;
            dar_algorithm_refuse_other_trace(alg, &rec);
            if (d->count == cap)
                d->graphs = xrealloc(d->graphs, sizeof *d->graphs * (size_t)(cap *= 2));
            alg->read_graph(&d->graphs[d->count++], &rec, need);
        }
    reader_free(&rd);
    fclose(mem);
    input_bytes_free(in);
}

const struct dar_algorithm *dar_fit_records_entry(const struct input_bytes *train)
{
    const struct dar_algorithm *alg = dar_algorithm_default();
    if (!train->length)
        return alg;
    FILE *mem = fmemopen(train->bytes, train->length, "rb");
    if (!mem)
        die(EX_SOFTWARE, "cannot read '%s' from memory:", train->name);
    struct reader rd;
    struct record rec;
    reader_init(&rd, mem, train->name);
    if (reader_next(&rd, &rec))
        alg = dar_algorithm_of_record(&rec);
    reader_free(&rd);
    fclose(mem);
    return alg;
}

static void dataset_free(struct dataset *d)
{
    for (int i = 0; i < d->count; i++)
        dar_graph_free(&d->graphs[i]);
    free(d->graphs);
}

/* ---- the resume state ---- */

struct state {
    int64_t iteration;         /* iterations done */
    float *current;            /* parameters being trained */
    float *best;               /* best checkpoint of the regular validations */
    double best_score;
    int64_t best_iteration;
    double kappa;
    struct adam adam;
    bool adam_used;
    double seconds_before;     /* the training's seconds before this run (a checkpoint's) */
};

/* The training curve (curve.h), one row per iteration: the iteration, the
 * algorithm's loss terms, the total and the validation score. */
enum { CURVE_MAX_COLUMNS = DAR_MAX_LOSSES + 3 };
struct curve_columns {
    int count;
    const char *names[CURVE_MAX_COLUMNS];
};

/* The columns of alg's curve; a curve keeps the names array, so it lives
 * as long as the process (one per registered algorithm). */
static const struct curve_columns *curve_columns(const struct dar_algorithm *alg)
{
    static struct curve_columns columns[8];
    int i = 0;
    while (i < dar_algorithm_count && dar_algorithms[i] != alg)
        i++;
    if (i >= (int)(sizeof columns / sizeof *columns))
        die(EX_SOFTWARE, "BUG: more algorithms than curve column tables");
    struct curve_columns *c = &columns[i];
    if (c->count)
        return c;
    c->names[c->count++] = "iteration";
    for (int t = 0; t < alg->nlosses; t++)
        c->names[c->count++] = alg->loss_names[t];
    c->names[c->count++] = "total";
    c->names[c->count++] = "val_score";
    return c;
}

static void curve_add_losses(struct curve *c, const struct dar_algorithm *alg, int64_t k,
                             const struct dar_losses *l, double score, double seconds)
{
    double row[CURVE_MAX_COLUMNS];
    int count = 0;
    row[count++] = (double)k;   /* exact below 2^53 */
    for (int t = 0; t < alg->nlosses; t++)
        row[count++] = l->term[t];
    row[count++] = l->total;
    row[count++] = score;
    curve_add(c, row, seconds);
}

/* Read the curve of a model record (key "curve"); false if it has none. */
static bool curve_of_record(struct curve *c, const struct record *rec, const struct dar_algorithm *alg)
{
    const msgpack_object *o = record_find(rec, "curve");
    if (!o)
        return false;
    if (o->type != MSGPACK_OBJECT_MAP)
        record_die(rec, "'curve' is not a map");
    struct record sub = {o, rec->index, rec->source};
    curve_free(c);
    const struct curve_columns *columns = curve_columns(alg);
    curve_read(c, &sub, columns->count, columns->names);
    return true;
}

static void columns_of_model(const struct record *rec, int *ncolumns, const char *const **names)
{
    struct dar_model m;
    dar_model_read(&m, rec, dar_algorithm_of_model);
    const struct curve_columns *columns = curve_columns(m.config.algorithm);
    dar_model_free(&m);
    *ncolumns = columns->count;
    *names = columns->names;
}

void train_write_log_from_model(FILE *model, const char *name, const char *log_path)
{
    curve_log_from_model(model, name, (const char *const[]){"curve", NULL}, columns_of_model, log_path);
}

struct write_ctx {
    const struct dar_fit_options *o;
    const struct dar_model *model;
    const struct state *st;
    const struct dataset *train, *val;
    double out_score;
    int64_t out_iteration;
    const struct curve *curve;
    double seconds;            /* a checkpoint's: the training's seconds so far; NaN: none */
};

/* The model record with values as its params, and the provenance, the
 * curve and the state that --resume reads. */
static void write_record(struct writer *w, const struct write_ctx *c, const float *values)
{
    const struct state *st = c->st;
    dar_model_write_begin(w, c->model, values, 3);
    mp_key(w, "provenance");
    mp_map(w, 10);
    mp_key(w, "tool");           mp_str(w, "dar-fit");
    mp_key(w, "version");        mp_str(w, DAR_VERSION);
    mp_key(w, "args");           mp_str(w, c->o->canonical_args ? c->o->canonical_args : "");
    mp_key(w, "seed");           mp_int(w, (int64_t)c->o->seed);
    mp_key(w, "train_hash");     mp_str(w, c->train->hash);
    mp_key(w, "train_graphs");   mp_int(w, c->train->count);
    mp_key(w, "val_hash");       mp_str(w, c->val ? c->val->hash : "");
    mp_key(w, "iterations");     mp_int(w, st->iteration);
    mp_key(w, "best_iteration"); mp_int(w, c->out_iteration);
    mp_key(w, "best_score");     mp_double(w, c->out_score);

    mp_key(w, "curve");
    curve_write(w, c->curve);

    /* a checkpoint also keeps the time spent, so that a resumed run's curve
     * counts it; an output record holds no time (the same bytes every run) */
    mp_key(w, "train_state");
    mp_map(w, (st->adam_used ? 10 : 7) + !isnan(c->seconds));
    mp_key(w, "iteration");      mp_int(w, st->iteration);
    mp_key(w, "seed");           mp_int(w, (int64_t)c->o->seed);
    mp_key(w, "kappa");          mp_double(w, st->kappa);
    mp_key(w, "best_score");     mp_double(w, st->best_score);
    mp_key(w, "best_iteration"); mp_int(w, st->best_iteration);
    mp_key(w, "params");         dar_params_write(w, c->model, st->current);
    mp_key(w, "best_params");    dar_params_write(w, c->model, st->best);
    if (st->adam_used) {
        mp_key(w, "adam_step"); mp_int(w, st->adam.step);
        mp_key(w, "adam_m");    dar_params_write(w, c->model, st->adam.m);
        mp_key(w, "adam_v");    dar_params_write(w, c->model, st->adam.v);
    }
    if (!isnan(c->seconds)) {
        mp_key(w, "seconds");   mp_double(w, c->seconds);
    }
}

static void resume_from(struct state *st, struct curve *curve, struct dar_model *model,
                        const struct dar_fit_options *o, const struct dar_config *config, struct input_bytes *in)
{
    const char *name = in->name;
    size_t len = in->length;
    FILE *mem = fmemopen(in->bytes, len ? len : 1, "rb");
    struct reader rd;
    struct record rec;
    reader_init(&rd, mem, name);
    if (!len || !reader_next(&rd, &rec))
        die(EX_DATAERR, "'%s' holds no model record", name);
    struct dar_model saved;
    dar_model_read(&saved, &rec, dar_algorithm_of_model);
    const struct dar_config *a = &saved.config, *b = config;
    if (a->algorithm != b->algorithm)
        die(EX_USAGE, "--resume model was trained on %s, but the records are %s's", a->algorithm->name,
            b->algorithm->name);
    if (a->variant != b->variant || a->processor != b->processor || a->agg != b->agg || a->hidden != b->hidden)
        die(EX_USAGE, "--resume model is %s %s-%s H=%d, but the options ask for %s %s-%s H=%d",
            dar_variant_name(a->variant), dar_processor_name(a->processor), dar_agg_name(a->agg), a->hidden,
            dar_variant_name(b->variant), dar_processor_name(b->processor), dar_agg_name(b->agg), b->hidden);
    dar_model_free(&saved);
    const msgpack_object *ts = record_find(&rec, "train_state");
    if (!ts || ts->type != MSGPACK_OBJECT_MAP)
        record_die(&rec, "missing key 'train_state' (write the model with dar-fit to resume it)");
    struct record state = {ts, rec.index, rec.source};
    if ((uint64_t)record_int(&state, "seed") != o->seed)
        die(EX_USAGE, "--resume model was trained with --seed %lld; pass the same seed to continue it",
            (long long)record_int(&state, "seed"));
    st->iteration = record_int(&state, "iteration");
    if (!curve_of_record(curve, &rec, config->algorithm) || curve->rows != st->iteration)
        record_die(&rec, "'curve' does not cover the %lld iterations of 'train_state'", (long long)st->iteration);
    st->kappa = record_double(&state, "kappa");
    st->best_score = record_double(&state, "best_score");
    st->best_iteration = record_int(&state, "best_iteration");
    st->seconds_before = record_has(&state, "seconds") ? record_double(&state, "seconds") : 0.0;
    if (!(st->seconds_before >= 0.0) || isinf(st->seconds_before))
        record_die(&rec, "'train_state' has 'seconds' %g: not a time", st->seconds_before);
    dar_params_read(model, &state, "params", st->current);
    dar_params_read(model, &state, "best_params", st->best);
    memcpy(model->values, st->current, sizeof(float) * (size_t)model->count);
    if (st->adam_used) {
        if (!record_has(&state, "adam_m"))
            record_die(&rec, "'train_state' has no Adam moments (it was trained with SGD)");
        st->adam.step = record_int(&state, "adam_step");
        dar_params_read(model, &state, "adam_m", st->adam.m);
        dar_params_read(model, &state, "adam_v", st->adam.v);
    }
    reader_expect_end(&rd);
    reader_free(&rd);
    fclose(mem);
    input_bytes_free(in);
}

/* The state of a run from iteration 0: current and best the initial
 * parameters, no checkpoint yet. */
static void state_begin(struct state *st, const struct dar_model *model,
                        const struct dar_fit_options *o)
{
    size_t bytes = sizeof(float) * (size_t)model->count;
    memset(st, 0, sizeof *st);
    st->current = xmalloc(bytes);
    st->best = xmalloc(bytes);
    memcpy(st->current, model->values, bytes);
    memcpy(st->best, model->values, bytes);
    st->best_score = INFINITY;
    st->best_iteration = -1;
    st->adam_used = o->adam;
    if (o->adam)
        adam_init(&st->adam, model->params, model->nparams, (float)o->lr, (float)o->weight_decay);
}

/* The training graphs and, when val is not NULL, the validation graphs,
 * refused unless both carry one algorithm's trace. */
static void datasets_load(struct dataset *tr, struct dataset *va, struct input_bytes *train,
                          struct input_bytes *val)
{
    const char *train_name = train->name, *val_name = val ? val->name : NULL;
    dataset_load(tr, train, DAR_NEED_TRAINING);
    if (tr->count == 0)
        die(EX_DATAERR, "'%s' holds no training graphs", train_name);
    if (val) {
        dataset_load(va, val, DAR_NEED_PHASES | DAR_NEED_SOLUTION);
        if (va->count == 0)
            die(EX_DATAERR, "'%s' holds no validation graphs", val_name);
    }
    if (val && va->algorithm != tr->algorithm)
        die(EX_USAGE, "'%s' carries the trace of %s, '%s' that of %s", val_name, va->algorithm->name, train_name,
            tr->algorithm->name);
}

/* Iteration k's batch, drawn with replacement, and its teacher-forcing
 * draws, one a step (*teacher grown to fit); the clock kappa advances as
 * it does.  Returns the batch's steps. */
static int draw_iteration(struct dar_graph **batch, uint8_t **teacher, int *teacher_cap, double *kappa,
                          const struct dataset *tr, const struct dar_fit_options *o, int64_t k)
{
    struct rng r;
    rng_init(&r, o->seed, rng_stream_id("batch"), (uint64_t)k);
    for (int64_t b = 0; b < o->batch; b++)
        batch[b] = &tr->graphs[rng_below(&r, (uint64_t)tr->count)];
    int steps = dar_batch_steps(batch, (int)o->batch);
    if (steps > *teacher_cap)
        *teacher = xrealloc(*teacher, (size_t)(*teacher_cap = steps));
    rng_init(&r, o->seed, rng_stream_id("teacher"), (uint64_t)k);
    /* the clock counts the network runs of the records' entry a step
     * (--tf-decay-per-step reads it); without that flag nothing reads it
     * and it counts the default entry's two, the value every model record has
     * carried in its train_state */
    double runs = o->tf_per_step ? tr->algorithm->nets_per_step : 2;
    *kappa += 1;
    for (int i = 0; i < steps; i++) {
        *kappa += runs;
        double tf = pow(o->tf_decay, o->tf_per_step ? *kappa : (double)k);
        (*teacher)[i] = rng_uniform(&r) < tf;
    }
    return steps;
}

/* A regular validation after iteration k (when due): its score, the best
 * checkpoint kept when it is the lowest; NaN when none was due. */
static double validate_due(struct state *st, struct dar_model *model, struct dar_workspace *ws,
                           const struct dataset *va, const struct dar_fit_options *o, int64_t k)
{
    double score = NAN;
    if (va && (k + 1) % o->eval_every == 0) {
        score = model->config.algorithm->validation_score(model, ws, va->graphs, va->count,
                                                          o->tf_per_step ? &st->kappa : NULL);
        if (score < st->best_score) {
            st->best_score = score;
            st->best_iteration = k + 1;
            memcpy(st->best, model->values, sizeof(float) * (size_t)model->count);
        }
    }
    return score;
}

/* The run's state after iteration k, as the record --resume reads, into
 * the checkpoint. */
static void checkpoint_keep(const struct write_ctx *ctx, struct state *st, const struct dar_model *model)
{
    memcpy(st->current, model->values, sizeof(float) * (size_t)model->count);
    struct writer w;
    writer_init_memory(&w);
    write_record(&w, ctx, st->current);
    checkpoint_save(ctx->o->checkpoint, w.buffer, w.buffered);
    writer_flush(&w);
}

/* The progress line's words after an iteration: its loss and the last
 * validation score, with the best. */
static void progress_words(struct progress *p, double loss, double last_score, double best_score)
{
    if (isnan(last_score) && isfinite(best_score))  /* resumed: the checkpoint's best */
        snprintf(p->extra, sizeof p->extra, "loss %.4f, no validation in this run yet (best %.4g)", loss,
                 best_score);
    else if (isnan(last_score))
        snprintf(p->extra, sizeof p->extra, "loss %.4f, no validation yet", loss);
    else
        snprintf(p->extra, sizeof p->extra, "loss %.4f, validation %.4g (best %.4g)", loss, last_score, best_score);
}

/* The parameters to output, with their score and iteration: the best
 * checkpoint, considering a last validation when the run did not end on a
 * multiple of --eval-every; without validation graphs (va NULL) the last;
 * with --keep last the last, with its validation score. */
static const float *output_parameters(const struct state *st, struct dar_model *model, struct dar_workspace *ws,
                                      const struct dataset *va, const struct dar_fit_options *o,
                                      double *out_score, int64_t *out_iteration)
{
    const float *chosen = st->best;
    *out_score = st->best_score;
    *out_iteration = st->best_iteration;
    if (!va) {
        chosen = st->current;
        *out_score = NAN;
        *out_iteration = st->iteration;
    } else if (o->keep_last) {
        double kappa = st->kappa;
        chosen = st->current;
        *out_score = model->config.algorithm->validation_score(model, ws, va->graphs, va->count, &kappa);
        *out_iteration = st->iteration;
    } else if (st->iteration % o->eval_every != 0 || st->best_iteration < 0) {
        double kappa = st->kappa;
        double score = model->config.algorithm->validation_score(model, ws, va->graphs, va->count, &kappa);
        if (score < *out_score || st->best_iteration < 0) {
            chosen = st->current;
            *out_score = score;
            *out_iteration = st->iteration;
        }
    }
    return chosen;
}

void dar_fit_run(struct input_bytes *train, struct input_bytes *val, struct input_bytes *resume, FILE *out,
                 const struct dar_fit_options *o)
{
    workers_start_option(o->threads);
    struct dataset tr, va;
    datasets_load(&tr, &va, train, val);
    const struct dataset *validation = val ? &va : NULL;

    struct dar_config config = o->config;
    config.algorithm = tr.algorithm;
    const struct dar_algorithm *alg = config.algorithm;
    /* the trace decides: a model of phased records reads their phases (the entry's check refuses a mix) */
    config.phased = alg->phased_graph && tr.count && alg->phased_graph(&tr.graphs[0]);
    struct dar_model model;
    dar_model_init(&model, &config, o->seed);
    size_t bytes = sizeof(float) * (size_t)model.count;
    struct state st;
    state_begin(&st, &model, o);
    struct sgd sgd = {(float)o->lr, (float)o->weight_decay};
    struct curve curve;
    const struct curve_columns *columns = curve_columns(alg);
    curve_init(&curve, columns->count, columns->names);
    if (resume)
        resume_from(&st, &curve, &model, o, &config, resume);
    struct dar_workspace *ws = dar_workspace_new();
    struct dar_graph **batch = xmalloc(sizeof *batch * (size_t)o->batch);
    uint8_t *teacher = NULL;
    int teacher_cap = 0;
    struct progress p;
    progress_begin_at(&p, o->progress, "iterations", o->iters, st.iteration);
    double start = now_seconds(), last_score = NAN;

    for (int64_t k = st.iteration; k < o->iters; k++) {
        int steps = draw_iteration(batch, &teacher, &teacher_cap, &st.kappa, &tr, o, k);
        params_zero_grad(model.params, model.nparams);
        struct dar_losses losses;
        double loss = dar_loss_and_grad(&model, ws, batch, (int)o->batch, teacher, steps, true, &losses);
        if (!isfinite(loss)) {
            warn("training diverged at iteration %lld (loss %g); keeping the best checkpoint", (long long)k, loss);
            break;
        }
        if (o->clip_norm > 0)
            params_clip_grad_norm(model.params, model.nparams, o->clip_norm);
        float lr = (float)(o->lr * lr_schedule_factor(o->lr_schedule, k, o->lr_horizon ? o->lr_horizon : o->iters));
        sgd.lr = st.adam.lr = lr;
        if (o->adam)
            adam_step(&st.adam, model.params, model.nparams);
        else
            sgd_step(&sgd, model.params, model.nparams);
        st.iteration = k + 1;

        double score = validate_due(&st, &model, ws, validation, o, k);
        double seconds = st.seconds_before + (now_seconds() - start);
        curve_add_losses(&curve, alg, k + 1, &losses, score, seconds);
        if (checkpoint_due(o->checkpoint, k + 1, o->iters)) {
            struct write_ctx ctx = {o, &model, &st, &tr, validation, st.best_score, st.best_iteration, &curve,
                                    seconds};
            checkpoint_keep(&ctx, &st, &model);
        }
        if (!isnan(score))
            last_score = score;
        progress_words(&p, loss, last_score, st.best_score);
        progress_update(&p, k + 1);
    }
    progress_end(&p);
    memcpy(st.current, model.values, bytes);

    double out_score;
    int64_t out_iteration;
    const float *chosen = output_parameters(&st, &model, ws, validation, o, &out_score, &out_iteration);
    struct write_ctx ctx = {o, &model, &st, &tr, validation, out_score, out_iteration, &curve, NAN};
    struct writer w;
    writer_init(&w, out);
    write_record(&w, &ctx, chosen);
    if (o->log_path)
        curve_write_log(&curve, o->log_path);
    curve_free(&curve);
    free(teacher);
    free(batch);
    dar_workspace_free(ws);
    if (o->adam)
        adam_free(&st.adam);
    free(st.current);
    free(st.best);
    dar_model_free(&model);
    dataset_free(&tr);
    if (val)
        dataset_free(&va);
    workers_stop();
}
