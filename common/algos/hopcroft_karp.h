/* hopcroft_karp.h - maximum bipartite matching by Hopcroft and Karp: a
 * second exact solver, written apart from the traced Ford-Fulkerson of
 * matching.h, to check it and to solve large instances in O(m sqrt n).
 *
 * side[v] is 0 for A and 1 for B and every edge joins A and B. */
#ifndef DAR_HOPCROFT_KARP_H
#define DAR_HOPCROFT_KARP_H
#include <stdint.h>

/* A maximum matching into match[m] (1 on its edges); returns its size. */
int hopcroft_karp(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side, uint8_t *match);

#endif
