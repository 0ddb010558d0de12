/* metric_rows - a test helper: the registry's metric rows as the entries
 * hold them (struct dar_algorithm's `metrics`), read without the metrics
 * tool, so tests/500-metrics.bats can hold its --help against them.
 *
 *   metric_rows > rows.tsv
 *
 * One line per row, entry by entry in the registry's order: the entry's
 * name, the quantity's name, its pooling (mean, confusion, pooled) and its
 * keys separated by spaces, tab-separated; then "fit" when it is scored
 * against --fit's records. */
#include "registry.h"
#include "metric_row.h"
#include <stdio.h>

int main(void)
{
    for (int i = 0; i < dar_algorithm_count; i++)
        for (const struct metric_row *row = dar_algorithms[i]->metrics; row && row->name; row++) {
            printf("%s\t%s\t%s\t", dar_algorithms[i]->name, row->name, metric_pooling_name(row->pooling));
            for (int k = 0; row->keys[k]; k++)
                printf("%s%s", k ? " " : "", row->keys[k]);
            printf("%s\n", row->needs_fit ? "\tfit" : "");
        }
    return 0;
}
