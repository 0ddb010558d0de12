/* curve.c - the training curve of curve.h. */
#include "curve.h"
#include "die.h"
#include "io.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void curve_init(struct curve *c, int ncolumns, const char *const *names)
{
    memset(c, 0, sizeof *c);
    c->ncolumns = ncolumns;
    c->names = names;
    c->columns = xcalloc((size_t)ncolumns, sizeof *c->columns);
}

void curve_free(struct curve *c)
{
    for (int j = 0; j < c->ncolumns; j++)
        free(c->columns[j]);
    free(c->columns);
    free(c->seconds);
    memset(c, 0, sizeof *c);
}

void curve_add(struct curve *c, const double *row, double seconds)
{
    if (c->rows == c->room) {
        c->room = c->room ? 2 * c->room : 1024;
        for (int j = 0; j < c->ncolumns; j++)
            c->columns[j] = xrealloc(c->columns[j], sizeof(double) * (size_t)c->room);
        c->seconds = xrealloc(c->seconds, sizeof(double) * (size_t)c->room);
    }
    for (int j = 0; j < c->ncolumns; j++)
        c->columns[j][c->rows] = row[j];
    c->seconds[c->rows++] = seconds;
}

void curve_write(struct writer *w, const struct curve *c)
{
    mp_map(w, c->ncolumns);
    for (int j = 0; j < c->ncolumns; j++) {
        mp_key(w, c->names[j]);
        mp_vector(w, DT_F64, c->rows, c->columns[j]);
    }
}

void curve_read(struct curve *c, const struct record *map, int ncolumns,
                const char *const *names)
{
    curve_init(c, ncolumns, names);
    struct tensor first;
    record_tensor(map, names[0], DT_F64, 1, NULL, &first);
    int64_t rows = first.count;
    tensor_free(&first);
    for (int j = 0; j < ncolumns; j++)
        c->columns[j] = record_vector(map, names[j], DT_F64, rows);
    c->rows = c->room = rows;
    c->seconds = xmalloc(sizeof(double) * (size_t)(rows + 1));
    for (int64_t i = 0; i < rows; i++)
        c->seconds[i] = NAN;
}

void curve_write_log(const struct curve *c, const char *path)
{
    FILE *log = io_open_output(path, 0, 1);
    fputs(c->names[0], log);
    for (int j = 1; j < c->ncolumns; j++)
        fprintf(log, "\t%s", c->names[j]);
    fputs("\tseconds\n", log);
    for (int64_t i = 0; i < c->rows; i++) {
        fprintf(log, "%.0f", c->columns[0][i]);
        for (int j = 1; j < c->ncolumns; j++)
            if (isnan(c->columns[j][i]))
                fputs("\t", log);
            else
                fprintf(log, "\t%.9g", c->columns[j][i]);
        if (isnan(c->seconds[i]))
            fputs("\t\n", log);
        else
            fprintf(log, "\t%.3f\n", c->seconds[i]);
    }
    io_close_output(log);
}

void curve_log_from_model(FILE *model, const char *name, const char *const *path, curve_columns_of *columns_of,
                          const char *log_path)
{
    struct reader rd;
    struct record rec;
    reader_init(&rd, model, name);
    if (!reader_next(&rd, &rec))
        die(EX_DATAERR, "'%s' holds no model record", name);
    struct record at = rec;
    for (int i = 0; path[i]; i++) {
        const msgpack_object *o = record_find(&at, path[i]);
        if (!o || o->type != MSGPACK_OBJECT_MAP)
            die(EX_DATAERR, "'%s' holds no training curve", name);
        at = (struct record){o, rec.index, rec.source};
    }
    int ncolumns;
    const char *const *names;
    columns_of(&rec, &ncolumns, &names);
    struct curve c;
    curve_read(&c, &at, ncolumns, names);
    curve_write_log(&c, log_path);
    curve_free(&c);
    reader_free(&rd);
}
