/* mpcat.h - streams as JSON lines, for people and for tests (bin/mpcat).
 *
 * Tensors print as {"dtype": "<f4", "shape": [2, 3], "data": [...]} (or, in
 * summary mode, with "min", "max", "mean" instead of "data").  Floats print
 * with the fewest digits that read back to the same value, so the round trip
 * JSON -> msgpack -> JSON is lossless; NaN and infinities print as the
 * strings "nan", "inf", "-inf".  A bin that is not a tensor prints as
 * {"$bin": "<hex>"}.  Parsing uses jansson. */
#ifndef DAR_MPCAT_H
#define DAR_MPCAT_H
#include <stdio.h>
#include <stdbool.h>
#include "stream.h"

/* Print one record as one line of JSON. */
void mpcat_write_json(FILE *out, const struct record *rec, bool summary);
/* Read JSON lines from in and write each object as a record; the line number
 * names the record in errors (exit 65). */
void mpcat_from_jsonl(FILE *in, const char *name, struct writer *w);

#endif
