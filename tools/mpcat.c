/* mpcat.c - msgpack records <-> JSON lines (see mpcat.h for the mapping). */
#include "mpcat.h"
#include "die.h"
#include "io.h"
#include "tensor.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Shortest "%.Ng" that reads back to the same value; always marked as a
 * real (has '.', 'e' or is a special) so JSON readers keep it a float. */
static void format_real(char *buf, size_t cap, double v, bool single)
{
    if (isnan(v)) { snprintf(buf, cap, "\"nan\""); return; }
    if (isinf(v)) { snprintf(buf, cap, v > 0 ? "\"inf\"" : "\"-inf\""); return; }
    for (int digits = single ? 6 : 15; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        double back = strtod(buf, NULL);
        if (single ? (float)back == (float)v : back == v)
            break;
    }
    if (!strpbrk(buf, ".eEn"))
        strncat(buf, ".0", cap - strlen(buf) - 1);
}

static void put(FILE *out, const char *s) { io_write(out, s, strlen(s)); }

static void put_string(FILE *out, const char *s, size_t n)
{
    char buf[8];
    io_write(out, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { buf[0] = '\\'; buf[1] = (char)c; io_write(out, buf, 2); }
        else if (c < 0x20) { snprintf(buf, sizeof buf, "\\u%04x", c); put(out, buf); }
        else io_write(out, &s[i], 1);
    }
    io_write(out, "\"", 1);
}

static double element(const struct tensor *t, int64_t i)
{
    switch (t->dtype) {
    case DT_F32: return ((float *)t->data)[i];
    case DT_F64: return ((double *)t->data)[i];
    case DT_I32: return ((int32_t *)t->data)[i];
    case DT_I64: return (double)((int64_t *)t->data)[i];
    case DT_U8: case DT_BOOL: return ((uint8_t *)t->data)[i];
    default: return 0;
    }
}

static void put_element(FILE *out, const struct tensor *t, int64_t i)
{
    char buf[48];
    switch (t->dtype) {
    case DT_F32: format_real(buf, sizeof buf, ((float *)t->data)[i], true); break;
    case DT_F64: format_real(buf, sizeof buf, ((double *)t->data)[i], false); break;
    case DT_I64: snprintf(buf, sizeof buf, "%lld", (long long)((int64_t *)t->data)[i]); break;
    case DT_BOOL: snprintf(buf, sizeof buf, "%s", ((uint8_t *)t->data)[i] ? "true" : "false"); break;
    default: snprintf(buf, sizeof buf, "%lld", (long long)element(t, i)); break;
    }
    put(out, buf);
}

static void put_tensor(FILE *out, const struct tensor *t, bool summary)
{
    char buf[64];
    put(out, "{\"dtype\":\"");
    put(out, dtype_name(t->dtype));
    put(out, "\",\"shape\":[");
    for (int d = 0; d < t->ndim; d++) {
        snprintf(buf, sizeof buf, "%s%lld", d ? "," : "", (long long)t->shape[d]);
        put(out, buf);
    }
    put(out, "]");
    if (summary) {
        if (t->count > 0) {
            double lo = INFINITY, hi = -INFINITY, sum = 0;
            for (int64_t i = 0; i < t->count; i++) {
                double v = element(t, i);
                lo = fmin(lo, v);
                hi = fmax(hi, v);
                sum += v;
            }
            char a[48], b[48], c[48];
            bool single = t->dtype == DT_F32;   /* min and max are elements: print them as such */
            format_real(a, sizeof a, lo, single);
            format_real(b, sizeof b, hi, single);
            format_real(c, sizeof c, sum / (double)t->count, false);
            put(out, ",\"min\":"); put(out, a);
            put(out, ",\"max\":"); put(out, b);
            put(out, ",\"mean\":"); put(out, c);
        }
        put(out, "}");
        return;
    }
    put(out, ",\"data\":[");
    for (int64_t i = 0; i < t->count; i++) {
        if (i)
            io_write(out, ",", 1);
        put_element(out, t, i);
    }
    put(out, "]}");
}

static void put_object(FILE *out, const msgpack_object *o, bool summary, long rec)
{
    char buf[48];
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: put(out, "null"); break;
    case MSGPACK_OBJECT_BOOLEAN: put(out, o->via.boolean ? "true" : "false"); break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->via.u64); put(out, buf); break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: snprintf(buf, sizeof buf, "%lld", (long long)o->via.i64); put(out, buf); break;
    case MSGPACK_OBJECT_FLOAT32: format_real(buf, sizeof buf, o->via.f64, true); put(out, buf); break;
    case MSGPACK_OBJECT_FLOAT64: format_real(buf, sizeof buf, o->via.f64, false); put(out, buf); break;
    case MSGPACK_OBJECT_STR: put_string(out, o->via.str.ptr, o->via.str.size); break;
    case MSGPACK_OBJECT_BIN:
        put(out, "{\"$bin\":\"");
        for (uint32_t i = 0; i < o->via.bin.size; i++) {
            snprintf(buf, sizeof buf, "%02x", (unsigned char)o->via.bin.ptr[i]);
            put(out, buf);
        }
        put(out, "\"}");
        break;
    case MSGPACK_OBJECT_ARRAY:
        put(out, "[");
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i) put(out, ",");
            put_object(out, &o->via.array.ptr[i], summary, rec);
        }
        put(out, "]");
        break;
    case MSGPACK_OBJECT_MAP:
        if (tensor_is(o)) {
            struct tensor t;
            char err[160];
            if (!tensor_decode(o, &t, err, sizeof err))
                die_record(rec, "tensor %s", err);
            put_tensor(out, &t, summary);
            tensor_free(&t);
            break;
        }
        put(out, "{");
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            if (i) put(out, ",");
            if (k->type == MSGPACK_OBJECT_STR) put_string(out, k->via.str.ptr, k->via.str.size);
            else if (k->type == MSGPACK_OBJECT_BIN) put_string(out, k->via.bin.ptr, k->via.bin.size);
            else die_record(rec, "a nested map has a key that is not a string");
            put(out, ":");
            put_object(out, &o->via.map.ptr[i].val, summary, rec);
        }
        put(out, "}");
        break;
    default:
        die_record(rec, "unsupported msgpack type (extension)");
    }
}

void mpcat_write_json(FILE *out, const struct record *rec, bool summary)
{
    put_object(out, rec->map, summary, rec->index);
    put(out, "\n");
}

/* ---- JSON -> msgpack ---- */

static bool json_number(json_t *v, double *x)
{
    if (json_is_integer(v)) { *x = (double)json_integer_value(v); return true; }
    if (json_is_real(v)) { *x = json_real_value(v); return true; }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (!strcmp(s, "nan")) { *x = NAN; return true; }
        if (!strcmp(s, "inf")) { *x = INFINITY; return true; }
        if (!strcmp(s, "-inf")) { *x = -INFINITY; return true; }
    }
    if (json_is_boolean(v)) { *x = json_is_true(v); return true; }
    return false;
}

/* The range of an integer dtype, for the values a JSON tensor may give. */
static bool dtype_integer_range(enum dtype type, double *low, double *high)
{
    switch (type) {
    case DT_I32: *low = INT32_MIN; *high = INT32_MAX; return true;
    case DT_I64: *low = -0x1p63; *high = 0x1p63; return true;   /* high excluded below */
    case DT_U8: *low = 0; *high = 255; return true;
    case DT_BOOL: *low = 0; *high = 1; return true;
    default: return false;
    }
}

/* An object with exactly dtype, shape and data is a tensor. */
static bool json_tensor(struct writer *w, json_t *o, long line)
{
    if (json_object_size(o) != 3)
        return false;
    json_t *dt = json_object_get(o, "dtype"), *shape = json_object_get(o, "shape"), *data = json_object_get(o, "data");
    if (!json_is_string(dt) || !json_is_array(shape) || !json_is_array(data))
        return false;
    enum dtype type;
    const char *ds = json_string_value(dt);
    if (!dtype_parse(ds, strlen(ds), &type))
        die_record(line, "tensor has unsupported dtype '%s'", ds);
    int ndim = (int)json_array_size(shape);
    if (ndim > TENSOR_MAX_DIMS)
        die_record(line, "tensor has more than %d dimensions", TENSOR_MAX_DIMS);
    int64_t shp[TENSOR_MAX_DIMS], count = 1;
    for (int d = 0; d < ndim; d++) {
        json_t *x = json_array_get(shape, (size_t)d);
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            die_record(line, "tensor shape entry %d is not a non-negative integer", d);
        shp[d] = json_integer_value(x);
        if (__builtin_mul_overflow(count, shp[d], &count))
            die_record(line, "tensor shape asks for more values than exist");
    }
    if ((int64_t)json_array_size(data) != count)
        die_record(line, "tensor has %zu values, expected %lld for its shape", json_array_size(data), (long long)count);
    struct tensor t;
    tensor_alloc(&t, type, ndim, shp);
    for (int64_t i = 0; i < count; i++) {
        json_t *x = json_array_get(data, (size_t)i);
        double v;
        if (!json_number(x, &v))
            die_record(line, "tensor value %lld is not a number", (long long)i);
        /* an integer dtype holds integers of its range: anything else
         * would be truncated or wrap (or be undefined, for NaN) */
        double low, high;
        if (dtype_integer_range(type, &low, &high) && !json_is_integer(x) &&
            !(v >= low && v <= high && v == floor(v) && !(type == DT_I64 && v == high)))
            die_record(line, "tensor value %lld is %.17g, not an integer a %s holds", (long long)i, v, dtype_name(type));
        if (dtype_integer_range(type, &low, &high) && json_is_integer(x) && type != DT_I64 &&
            (json_integer_value(x) < (json_int_t)low || json_integer_value(x) > (json_int_t)high))
            die_record(line, "tensor value %lld is %lld, not an integer a %s holds", (long long)i,
                       (long long)json_integer_value(x), dtype_name(type));
        switch (type) {
        case DT_F32: ((float *)t.data)[i] = (float)v; break;
        case DT_F64: ((double *)t.data)[i] = v; break;
        case DT_I32: ((int32_t *)t.data)[i] = (int32_t)v; break;   /* in range, checked above */
        case DT_I64: ((int64_t *)t.data)[i] = json_is_integer(x) ? json_integer_value(x) : (int64_t)v; break;
        case DT_U8: case DT_BOOL: ((uint8_t *)t.data)[i] = (uint8_t)v; break;
        default: break;
        }
    }
    mp_tensor(w, type, ndim, shp, t.data);
    tensor_free(&t);
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void json_value(struct writer *w, json_t *v, long line)
{
    switch (json_typeof(v)) {
    case JSON_NULL: mp_nil(w); break;
    case JSON_TRUE: mp_bool(w, true); break;
    case JSON_FALSE: mp_bool(w, false); break;
    case JSON_INTEGER: mp_int(w, json_integer_value(v)); break;
    case JSON_REAL: mp_double(w, json_real_value(v)); break;
    case JSON_STRING: {
        const char *s = json_string_value(v);
        msgpack_pack_str_with_body(&w->pk, s, json_string_length(v));
        break;
    }
    case JSON_ARRAY:
        mp_array(w, (uint32_t)json_array_size(v));
        for (size_t i = 0; i < json_array_size(v); i++)
            json_value(w, json_array_get(v, i), line);
        break;
    case JSON_OBJECT: {
        if (json_tensor(w, v, line))
            break;
        json_t *bin = json_object_get(v, "$bin");
        if (json_object_size(v) == 1 && json_is_string(bin)) {
            const char *hex = json_string_value(bin);
            if (strlen(hex) % 2)
                die_record(line, "'$bin' is not hexadecimal");
            size_t n = strlen(hex) / 2;
            char *bytes = xmalloc(n + 1);
            for (size_t i = 0; i < n; i++) {
                int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
                if (hi < 0 || lo < 0)
                    die_record(line, "'$bin' is not hexadecimal");
                bytes[i] = (char)(hi * 16 + lo);
            }
            msgpack_pack_bin_with_body(&w->pk, bytes, n);
            free(bytes);
            break;
        }
        mp_map(w, (uint32_t)json_object_size(v));
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val) {
            mp_key(w, key);
            json_value(w, val, line);
        }
        break;
    }
    }
}

void mpcat_from_jsonl(FILE *in, const char *name, struct writer *w)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long index = 0, lineno = 0;
    while ((len = getline(&line, &cap, in)) > 0) {
        lineno++;
        size_t i = 0;
        while (i < (size_t)len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r'))
            i++;
        if (i == (size_t)len)
            continue;   /* blank line */
        json_error_t jerr;
        json_t *j = json_loadb(line, (size_t)len, JSON_DECODE_INT_AS_REAL * 0, &jerr);
        if (!j) {
            free(line);
            die(EX_DATAERR, "%s: line %ld: invalid JSON: %s", name, lineno, jerr.text);
        }
        if (!json_is_object(j)) {
            json_decref(j);
            free(line);
            die(EX_DATAERR, "%s: line %ld: record %ld is not a JSON object", name, lineno, index);
        }
        /* {"$bin": ...} stands for a bin: it would be written as a record
         * that is no map (found by fuzzing) */
        if (json_object_size(j) == 1 && json_is_string(json_object_get(j, "$bin"))) {
            json_decref(j);
            free(line);
            die(EX_DATAERR, "%s: line %ld: record %ld is a '$bin' object, not a record", name, lineno, index);
        }
        json_value(w, j, index);
        json_decref(j);
        index++;
    }
    free(line);
    if (ferror(in))
        die(EX_IOERR, "read error on '%s':", name);
}
