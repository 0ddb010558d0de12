/* matching_fix.h - the repair of a predicted matching and cover (match-fix):
 * scores in, a valid matching and a valid cover out, with no solver.  When
 * the two have the same size, both are optimal (Konig: |M| <= nu = tau <=
 * |C| for any matching M and cover C), a certificate that needs no ground
 * truth. */
#ifndef DAR_MATCHING_FIX_H
#define DAR_MATCHING_FIX_H
#include <stdint.h>

/* A matching from the edge scores score[m] (P(matched)): the edges scored
 * at least min_score (0: every edge, the greedy rule of issue 24; 1/2: only
 * those the model predicts matched), by score from the highest (equal
 * scores by edge index), each taken unless an endpoint is already used.
 * Into match[m]; returns its size. */
int matching_fix(int n, int m, const int32_t *src, const int32_t *dst, const float *score, float min_score,
                 uint8_t *match);

/* A cover from the node scores score[n] (P(in the cover)): the nodes scored
 * at least 1/2, then, edge by edge in index order, an uncovered edge's more
 * likely endpoint (equal scores: the endpoint on side B, the one a Konig
 * cover of a side-A-heavy search takes; without sides the smaller index).
 * Into cover[n]; returns its size. */
int cover_fix(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side, const float *score,
              uint8_t *cover);

/* Whether the nodes with score >= 1/2 cover every edge. */
int cover_valid(int m, const int32_t *src, const int32_t *dst, const float *score);

#endif
