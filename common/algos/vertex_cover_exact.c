/* vertex_cover_exact.c - the bipartite min cut and the GLPK integer
 * program. */
#include "vertex_cover_exact.h"
#include "die.h"
#include "maxflow.h"
#include "vertex_cover.h"
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *vertex_cover_status_name(enum vertex_cover_status status)
{
    static const char *const names[] = {"optimal", "feasible", "unsolved"};
    return names[status];
}

double vertex_cover_min_cut(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side,
                            const float *node_w, uint8_t *cover)
{
    /* nodes 0..n-1, s = n, t = n+1; arcs: e -> a->b, then s->a or b->t per node */
    int s = n, t = n + 1, arcs = m + n;
    int32_t *from = xmalloc(sizeof *from * (size_t)arcs), *to = xmalloc(sizeof *to * (size_t)arcs);
    int64_t *cap = xmalloc(sizeof *cap * (size_t)arcs), *flow = xmalloc(sizeof *flow * (size_t)arcs);
    uint8_t *cut = xmalloc((size_t)n + 2);
    double top = 0;
    for (int v = 0; v < n; v++)
        top = fmax(top, node_w[v]);
    /* the sum of every capacity stays under 2^62: an unbounded arc is that sum + 1 */
    double units = top > 0 ? fmin(1099511627776.0, 4611686018427387904.0 / ((double)n + 1)) / top : 1.0;
    int64_t total = 0;
    for (int v = 0; v < n; v++) {
        int64_t k = llround(node_w[v] * units);
        from[m + v] = side[v] == 0 ? s : v;
        to[m + v] = side[v] == 0 ? v : t;
        cap[m + v] = k;
        total += k;
    }
    for (int e = 0; e < m; e++) {
        bool a_first = side[src[e]] == 0;
        from[e] = a_first ? src[e] : dst[e];
        to[e] = a_first ? dst[e] : src[e];
        cap[e] = total + 1;
    }
    struct flownet net = {.n = n + 2, .m = arcs, .s = s, .t = t, .directed = true, .src = from, .dst = to, .cap = cap};
    maxflow_fast(&net, flow, cut);
    /* cut[v] = 1 on the sink side: a cut s->a puts a in the cover, a cut b->t b */
    for (int v = 0; v < n; v++)
        cover[v] = side[v] == 0 ? cut[v] : !cut[v];
    free(from);
    free(to);
    free(cap);
    free(flow);
    free(cut);
    return vertex_cover_weight(n, node_w, cover);
}

/* The node budget: the subproblems GLPK has begun (GLP_IPREPRO comes once
 * per subproblem, before its LP), ended before the one past the budget.  A
 * count, not a clock, so the search stops at the same node on every
 * machine and under any load. */
struct node_budget {
    int64_t limit, begun;
};

static void count_node(glp_tree *tree, void *info)
{
    struct node_budget *budget = info;
    if (glp_ios_reason(tree) == GLP_IPREPRO && ++budget->begun > budget->limit)
        glp_ios_terminate(tree);
}

enum vertex_cover_status vertex_cover_ilp(int n, int m, const int32_t *src, const int32_t *dst,
                                          const float *node_w, int64_t node_limit, uint8_t *cover, double *weight)
{
    if (m == 0) {   /* GLPK refuses a problem of no rows */
        memset(cover, 0, (size_t)n);
        *weight = 0;
        return VERTEX_COVER_OPTIMAL;
    }
    glp_term_out(GLP_OFF);   /* stdout carries the records */
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, n);
    for (int v = 0; v < n; v++) {
        glp_set_col_kind(lp, v + 1, GLP_BV);
        glp_set_obj_coef(lp, v + 1, node_w[v]);
    }
    glp_add_rows(lp, m);
    int *row = xmalloc(sizeof *row * (size_t)(2 * m + 1)), *col = xmalloc(sizeof *col * (size_t)(2 * m + 1));
    double *value = xmalloc(sizeof *value * (size_t)(2 * m + 1));
    for (int e = 0; e < m; e++) {
        glp_set_row_bnds(lp, e + 1, GLP_LO, 1.0, 0.0);
        row[2 * e + 1] = row[2 * e + 2] = e + 1;
        col[2 * e + 1] = src[e] + 1;
        col[2 * e + 2] = dst[e] + 1;
        value[2 * e + 1] = value[2 * e + 2] = 1.0;
    }
    glp_load_matrix(lp, 2 * m, row, col, value);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    struct node_budget budget = {.limit = node_limit > 0 ? node_limit : INT64_MAX};
    parm.cb_func = count_node;
    parm.cb_info = &budget;
    glp_intopt(lp, &parm);
    int status = glp_mip_status(lp);
    enum vertex_cover_status result = status == GLP_OPT ? VERTEX_COVER_OPTIMAL
                                    : status == GLP_FEAS ? VERTEX_COVER_FEASIBLE : VERTEX_COVER_UNSOLVED;
    for (int v = 0; v < n; v++)
        cover[v] = result == VERTEX_COVER_UNSOLVED || glp_mip_col_val(lp, v + 1) > 0.5;
    *weight = vertex_cover_weight(n, node_w, cover);
    glp_delete_prob(lp);
    free(row);
    free(col);
    free(value);
    return result;
}
