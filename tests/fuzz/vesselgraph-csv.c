/* vesselgraph-csv: the VesselGraph CSV pair as gen-graphs
 * --from-vesselgraph reads it (vesselgraph_read, then vessel_write).  The
 * input is the nodes file, a NUL byte, the edges file; they are written to
 * a directory of their own (under /dev/shm when there is one). */
#include "harness.h"
#include "vessel.h"
#include "vesselgraph_csv.h"
#include <sys/stat.h>

static char dir[256], nodes_path[300], edges_path[300];

static void write_file(const char *path, const uint8_t *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0)
        abort();
}

static void run(void *ctx)
{
    (void)ctx;
    struct vessel_graph v;
    vesselgraph_read(dir, 1, &v);
    struct writer w;
    writer_init(&w, harness_sink());
    vessel_write(&w, &v);
    vessel_free(&v);
}

static void remove_directory(void)
{
    unlink(nodes_path);
    unlink(edges_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/dar-fuzz-vesselgraph.%d", base, (int)getpid());
    if (mkdir(dir, 0700) != 0)
        abort();
    snprintf(nodes_path, sizeof nodes_path, "%s/fuzz_nodes_processed.csv", dir);
    snprintf(edges_path, sizeof edges_path, "%s/fuzz_edges_processed.csv", dir);
    atexit(remove_directory);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *split = memchr(data, 0, size);
    size_t nodes = split ? (size_t)(split - data) : size;
    write_file(nodes_path, data, nodes);
    write_file(edges_path, split ? split + 1 : data, split ? size - nodes - 1 : 0);
    harness_expect(harness_run(run, NULL), 0);
    return 0;
}
