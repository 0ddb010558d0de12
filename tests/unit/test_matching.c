/* test_matching - the traced Ford-Fulkerson on the unit network against
 * hand-worked frames (issue 24's example, where an undirected flow would
 * exceed the matching), against Hopcroft-Karp and a brute force on random
 * graphs, the Konig covers, the checks and the hint bound. */
#include "check.h"
#include "hopcroft_karp.h"
#include "matching.h"
#include "rng.h"
#include <stdlib.h>
#include <string.h>

/* A = {0,1,2} (a1,a2,a3), B = {3,4,5} (b1,b2,b3); edges a1b1, a2b1, a3b1,
 * a1b2, a1b3.  nu = 2, the cover {a1, b1}. */
static const int32_t ex_src[] = {0, 1, 2, 0, 0}, ex_dst[] = {3, 3, 3, 4, 5};
static const uint8_t ex_side[] = {0, 0, 0, 1, 1, 1};

static void test_example(void)
{
    struct matching mt;
    char err[256];
    CHECK(matching_trace(&mt, 6, 5, ex_src, ex_dst, ex_side, true, 1 << 20, err, sizeof err), "traced");
    CHECK(mt.size == 2 && mt.steps == 3, "issue 24's example: nu = 2 in 3 searches (got %d, %d)", mt.size, mt.steps);
    /* search 0: all of A free; a1 reaches b1 first (edge 0): augment a1b1.
     * search 1: free a2, a3 reach b1, whose mate a1 reaches b2 (free):
     * augment a2-b1-a1-b2, so a2b1 and a1b2.  search 2: free a3 reaches b1,
     * then a2; a2 has no other edge: R = {a3, b1, a2}, no free B. */
    const uint8_t want_reached[3][6] = {{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 0, 0}};
    const int32_t want_pi[3][6] = {{0, 1, 2, 0, 0, 0}, {3, 1, 2, 1, 0, 0}, {0, 3, 2, 2, 4, 5}};
    const uint8_t want_match[3][5] = {{1, 0, 0, 0, 0}, {0, 1, 0, 1, 0}, {0, 1, 0, 1, 0}};
    bool same = true;
    for (int k = 0; k < 3; k++) {
        for (int v = 0; v < 6; v++)
            same &= mt.hint_reached[k * 6 + v] == want_reached[k][v] && mt.hint_pi[k * 6 + v] == want_pi[k][v];
        for (int e = 0; e < 5; e++)
            same &= mt.hint_match[k * 5 + e] == want_match[k][e];
    }
    CHECK(same, "issue 24's example: every search's reached set, pointers and matching as worked out by hand");
    const uint8_t want_cover[6] = {1, 0, 0, 1, 0, 0};
    CHECK(!memcmp(mt.cover, want_cover, 6), "the cover is (A \\ R) + (B & R) = {a1, b1}");
    CHECK(matching_check(6, 5, ex_src, ex_dst, mt.match, mt.cover, err, sizeof err), "matching_check accepts it");
    uint8_t bad[6];
    memcpy(bad, mt.cover, 6);
    bad[3] = 0;
    CHECK(!matching_check(6, 5, ex_src, ex_dst, mt.match, bad, err, sizeof err), "a cover missing b1 is refused: %s", err);
    uint8_t two[5] = {1, 0, 0, 1, 0};
    CHECK(!matching_check(6, 5, ex_src, ex_dst, two, mt.cover, err, sizeof err), "two edges at a1 are refused: %s", err);
    uint8_t hk[5], cover[6];
    CHECK(hopcroft_karp(6, 5, ex_src, ex_dst, ex_side, hk) == 2 &&
          matching_konig_cover(6, 5, ex_src, ex_dst, ex_side, hk, cover) == 2 &&
          matching_check(6, 5, ex_src, ex_dst, hk, cover, err, sizeof err), "Hopcroft-Karp: 2, its Konig cover valid");
    matching_free(&mt);

    CHECK(!matching_trace(&mt, 6, 5, ex_src, ex_dst, ex_side, true, 100, err, sizeof err) && !mt.hint_pi,
          "hints over the bound are refused before allocating: %s", err);
}

/* The layered trace of the same example, worked out by hand: search 0's
 * layer 0 (A), layer 1 (a1 reaches b1, b2, b3), the augmentation of a1b1;
 * search 1's a2, a3, then b1 (from a2), its mate a1, then b2 and b3 (from
 * a1), the augmentation of a2-b1-a1-b2; search 2's a3, b1, its mate a2, and
 * no augmentation.  The augmentation frames and the last are the one-frame
 * trace's frames. */
static void test_layered(void)
{
    struct matching mt, one;
    char err[256];
    CHECK(matching_trace_as(&mt, 6, 5, ex_src, ex_dst, ex_side, true, true, 1 << 20, err, sizeof err), "traced");
    const uint8_t want_phase[11] = {0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0};
    const uint8_t want_reached[11][6] = {
        {1, 1, 1, 0, 0, 0}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1},
        {0, 1, 1, 0, 0, 0}, {0, 1, 1, 1, 0, 0}, {1, 1, 1, 1, 0, 0}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1},
        {0, 0, 1, 0, 0, 0}, {0, 0, 1, 1, 0, 0}, {0, 1, 1, 1, 0, 0}};
    const int32_t want_pi[11][6] = {
        {0, 1, 2, 3, 4, 5}, {0, 1, 2, 0, 0, 0}, {0, 1, 2, 0, 0, 0},
        {0, 1, 2, 3, 4, 5}, {0, 1, 2, 1, 4, 5}, {3, 1, 2, 1, 4, 5}, {3, 1, 2, 1, 0, 0}, {3, 1, 2, 1, 0, 0},
        {0, 1, 2, 3, 4, 5}, {0, 1, 2, 2, 4, 5}, {0, 3, 2, 2, 4, 5}};
    const uint8_t match0[5] = {0}, match1[5] = {1, 0, 0, 0, 0}, match2[5] = {0, 1, 0, 1, 0};
    const uint8_t *want_match[11] = {match0, match0, match1, match1, match1, match1, match1, match2,
                                     match2, match2, match2};
    bool same = mt.steps == 11 && mt.size == 2 && mt.hint_phase;
    for (int k = 0; same && k < 11; k++) {
        same &= mt.hint_phase[k] == want_phase[k] && !memcmp(mt.hint_match + k * 5, want_match[k], 5);
        for (int v = 0; v < 6; v++)
            same &= mt.hint_reached[k * 6 + v] == want_reached[k][v] && mt.hint_pi[k * 6 + v] == want_pi[k][v];
    }
    CHECK(same, "issue 24's example, layered: 11 frames, every layer's reached set, pointers and matching, the phases "
          "as worked out by hand");
    matching_trace(&one, 6, 5, ex_src, ex_dst, ex_side, true, 1 << 20, err, sizeof err);
    const int frames[3] = {2, 7, 10};
    same = !memcmp(one.match, mt.match, 5) && !memcmp(one.cover, mt.cover, 6);
    for (int k = 0; k < 3; k++)
        same &= !memcmp(one.hint_reached + k * 6, mt.hint_reached + frames[k] * 6, 6) &&
                !memcmp(one.hint_pi + k * 6, mt.hint_pi + frames[k] * 6, 6 * sizeof(int32_t)) &&
                !memcmp(one.hint_match + k * 5, mt.hint_match + frames[k] * 5, 5);
    CHECK(same, "the augmentation frames and the last are the one-frame trace's; the same matching and cover");
    matching_free(&one);
    matching_free(&mt);
    /* 11 frames of 5n + m + 1 = 36 bytes: 396 */
    CHECK(!matching_trace_as(&mt, 6, 5, ex_src, ex_dst, ex_side, true, true, 395, err, sizeof err) && !mt.hint_phase,
          "layered hints over the bound are refused, counted before allocating: %s", err);
    CHECK(matching_trace_as(&mt, 6, 5, ex_src, ex_dst, ex_side, true, true, 396, err, sizeof err) && mt.steps == 11,
          "and taken at the bound");
    matching_free(&mt);
    CHECK(matching_trace_as(&mt, 6, 5, ex_src, ex_dst, ex_side, false, true, 0, err, sizeof err) && mt.steps == 11 &&
          !mt.hint_phase && mt.size == 2, "without hints: the frames counted, none kept");
    matching_free(&mt);
}

/* The largest matching by trying every subset of edges (m <= 16). */
static int brute_force(int n, int m, const int32_t *src, const int32_t *dst)
{
    int best = 0;
    for (uint32_t set = 0; set < (1u << m); set++) {
        uint64_t used = 0;
        int size = 0;
        bool ok = true;
        for (int e = 0; e < m && ok; e++)
            if (set >> e & 1) {
                uint64_t bits = (1ull << src[e]) | (1ull << dst[e]);
                ok = !(used & bits);
                used |= bits;
                size++;
            }
        if (ok && size > best)
            best = size;
    }
    return best;
}

static void test_random(void)
{
    int graphs = 0, disagree = 0, brute_checked = 0, brute_wrong = 0;
    for (int k = 0; k < 600; k++) {
        struct rng r;
        rng_init(&r, 7, 1, (uint64_t)k);
        int a = 1 + (int)rng_below(&r, 12), b = 1 + (int)rng_below(&r, 12), n = a + b;
        double p = rng_uniform(&r);
        int32_t src[144], dst[144];
        uint8_t side[24], match[144], cover[24];
        int m = 0;
        for (int u = 0; u < a; u++)
            for (int v = 0; v < b; v++)
                if (rng_uniform(&r) < p) {
                    /* both orientations of the pair in the record */
                    bool flip = rng_below(&r, 2);
                    src[m] = flip ? a + v : u;
                    dst[m++] = flip ? u : a + v;
                }
        for (int v = 0; v < n; v++)
            side[v] = v >= a;
        struct matching mt;
        char err[256];
        matching_trace(&mt, n, m, src, dst, side, true, 1 << 24, err, sizeof err);
        int hk = hopcroft_karp(n, m, src, dst, side, match);
        int konig = matching_konig_cover(n, m, src, dst, side, match, cover);
        int covered = 0;
        for (int v = 0; v < n; v++)
            covered += mt.cover[v];
        disagree += hk != mt.size || konig != hk || covered != hk ||
                    !matching_check(n, m, src, dst, mt.match, mt.cover, err, sizeof err) ||
                    !matching_check(n, m, src, dst, match, cover, err, sizeof err) || mt.steps != mt.size + 1;
        if (m <= 16) {
            brute_checked++;
            brute_wrong += brute_force(n, m, src, dst) != hk;
        }
        matching_free(&mt);
        graphs++;
    }
    CHECK(disagree == 0, "%d random graphs (1..12 per side, edges either way round): trace, Hopcroft-Karp and both "
          "Konig covers agree, valid, of size nu", graphs);
    CHECK(brute_checked > 100 && brute_wrong == 0, "nu equals a brute force over edge subsets on %d graphs of <= 16 edges",
          brute_checked);
}

int main(void)
{
    check_file_name = "test_matching";
    test_example();
    test_layered();
    test_random();
    return check_done();
}
