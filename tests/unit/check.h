/* check.h - the C unit tests' harness: TAP lines ("ok N - name"), one per
 * CHECK, counted by .ci/run with the bats results.  A test file is one
 * main() calling its test functions; it exits 1 if any check failed. */
#ifndef DAR_CHECK_H
#define DAR_CHECK_H
#include <stdio.h>
#include <math.h>

static int check_count, check_failed;
static const char *check_file_name = "unit";

/* One TAP line per named check; failures print the location and detail. */
#define CHECK(cond, ...) do { \
    check_count++; \
    if (cond) { printf("ok %d - %s: ", check_count, check_file_name); printf(__VA_ARGS__); printf("\n"); } \
    else { check_failed++; printf("not ok %d - %s: ", check_count, check_file_name); printf(__VA_ARGS__); \
           printf("\n# failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
    fflush(stdout); \
} while (0)

/* Relative/absolute closeness for floats. */
static inline int check_close(double a, double b, double rel, double abs_tol) {
    if (isnan(a) || isnan(b)) return 0;
    double d = fabs(a - b);
    return d <= abs_tol || d <= rel * fmax(fabs(a), fabs(b));
}

static inline int check_done(void) {
    fprintf(stderr, "%s: %d checks, %d failed\n", check_file_name, check_count, check_failed);
    return check_failed ? 1 : 0;
}

#endif
