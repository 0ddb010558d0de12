/* dar_model.c - the DAR model's configuration names, its parameter list
 * (formats/model.md §3, §6) and init (§5), and `model` records (§7). */
#include "dar.h"
#include "die.h"
#include "layers.h"
#include "names.h"
#include "rng.h"
#include "tensor.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------ */

static const char *const variant_names[] = {"primal", "dual", "pipeline", "no-algo"};
static const char *const processor_names[] = {"pgn", "mpnn"};
static const char *const agg_names[] = {"max", "mean", "sum"};

const char *dar_variant_name(enum dar_variant v) { return variant_names[v]; }
const char *dar_processor_name(enum dar_processor p) { return processor_names[p]; }
const char *dar_agg_name(enum dar_agg a) { return agg_names[a]; }

bool dar_variant_parse(const char *s, enum dar_variant *v)
{
    int i = name_index(s, variant_names, 4);
    if (i >= 0) *v = (enum dar_variant)i;
    return i >= 0;
}

bool dar_processor_parse(const char *s, enum dar_processor *p)
{
    int i = name_index(s, processor_names, 2);
    if (i >= 0) *p = (enum dar_processor)i;
    return i >= 0;
}

bool dar_agg_parse(const char *s, enum dar_agg *a)
{
    int i = name_index(s, agg_names, 3);
    if (i >= 0) *a = (enum dar_agg)i;
    return i >= 0;
}

/* ---- parameter layout --------------------------------------------------------
 * The list is built twice by the same code: once to name and count the
 * tensors, once (storage allocated) to point the networks into it. */

struct layout {
    struct dar_model *m;
    int64_t offset;
    bool resolve;               /* second pass: storage exists */
};

static void add_tensor(struct layout *L, const char *name, int ndim, int64_t rows, int64_t cols,
                       int fan_in, float **value, float **grad)
{
    struct dar_model *m = L->m;
    int k = m->nparams++;
    if (k >= DAR_MAX_PARAMS)
        die(EX_SOFTWARE, "BUG: too many parameters");
    int64_t count = ndim == 1 ? rows : rows * cols;
    if (!L->resolve) {
        struct dar_param_info *in = &m->info[k];
        snprintf(in->name, sizeof in->name, "%s", name);
        in->ndim = ndim;
        in->shape[0] = rows;
        in->shape[1] = ndim == 2 ? cols : 0;
        in->fan_in = fan_in;
    } else {
        m->params[k].name = m->info[k].name;
        m->params[k].value = m->values + L->offset;
        m->params[k].grad = m->grads + L->offset;
        m->params[k].count = count;
        *value = m->values + L->offset;
        *grad = m->grads + L->offset;
    }
    L->offset += count;
}

static void add_linear(struct layout *L, const char *net, const char *part, struct dar_linear *lin,
                       int in, int out, bool bias)
{
    char name[64];
    lin->in = in;
    lin->out = out;
    snprintf(name, sizeof name, "%s.%s.weight", net, part);
    add_tensor(L, name, 2, out, in, in, &lin->weight, &lin->dweight);
    if (bias) {
        snprintf(name, sizeof name, "%s.%s.bias", net, part);
        add_tensor(L, name, 1, out, 0, in, &lin->bias, &lin->dbias);
    }
}

/* The layers of a head, named by its decoder and laid out by its type. */
static void add_head(struct layout *L, const char *net, struct dar_head *head, int p)
{
    const struct dar_probe *probe = &L->m->config.algorithm->probes[p];
    int H = L->m->config.hidden;
    char part[64];
    head->probe = p;
    head->type = probe->type;
    head->location = probe->location;
    /* edges are decoded as antisymmetric values, or as masks and scalars
     * by the symmetric edge head; nothing else */
    bool edge_head = probe->location == DAR_LOCATION_EDGE &&
                     (probe->type == DAR_TYPE_MASK || probe->type == DAR_TYPE_SCALAR);
    if (probe->location != DAR_LOCATION_NODE && probe->type != DAR_TYPE_BOUNDED_ANTISYMMETRIC && !edge_head)
        die(EX_SOFTWARE, "BUG: %s's probe '%s': the processor decodes no %s probe of this type yet",
            L->m->config.algorithm->name, probe->decoder,
            probe->location == DAR_LOCATION_EDGE ? "edge" : "graph");
    if (edge_head) {
        head->nlinear = 2;
        head->width = 1;
        snprintf(part, sizeof part, "dec.%s.q1", probe->decoder);
        add_linear(L, net, part, &head->linear[0], 3 * H, 1, true);
        snprintf(part, sizeof part, "dec.%s.q3", probe->decoder);
        add_linear(L, net, part, &head->linear[1], H, 1, false);
        return;
    }
    switch (probe->type) {
    case DAR_TYPE_POINTER:
        head->nlinear = L->m->config.edge_pointer ? 4 : 2;
        head->width = 2 * H;
        for (int l = 0; l < 2; l++) {
            snprintf(part, sizeof part, "dec.%s%d", probe->decoder, l + 1);
            add_linear(L, net, part, &head->linear[l], 3 * H, H, true);
        }
        if (L->m->config.edge_pointer) {
            snprintf(part, sizeof part, "dec.%s3", probe->decoder);
            add_linear(L, net, part, &head->linear[2], H, H, false);
            snprintf(part, sizeof part, "dec.%s4", probe->decoder);
            add_linear(L, net, part, &head->linear[3], H, 1, true);
        }
        break;
    case DAR_TYPE_BOUNDED_ANTISYMMETRIC:
        head->nlinear = 3;
        head->width = 2;
        for (int l = 0; l < 3; l++) {
            snprintf(part, sizeof part, "dec.%s.q%d", probe->decoder, l + 1);
            add_linear(L, net, part, &head->linear[l], l < 2 ? 3 * H : H, 1, true);
        }
        break;
    default:
        head->nlinear = 1;
        head->width = probe->type == DAR_TYPE_CATEGORICAL ? probe->width : 1;
        snprintf(part, sizeof part, "dec.%s", probe->decoder);
        add_linear(L, net, part, &head->linear[0], 3 * H, head->width, true);
        break;
    }
}

static void add_net(struct layout *L, struct dar_net *net, const struct dar_network *spec)
{
    const struct dar_algorithm *alg = L->m->config.algorithm;
    int H = L->m->config.hidden;
    const char *name = spec->name;
    char buf[64];
    snprintf(net->name, sizeof net->name, "%s", name);
    bool vessel = L->m->config.vessel_inputs && alg->vessel_replaces >= 0 &&
                  (spec->encodes >> alg->vessel_replaces & 1);
    for (int p = 0; p < alg->nprobes; p++) {
        bool encodes = spec->encodes >> p & 1;
        /* the vessel inputs' encoders in place of the one they replace */
        if (vessel && p == alg->vessel_replaces)
            encodes = false;
        else if (alg->probes[p].vessel)
            encodes = vessel;
        if (alg->phased_probes >> p & 1)
            encodes = encodes && L->m->config.phased;
        net->encodes[p] = encodes;
        if (!encodes)
            continue;
        snprintf(buf, sizeof buf, "%s.enc.%s", name, alg->probes[p].encoder);
        int cols = alg->probes[p].type == DAR_TYPE_CATEGORICAL ? alg->probes[p].width : 1;
        add_tensor(L, buf, 2, H, cols, cols, &net->enc[p], &net->denc[p]);
    }
    add_linear(L, name, "proc.m1", &net->m1, 2 * H, H, true);
    add_linear(L, name, "proc.m2", &net->m2, 2 * H, H, true);
    add_linear(L, name, "proc.me", &net->me, H, H, true);
    add_linear(L, name, "proc.l1", &net->l1, H, H, true);
    add_linear(L, name, "proc.l2", &net->l2, H, H, true);
    add_linear(L, name, "proc.o1", &net->o1, 2 * H, H, true);
    add_linear(L, name, "proc.o2", &net->o2, H, H, true);
    if (L->m->config.layer_norm) {
        snprintf(buf, sizeof buf, "%s.proc.ln.scale", name);
        add_tensor(L, buf, 1, H, 0, H, &net->ln_scale, &net->dln_scale);
        snprintf(buf, sizeof buf, "%s.proc.ln.offset", name);
        add_tensor(L, buf, 1, H, 0, H, &net->ln_offset, &net->dln_offset);
    }
    if (L->m->config.gated) {
        add_linear(L, name, "proc.g1", &net->g1, 2 * H, H, true);
        add_linear(L, name, "proc.g2", &net->g2, H, H, true);
        add_linear(L, name, "proc.g3", &net->g3, H, H, true);
    }
    if (L->m->config.triplets) {
        add_linear(L, name, "proc.t1", &net->t1, 2 * H, DAR_TRIPLET_FEATURES, true);
        add_linear(L, name, "proc.t2", &net->t2, 2 * H, DAR_TRIPLET_FEATURES, true);
        add_linear(L, name, "proc.t3", &net->t3, 2 * H, DAR_TRIPLET_FEATURES, true);
        add_linear(L, name, "proc.te1", &net->te1, H, DAR_TRIPLET_FEATURES, false);
        add_linear(L, name, "proc.te2", &net->te2, H, DAR_TRIPLET_FEATURES, false);
        add_linear(L, name, "proc.te3", &net->te3, H, DAR_TRIPLET_FEATURES, false);
        add_linear(L, name, "proc.o3", &net->o3, DAR_TRIPLET_FEATURES, H, true);
    }
    net->nheads = spec->ndecoders;
    for (int p = 0; p < DAR_MAX_PROBES; p++)
        net->head_of[p] = -1;
    for (int k = 0; k < spec->ndecoders; k++) {
        add_head(L, name, &net->heads[k], spec->decoders[k]);
        net->head_of[spec->decoders[k]] = k;
    }
}

/* The processor's input columns (dar.h struct dar_model). */
static void layout_columns(struct dar_model *m)
{
    const struct dar_algorithm *alg = m->config.algorithm;
    m->node_columns = m->narc = 0;
    for (int p = 0; p < alg->nprobes; p++) {
        const struct dar_probe *probe = &alg->probes[p];
        m->node_column[p] = -1;
        /* a model without phases has the columns it had before there were any */
        if (!probe->encoder || (alg->phased_probes >> p & 1 && !m->config.phased))
            continue;
        if (probe->location == DAR_LOCATION_EDGE || probe->type == DAR_TYPE_POINTER) {
            m->arc_probe[m->narc++] = p;
        } else if (probe->location == DAR_LOCATION_NODE) {
            m->node_column[p] = m->node_columns;
            m->node_columns += probe->type == DAR_TYPE_CATEGORICAL ? probe->width : 1;
        }
    }
}

static void layout_model(struct layout *L)
{
    struct dar_model *m = L->m;
    const struct dar_layout *layout = &m->config.algorithm->layouts[m->config.variant];
    m->nparams = 0;
    m->nnets = layout->nnets;
    for (int j = 0; j < layout->nnets; j++)
        add_net(L, &m->nets[j], &layout->nets[j]);
    layout_columns(m);
}

void dar_model_create(struct dar_model *m, const struct dar_config *config)
{
    memset(m, 0, sizeof *m);
    m->config = *config;
    if (!m->config.algorithm)
        die(EX_SOFTWARE, "BUG: a model of no algorithm (the caller picks the registry's entry)");
    if (m->config.algorithm->layouts[config->variant].nnets == 0)
        die(EX_USAGE, "the %s algorithm has no %s variant", m->config.algorithm->name,
            dar_variant_name(config->variant));
    if (config->hidden < 1)
        die(EX_SOFTWARE, "BUG: hidden size %d", config->hidden);
    if (config->phased && !m->config.algorithm->phased_probes)
        die(EX_USAGE, "the %s algorithm has no phased trace", m->config.algorithm->name);
    struct layout L = {m, 0, false};
    layout_model(&L);
    m->count = L.offset;
    m->values = xcalloc((size_t)m->count, sizeof(float));
    m->grads = xcalloc((size_t)m->count, sizeof(float));
    L = (struct layout){m, 0, true};
    layout_model(&L);
}

void dar_model_init(struct dar_model *m, const struct dar_config *config, uint64_t seed)
{
    dar_model_create(m, config);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("init"), 0);
    for (int k = 0; k < m->nparams; k++)
        param_init_uniform(m->params[k].value, m->params[k].count, m->info[k].fan_in, &r);
    /* Haiku's: a layer norm starts as the identity, a gate mostly shut
     * (σ(−3) ≈ 0.05: the state carried nearly unchanged) */
    int H = m->config.hidden;
    for (int j = 0; j < m->nnets; j++) {
        struct dar_net *net = &m->nets[j];
        for (int h = 0; m->config.layer_norm && h < H; h++) {
            net->ln_scale[h] = 1.0f;
            net->ln_offset[h] = 0.0f;
        }
        for (int h = 0; m->config.gated && h < H; h++)
            net->g3.bias[h] = -3.0f;
    }
}

void dar_model_free(struct dar_model *m)
{
    free(m->values);
    free(m->grads);
    memset(m, 0, sizeof *m);
}

int dar_net_index(const struct dar_model *m, const char *name)
{
    for (int j = 0; j < m->nnets; j++)
        if (strcmp(m->nets[j].name, name) == 0)
            return j;
    return -1;
}

int dar_param_index(const struct dar_model *m, const char *name)
{
    for (int k = 0; k < m->nparams; k++)
        if (strcmp(m->info[k].name, name) == 0)
            return k;
    return -1;
}

/* ---- records ---------------------------------------------------------------- */

void dar_params_write(struct writer *w, const struct dar_model *m, const float *values)
{
    if (!values)
        values = m->values;
    mp_map(w, (uint32_t)m->nparams);
    int64_t offset = 0;
    for (int k = 0; k < m->nparams; k++) {
        const struct dar_param_info *in = &m->info[k];
        mp_key(w, in->name);
        mp_tensor(w, DT_F32, in->ndim, in->shape, values + offset);
        offset += m->params[k].count;
    }
}

void dar_model_write_begin(struct writer *w, const struct dar_model *m, const float *values, int n_extra)
{
    mp_map(w, (uint32_t)(9 + m->config.vessel_inputs + m->config.edge_pointer + m->config.layer_norm +
                         m->config.gated + m->config.soft_hints + m->config.triplets + m->config.phased +
                         n_extra));
    mp_key(w, "kind");      mp_str(w, "model");
    mp_key(w, "format");    mp_int(w, 1);
    mp_key(w, "algorithm"); mp_str(w, m->config.algorithm->name);
    mp_key(w, "variant");   mp_str(w, dar_variant_name(m->config.variant));
    mp_key(w, "processor"); mp_str(w, dar_processor_name(m->config.processor));
    mp_key(w, "agg");       mp_str(w, dar_agg_name(m->config.agg));
    mp_key(w, "hidden");    mp_int(w, m->config.hidden);
    mp_key(w, "leak_cut");  mp_bool(w, m->config.leak_dual);
    if (m->config.vessel_inputs) {
        mp_key(w, "edge_inputs"); mp_str(w, "vessel");
    }
    /* written only when set, so the records of models without it keep their bytes */
    if (m->config.edge_pointer) {
        mp_key(w, "pointer_head"); mp_str(w, "edge");
    }
    if (m->config.layer_norm) {
        mp_key(w, "layer_norm"); mp_bool(w, true);
    }
    if (m->config.gated) {
        mp_key(w, "gated"); mp_bool(w, true);
    }
    if (m->config.soft_hints) {
        mp_key(w, "soft_hints"); mp_bool(w, true);
    }
    if (m->config.triplets) {
        mp_key(w, "triplets"); mp_bool(w, true);
    }
    if (m->config.phased) {
        mp_key(w, "phased"); mp_bool(w, true);
    }
    mp_key(w, "params");    dar_params_write(w, m, values);
}

void dar_model_write(struct writer *w, const struct dar_model *m, const float *values)
{
    dar_model_write_begin(w, m, values, 0);
}

static void shape_string(char *buf, size_t size, int ndim, const int64_t *shape)
{
    int len = snprintf(buf, size, "[");
    for (int i = 0; i < ndim && len < (int)size; i++)
        len += snprintf(buf + len, size - (size_t)len, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (len < (int)size)
        snprintf(buf + len, size - (size_t)len, "]");
}

void dar_params_read(const struct dar_model *m, const struct record *rec, const char *key,
                     float *values)
{
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "missing key '%s'", key);
    if (o->type != MSGPACK_OBJECT_MAP)
        record_die(rec, "'%s' is not a map", key);
    const msgpack_object_map *map = &o->via.map;
    bool *seen = xcalloc((size_t)m->nparams, sizeof(bool));
    int64_t *offsets = xmalloc(sizeof(int64_t) * (size_t)m->nparams);
    int64_t off = 0;
    for (int k = 0; k < m->nparams; k++) {
        offsets[k] = off;
        off += m->params[k].count;
    }
    for (uint32_t i = 0; i < map->size; i++) {
        const msgpack_object *ko = &map->ptr[i].key;
        if (ko->type != MSGPACK_OBJECT_STR && ko->type != MSGPACK_OBJECT_BIN)
            record_die(rec, "'%s' has a key that is not a string", key);
        char name[80];
        uint32_t len = ko->type == MSGPACK_OBJECT_STR ? ko->via.str.size : ko->via.bin.size;
        const char *ptr = ko->type == MSGPACK_OBJECT_STR ? ko->via.str.ptr : ko->via.bin.ptr;
        snprintf(name, sizeof name, "%.*s", (int)(len < 79 ? len : 79), ptr);
        int k = dar_param_index(m, name);
        if (k < 0)
            record_die(rec, "'%s' has an unknown entry '%s' for a %s model", key, name,
                       dar_variant_name(m->config.variant));
        if (seen[k])
            record_die(rec, "'%s' has entry '%s' twice", key, name);
        seen[k] = true;
        struct tensor t;
        char err[160];
        if (!tensor_decode(&map->ptr[i].val, &t, err, sizeof err))
            record_die(rec, "'%s' entry '%s' %s", key, name, err);
        const struct dar_param_info *in = &m->info[k];
        bool same = t.ndim == in->ndim;
        for (int d = 0; same && d < in->ndim; d++)
            same = t.shape[d] == in->shape[d];
        if (!same) {
            char got[80], want[80];
            shape_string(got, sizeof got, t.ndim, t.shape);
            shape_string(want, sizeof want, in->ndim, in->shape);
            tensor_free(&t);
            record_die(rec, "'%s' entry '%s' has shape %s, expected %s", key, name, got, want);
        }
        if (t.dtype != DT_F32) {
            enum dtype dt = t.dtype;
            tensor_free(&t);
            record_die(rec, "'%s' entry '%s' has dtype %s, expected <f4", key, name, dtype_name(dt));
        }
        const float *data = t.data;
        for (int64_t j = 0; j < t.count; j++)
            if (!isfinite(data[j])) {
                tensor_free(&t);
                record_die(rec, "'%s' entry '%s' has a non-finite value at %lld", key, name, (long long)j);
            }
        if (t.count)
            memcpy(values + offsets[k], data, sizeof(float) * (size_t)t.count);
        tensor_free(&t);
    }
    for (int k = 0; k < m->nparams; k++)
        if (!seen[k])
            record_die(rec, "'%s' has no entry '%s'", key, m->info[k].name);
    free(seen);
    free(offsets);
}

void dar_model_read(struct dar_model *m, const struct record *rec,
                    const struct dar_algorithm *(*resolve)(const struct record *rec))
{
    char buf[64];
    struct dar_config c = {0};
    record_expect_kind(rec, "model");
    int64_t format = record_int(rec, "format");
    if (format != 1)
        record_die(rec, "'format' is %lld, expected 1", (long long)format);
    c.algorithm = resolve(rec);
    if (!dar_variant_parse(record_str(rec, "variant", buf, sizeof buf), &c.variant))
        record_die(rec, "'variant' is '%s', expected primal, dual, pipeline or no-algo", buf);
    if (!dar_processor_parse(record_str(rec, "processor", buf, sizeof buf), &c.processor))
        record_die(rec, "'processor' is '%s', expected pgn or mpnn", buf);
    if (!dar_agg_parse(record_str(rec, "agg", buf, sizeof buf), &c.agg))
        record_die(rec, "'agg' is '%s', expected max, mean or sum", buf);
    int64_t hidden = record_int(rec, "hidden");
    if (hidden < 1 || hidden > 65536)
        record_die(rec, "'hidden' is %lld, expected 1..65536", (long long)hidden);
    c.hidden = (int)hidden;
    c.leak_dual = record_bool(rec, "leak_cut");
    if (record_has(rec, "edge_inputs")) {
        if (strcmp(record_str(rec, "edge_inputs", buf, sizeof buf), "vessel") == 0)
            c.vessel_inputs = true;
        else if (strcmp(buf, "capacity") != 0)
            record_die(rec, "'edge_inputs' is '%s', expected capacity or vessel", buf);
    }
    if (record_has(rec, "pointer_head")) {
        if (strcmp(record_str(rec, "pointer_head", buf, sizeof buf), "edge") == 0)
            c.edge_pointer = true;
        else if (strcmp(buf, "dot") != 0)
            record_die(rec, "'pointer_head' is '%s', expected dot or edge", buf);
    }
    c.layer_norm = record_has(rec, "layer_norm") && record_bool(rec, "layer_norm");
    c.gated = record_has(rec, "gated") && record_bool(rec, "gated");
    c.soft_hints = record_has(rec, "soft_hints") && record_bool(rec, "soft_hints");
    c.triplets = record_has(rec, "triplets") && record_bool(rec, "triplets");
    c.phased = record_has(rec, "phased") && record_bool(rec, "phased");
    if (c.phased && !c.algorithm->phased_probes)
        record_die(rec, "'phased' is true, but the %s algorithm has no phased trace", c.algorithm->name);
    if (c.algorithm->layouts[c.variant].nnets == 0)
        record_die(rec, "'variant' is '%s', which the %s algorithm has not", dar_variant_name(c.variant),
                   c.algorithm->name);
    dar_model_create(m, &c);
    dar_params_read(m, rec, "params", m->values);
}

void dar_model_load(struct dar_model *m, FILE *f, const char *name,
                    const struct dar_algorithm *(*resolve)(const struct record *rec))
{
    struct reader rd;
    struct record rec;
    reader_init(&rd, f, name);
    if (!reader_next(&rd, &rec))
        die(EX_DATAERR, "'%s' holds no model record", name);
    dar_model_read(m, &rec, resolve);
    reader_expect_end(&rd);
    reader_free(&rd);
}
