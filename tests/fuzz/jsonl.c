/* jsonl: JSON lines as `mpcat --to-msgpack` reads them (mpcat_from_jsonl).
 * What it writes must be a stream of records the record reader reads back
 * without error; printing it again (mpcat) may still refuse a map that
 * claims to be a tensor ({"nd": ...}) and is not one, with exit 65. */
#include "harness.h"
#include "mpcat.h"
#include "stream.h"

struct input {
    const uint8_t *data;
    size_t size;
    bool reading_back;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct writer w;
    writer_init_memory(&w);
    mpcat_from_jsonl(in, "<fuzz>", &w);
    fclose(in);
    /* read back: any error here is a finding */
    p->reading_back = true;
    FILE *back = harness_input((const uint8_t *)w.buffer, w.buffered);
    struct reader rd;
    struct record rec;
    reader_init(&rd, back, "<written>");
    long records = 0;
    while (reader_next(&rd, &rec))
        records++;
    reader_free(&rd);
    fclose(back);
    p->reading_back = false;
    back = harness_input((const uint8_t *)w.buffer, w.buffered);
    reader_init(&rd, back, "<written>");
    while (reader_next(&rd, &rec))
        mpcat_write_json(harness_sink(), &rec, false);
    reader_free(&rd);
    fclose(back);
    writer_flush(&w);
    (void)records;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    int code = harness_run(run, &in);
    if (code && in.reading_back) {
        fprintf(harness_report, "mpcat --to-msgpack wrote a stream that does not read back: %s\n",
                harness_caught.message);
        abort();
    }
    harness_expect(code, 0);
    return 0;
}
