/* stream_echo - a test helper around the record reader (common/records/stream.c).
 *
 *   stream_echo [--raw] [--read-size N] < in.mp > out.mp
 *
 * Reads every record, by reader_next() (every tool's way) or with --raw by
 * reader_next_raw() + record_parse() (ff-trace's threads), and writes it back
 * as msgpack-c packs the parsed object.  A stream whose every header has its
 * smallest size (what msgpack-c and Python's msgpack write) comes out byte
 * for byte as it went in.  --read-size caps the bytes each fill of the
 * reader takes (struct reader's read_limit), so that every header and
 * payload straddles a fill somewhere. */
#include "cli.h"
#include "die.h"
#include "io.h"
#include "stream.h"
#include <stdlib.h>

static bool raw;
static int64_t read_size = 0;

static const struct cli_option options[] = {
    CLI_FLAG("raw", 0, raw, "read by reader_next_raw() + record_parse()"),
    CLI_INT("read-size", 0, read_size, "N", "bytes each fill reads at most (0: no cap)", 0, 1 << 30),
    {0},
};

static const struct cli_spec spec = {
    "stream_echo", "[--raw] [--read-size N] < in.mp > out.mp",
    "Test helper: read every record as the tools do and write it back as\n"
    "msgpack-c packs the parsed object.",
    "python3 make_streams.py | stream_echo --read-size 7 | cmp - in.mp",
    options,
    NULL,
};

static void put(struct writer *w, const struct record *rec)
{
    mp_object(w, rec->map);
}

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    FILE *out = io_open_output("-", 1, 0);
    struct reader rd;
    struct writer w;
    reader_init(&rd, stdin, NULL);
    rd.read_limit = (size_t)read_size;
    writer_init_buffered(&w, out);
    if (raw) {
        const char *bytes;
        size_t size;
        while (reader_next_raw(&rd, &bytes, &size)) {
            msgpack_zone zone;
            struct record rec;
            msgpack_zone_init(&zone, 4096);
            record_parse(&rec, bytes, size, rd.index, NULL, &zone);
            put(&w, &rec);
            msgpack_zone_destroy(&zone);
        }
    } else {
        struct record rec;
        while (reader_next(&rd, &rec)) {
            /* the length guard must have measured the very record msgpack-c
             * parsed (reader_next checks it too; a reader that does not
             * would pass this test silently without it) */
            uint64_t parsed_to = rd.fed - (rd.u.used - rd.u.off);
            if (rd.guard.depth >= 0 || rd.guard.pos != parsed_to)
                die(EX_SOFTWARE, "record %ld: the length guard stopped at byte %llu, msgpack-c at %llu",
                    rec.index, (unsigned long long)rd.guard.pos, (unsigned long long)parsed_to);
            put(&w, &rec);
        }
    }
    writer_flush(&w);
    reader_free(&rd);
    io_close_output(out);
    return 0;
}
