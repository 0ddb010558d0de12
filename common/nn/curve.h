/* curve.h - a training curve: named columns of doubles, one row per
 * iteration (the first column is the iteration), and the seconds each row
 * was reached at.  dar-fit and edge-embed --reconstruct keep it in their
 * model record (a map of f64 vectors, without the seconds), so a cache hit
 * or a resumed run writes the same TSV log. */
#ifndef DAR_CURVE_H
#define DAR_CURVE_H
#include <stdint.h>
#include "stream.h"

struct curve {
    int ncolumns;
    const char *const *names;   /* [ncolumns] the caller's, names[0] the iteration */
    int64_t rows, room;
    double **columns;           /* [ncolumns][room] */
    double *seconds;            /* [room] elapsed time; NaN: not known (read from a record) */
};

void curve_init(struct curve *c, int ncolumns, const char *const *names);
void curve_free(struct curve *c);
/* Append row (ncolumns values) reached at seconds. */
void curve_add(struct curve *c, const double *row, double seconds);
/* Pack the curve as a map name -> f64 vector (the value, not the key). */
void curve_write(struct writer *w, const struct curve *c);
/* Read a map packed by curve_write into c (initialised here, with
 * ncolumns and names; seconds unknown): every column must be there with
 * the first column's length.  Dies with exit 65 naming the record. */
void curve_read(struct curve *c, const struct record *map, int ncolumns,
                const char *const *names);
/* Write the TSV log to path: a header of the names and "seconds", the
 * iteration as an integer, values as %.9g, seconds as %.3f; a NaN value or
 * an unknown time is an empty cell. */
void curve_write_log(const struct curve *c, const char *path);

/* The columns of a stored curve, from the record that holds it (a DAR
 * model record names its algorithm, whose losses are the columns). */
typedef void curve_columns_of(const struct record *rec, int *ncolumns, const char *const **names);
/* The TSV log of the curve a tool keeps in its model record, for a cache
 * hit (cache.h's write_log): the first record of model, the map under the
 * keys of path (NULL-terminated) read with the columns columns_of gives.
 * Dies (65) naming the file when it has no record or no such map. */
void curve_log_from_model(FILE *model, const char *name, const char *const *path, curve_columns_of *columns_of,
                          const char *log_path);

#endif
