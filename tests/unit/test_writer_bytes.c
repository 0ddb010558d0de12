/* Unit tests of the writer's fast paths against msgpack-c's own packing:
 * the buffered writer, tensor headers written in one piece
 * (mp_tensor, mp_tensor_reserve) and tensors repacked from their objects
 * (mp_tensor_object) must give exactly the bytes msgpack-c gives token by
 * token, for every dtype and for sizes on each side of msgpack's encoding
 * boundaries. */
#include "check.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>

/* The tensor as msgpack-numpy spells it, token by token with msgpack-c. */
static void reference_tensor(msgpack_sbuffer *sb, enum dtype dt, int ndim, const int64_t *shape, const void *data)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    int64_t count = 1;
    for (int i = 0; i < ndim; i++)
        count *= shape[i];
    size_t nbytes = (size_t)count * dtype_size(dt);
    msgpack_pack_map(&pk, 5);
    msgpack_pack_bin_with_body(&pk, "nd", 2);
    msgpack_pack_true(&pk);
    msgpack_pack_bin_with_body(&pk, "type", 4);
    msgpack_pack_str_with_body(&pk, dtype_name(dt), strlen(dtype_name(dt)));
    msgpack_pack_bin_with_body(&pk, "kind", 4);
    msgpack_pack_bin_with_body(&pk, "", 0);
    msgpack_pack_bin_with_body(&pk, "shape", 5);
    msgpack_pack_array(&pk, (size_t)ndim);
    for (int i = 0; i < ndim; i++)
        msgpack_pack_int64(&pk, shape[i]);
    msgpack_pack_bin_with_body(&pk, "data", 4);
    msgpack_pack_bin(&pk, nbytes);
    msgpack_pack_bin_body(&pk, data, nbytes);
}

enum { WRITE_TENSOR, WRITE_RESERVED, WRITE_FROM_OBJECT, WRITE_UNBUFFERED };

/* The same tensor through one of the writer's paths; returns the bytes
 * (malloc'ed) and their count in *len. */
static char *written_tensor(int how, enum dtype dt, int ndim, const int64_t *shape, const void *data,
                            const msgpack_object *as_object, size_t *len)
{
    char *bytes = NULL;
    FILE *f = open_memstream(&bytes, len);
    struct writer w;
    if (how == WRITE_UNBUFFERED)
        writer_init(&w, f);
    else
        writer_init_buffered(&w, f);
    int64_t count = 1;
    for (int i = 0; i < ndim; i++)
        count *= shape[i];
    size_t nbytes = (size_t)count * dtype_size(dt);
    if (how == WRITE_RESERVED) {
        void *room = mp_tensor_reserve(&w, dt, ndim, shape);
        if (room)
            memcpy(room, data, nbytes);
        else
            mp_tensor(&w, dt, ndim, shape, data);
    } else if (how == WRITE_FROM_OBJECT) {
        if (!mp_tensor_object(&w, as_object))
            mp_str(&w, "not repacked");
    } else {
        mp_tensor(&w, dt, ndim, shape, data);
    }
    writer_flush(&w);
    fclose(f);
    return bytes;
}

static void test_tensor_paths(void)
{
    /* shapes on both sides of fixint/uint8/uint16/uint32 and of bin8/16/32 */
    static const int64_t shapes[][3] = {
        {0, 0, 0}, {1, 0, 0}, {3, 0, 0}, {127, 0, 0}, {128, 0, 0}, {255, 0, 0}, {256, 0, 0},
        {65535, 0, 0}, {65536, 0, 0}, {70000, 0, 0}, {2, 3, 0}, {50, 128, 0}, {4, 5, 6}, {1, 1, 300},
    };
    static const int ndims[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3};
    char *data = calloc(1, 70000 * 8);
    for (size_t i = 0; i < 70000 * 8; i++)
        data[i] = (char)(i * 7 + 3);
    int mismatches = 0, checked = 0;
    for (int dt = 0; dt < DT_COUNT; dt++)
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
            msgpack_sbuffer ref;
            msgpack_sbuffer_init(&ref);
            reference_tensor(&ref, (enum dtype)dt, ndims[k], shapes[k], data);
            msgpack_unpacked u;
            msgpack_unpacked_init(&u);
            msgpack_unpack_next(&u, ref.data, ref.size, NULL);
            for (int how = WRITE_TENSOR; how <= WRITE_UNBUFFERED; how++) {
                size_t len;
                char *got = written_tensor(how, (enum dtype)dt, ndims[k], shapes[k], data, &u.data, &len);
                checked++;
                if (len != ref.size || memcmp(got, ref.data, len) != 0) {
                    if (mismatches++ == 0)
                        printf("# first mismatch: dtype %s, shape [%lld,...] of %d, path %d\n", dtype_name(dt),
                               (long long)shapes[k][0], ndims[k], how);
                }
                free(got);
            }
            msgpack_unpacked_destroy(&u);
            msgpack_sbuffer_destroy(&ref);
        }
    free(data);
    CHECK(mismatches == 0, "tensor bytes: mp_tensor, mp_tensor_reserve, mp_tensor_object, buffered or not, "
          "equal msgpack-c's tokens (%d of %d differ)", mismatches, checked);
}

/* Tensors spelled otherwise are left to msgpack_pack_object. */
static void test_tensor_object_declines(void)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    int declined = 0, cases = 0;
    for (int variant = 0; variant < 5; variant++) {
        msgpack_sbuffer_init(&sb);
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, variant == 4 ? 6 : 5);
        if (variant == 0)
            msgpack_pack_str_with_body(&pk, "nd", 2);      /* str keys */
        else
            msgpack_pack_bin_with_body(&pk, "nd", 2);
        msgpack_pack_true(&pk);
        msgpack_pack_bin_with_body(&pk, "type", 4);
        msgpack_pack_str_with_body(&pk, variant == 1 ? "<u1" : "|u1", 3);   /* not the name we write */
        msgpack_pack_bin_with_body(&pk, "kind", 4);
        msgpack_pack_bin_with_body(&pk, "", 0);
        msgpack_pack_bin_with_body(&pk, "shape", 5);
        msgpack_pack_array(&pk, 1);
        msgpack_pack_int64(&pk, variant == 2 ? 4 : 3);     /* shape and data disagree */
        msgpack_pack_bin_with_body(&pk, "data", 4);
        msgpack_pack_bin_with_body(&pk, variant == 3 ? "abcd" : "abc", variant == 3 ? 4 : 3);
        if (variant == 4) {
            msgpack_pack_bin_with_body(&pk, "more", 4);
            msgpack_pack_nil(&pk);
        }
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        msgpack_unpack_next(&u, sb.data, sb.size, NULL);
        char *bytes = NULL;
        size_t len;
        FILE *f = open_memstream(&bytes, &len);
        struct writer w;
        writer_init_buffered(&w, f);
        cases++;
        declined += !mp_tensor_object(&w, &u.data);
        writer_flush(&w);
        fclose(f);
        declined -= len != 0;       /* declining writes nothing */
        free(bytes);
        msgpack_unpacked_destroy(&u);
        msgpack_sbuffer_destroy(&sb);
    }
    CHECK(declined == cases, "mp_tensor_object declines str keys, another dtype spelling, a shape that "
          "disagrees with the data, and extra keys, writing nothing (%d of %d)", declined, cases);
}

int main(void)
{
    check_file_name = "writer_bytes";
    test_tensor_paths();
    test_tensor_object_declines();
    return check_done();
}
