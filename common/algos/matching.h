/* matching.h - maximum bipartite matching as Ford-Fulkerson with BFS
 * augmenting paths on the unit network s->A->B->t (as Georgiev & Lio learn
 * it, with BFS where they use Bellman-Ford), the trace a model learns, and
 * its dual: the Konig vertex cover read from the last search.
 *
 * The instance is an undirected bipartite graph: side[v] is 0 for A and 1
 * for B, and every edge joins A and B (the matching entry's
 * instance key row checks it); s and t are implicit, not nodes of the record.
 *
 * Search k (k = 0 .. T-1, T = |M| + 1) is a full BFS from s in the residual
 * network of the matching M_k found so far: the queue starts with the free A
 * nodes in index order; an A node reaches, along its edges in edge index
 * order, the B nodes it is joined to by an unmatched edge; a matched B node
 * reaches its mate.  If some free B node is reached, the path to the first
 * one reached is augmented (its edges flip), giving M_{k+1}; the last
 * search reaches none, and its reached set R gives the cover
 * C = (A \ R) + (B & R), of size |M| (Konig).
 *
 * Hints, one frame per search:
 *   hint_reached[k][v]  1 if v was reached by search k (R_k);
 *   hint_pi[k][v]       BFS parent in search k: a free A node points to
 *                       itself (reached from s), a B node to the A node it
 *                       was reached from, a matched A node to its mate;
 *                       unreached nodes to themselves;
 *   hint_match[k][e]    1 if edge e is in the matching after search k's
 *                       augmentation (M_{k+1}; the last frame is M).
 *
 * The layered trace (ff-trace --bfs-layers) runs the same searches one BFS
 * layer a frame, so that each frame is one hop from the one before: search
 * k writes a frame after its layer 0 (the free A nodes, pointing to
 * themselves), then one after each layer l + 1 (the B nodes the layer-l A
 * nodes reach by unmatched edges, each pointing to the first of them in
 * queue order, and the mates of the layer-l matched B nodes) while a layer
 * reaches a node; its hint_match is M_k.  A search that reached a free B
 * node then writes an augmentation frame: the same reached set and
 * pointers, hint_match M_{k+1}; the last search writes none.  hint_phase
 * gives each frame's kind.  The layers run to the end are the whole BFS:
 * the augmentation frames are the frames above, the last one the last. */
#ifndef DAR_MATCHING_H
#define DAR_MATCHING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A layered frame's kind (hint_phase). */
enum { MATCHING_PHASE_SEARCH = 0, MATCHING_PHASE_AUGMENT = 1 };

struct matching {
    int n, m, steps;        /* T frames: searches, or (layered) layers and augmentations */
    /* hints, NULL when traced without them */
    uint8_t *hint_reached;  /* [T,n] */
    int32_t *hint_pi;       /* [T,n] */
    uint8_t *hint_match;    /* [T,m] */
    uint8_t *hint_phase;    /* [T] the layered trace's, else NULL */
    /* outputs */
    uint8_t *match;         /* [m] the maximum matching */
    uint8_t *cover;         /* [n] the Konig cover from the last search */
    int size;               /* |M| */
};

/* Trace.  With hints, refuses (false, the reason in err) a graph whose hints
 * could exceed max_hint_bytes (min(|A|,|B|) + 1 frames of 5n + m bytes)
 * before allocating them.  mt is an output; free it with matching_free. */
bool matching_trace(struct matching *mt, int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side,
                    bool hints, size_t max_hint_bytes, char *err, size_t errlen);
/* The same, layered: one frame a BFS layer and one an augmentation
 * (layered false: matching_trace); a layered trace's frames are counted
 * before the limit is applied. */
bool matching_trace_as(struct matching *mt, int n, int m, const int32_t *src, const int32_t *dst,
                       const uint8_t *side, bool hints, bool layered, size_t max_hint_bytes, char *err,
                       size_t errlen);
void matching_free(struct matching *mt);

/* The Konig cover of any maximum matching match[m]: Z = the nodes reachable
 * from the free A nodes by alternating paths (unmatched edges A->B, matched
 * edges B->A), cover = (A \ Z) + (B & Z) into cover[n]; returns its size. */
int matching_konig_cover(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side,
                         const uint8_t *match, uint8_t *cover);

/* Whether match[m] is a matching (no node twice) and cover[n] covers every
 * edge; false with the first violation in err. */
bool matching_check(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *match, const uint8_t *cover,
                    char *err, size_t errlen);

#endif
