/* test_bellman_ford - the synchronous rounds on hand-made graphs (frames,
 * ties, unreached nodes), the duality check catching each kind of
 * violation, and the hint bound refusing before allocating. */
#include "check.h"
#include "bellman_ford.h"
#include <stdlib.h>
#include <string.h>

/* A path 0-1-2 with a shortcut 0-2, and node 3 alone:
 *   w(0,1) = 0.25, w(1,2) = 0.25, w(0,2) = 0.75. */
static const int32_t path_src[] = {0, 1, 0}, path_dst[] = {1, 2, 2};
static const float path_w[] = {0.25f, 0.25f, 0.75f};

static void test_frames(void)
{
    struct bellman_ford bf;
    char err[256];
    CHECK(bellman_ford_trace(&bf, 4, 3, path_src, path_dst, path_w, 0, true, 1 << 20, err, sizeof err), "traced");
    /* frame 0: only s; round 1: 1 and 2 from s (2 at 0.75); round 2: 2
     * improves to 0.5 through 1; round 3 changes nothing */
    CHECK(bf.steps == 4, "path: T = 4 (3 rounds, the last unchanged), got %d", bf.steps);
    const double want_d[4][4] = {{0, 0, 0, 0}, {0, 0.25, 0.75, 0}, {0, 0.25, 0.5, 0}, {0, 0.25, 0.5, 0}};
    const int32_t want_pi[4][4] = {{0, 1, 2, 3}, {0, 0, 0, 3}, {0, 0, 1, 3}, {0, 0, 1, 3}};
    const uint8_t want_reached[4][4] = {{1, 0, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 0}, {1, 1, 1, 0}};
    bool same = true;
    for (int t = 0; t < 4; t++)
        for (int v = 0; v < 4; v++)
            same &= bf.hint_d[t * 4 + v] == want_d[t][v] && bf.hint_pi[t * 4 + v] == want_pi[t][v] &&
                    bf.hint_reached[t * 4 + v] == want_reached[t][v];
    CHECK(same, "path: every frame's d, pi and reached as worked out by hand");
    CHECK(bf.pi[3] == 3 && bf.d[3] == 0 && !bf.reached[3], "the isolated node points to itself at d = 0");
    CHECK(bellman_ford_check(4, 3, path_src, path_dst, path_w, 0, bf.d, bf.pi, bf.reached, 1e-12, err, sizeof err),
          "the output passes the duality check");
    /* each kind of violation is caught */
    double d[4];
    int32_t pi[4];
    memcpy(d, bf.d, sizeof d);
    d[2] = 0.6;
    CHECK(!bellman_ford_check(4, 3, path_src, path_dst, path_w, 0, d, bf.pi, bf.reached, 1e-12, err, sizeof err),
          "an infeasible potential is refused: %s", err);
    memcpy(pi, bf.pi, sizeof pi);
    pi[2] = 0;
    CHECK(!bellman_ford_check(4, 3, path_src, path_dst, path_w, 0, bf.d, pi, bf.reached, 1e-12, err, sizeof err),
          "a pointer along a slack edge is refused: %s", err);
    pi[2] = 2;
    CHECK(!bellman_ford_check(4, 3, path_src, path_dst, path_w, 0, bf.d, pi, bf.reached, 1e-12, err, sizeof err),
          "a reached node pointing to itself is refused: %s", err);
    bellman_ford_free(&bf);

    CHECK(bellman_ford_trace(&bf, 4, 3, path_src, path_dst, path_w, 3, false, 0, err, sizeof err) && bf.steps == 2 &&
          !bf.hint_d && bf.reached[3] && !bf.reached[0],
          "from the isolated node: 2 frames, nothing else reached, no hints and no bound without hints");
    bellman_ford_free(&bf);
}

/* Two ways to 3 of the same length: through 1 and through 2.  The smaller
 * neighbour wins the tie, whatever the edge order. */
static void test_ties(void)
{
    const int32_t src[] = {0, 0, 2, 1}, dst[] = {2, 1, 3, 3};
    const float w[] = {0.5f, 0.5f, 0.25f, 0.25f};
    struct bellman_ford bf;
    char err[256];
    bellman_ford_trace(&bf, 4, 4, src, dst, w, 0, true, 1 << 20, err, sizeof err);
    CHECK(bf.pi[3] == 1, "a tie between candidates goes to the smaller neighbour (pi[3] = %d)", bf.pi[3]);
    bellman_ford_free(&bf);
}

static void test_bound(void)
{
    struct bellman_ford bf;
    char err[256];
    /* (n+1) * n * 13 bytes: 4 nodes need 260 */
    CHECK(!bellman_ford_trace(&bf, 4, 3, path_src, path_dst, path_w, 0, true, 259, err, sizeof err) && !bf.hint_d,
          "hints over the bound are refused before allocating: %s", err);
    CHECK(bellman_ford_trace(&bf, 4, 3, path_src, path_dst, path_w, 0, true, 260, err, sizeof err),
          "hints at the bound are traced");
    bellman_ford_free(&bf);
    CHECK(!bellman_ford_trace(&bf, 200000000, 0, NULL, NULL, NULL, 0, true, (size_t)1 << 30, err, sizeof err),
          "n = 200,000,000 with hints is refused, not allocated");
}

int main(void)
{
    check_file_name = "test_bellman_ford";
    test_frames();
    test_ties();
    test_bound();
    return check_done();
}
