// The peer for `ff-trace --no-hints`: Boost.Graph's boykov_kolmogorov_max_flow
// on the same graph, read from the raw arrays bench_graph.py writes
// (int32 n, m, s, t, directed; then int32 src[m], dst[m], int64 cap[m]).
// Times the solver only, as the figure in perf-anchors.md does.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <vector>

using namespace boost;
typedef adjacency_list_traits<vecS, vecS, directedS> Traits;
typedef adjacency_list<vecS, vecS, directedS,
    property<vertex_index_t, long, property<vertex_color_t, default_color_type,
    property<vertex_distance_t, long, property<vertex_predecessor_t, Traits::edge_descriptor>>>>,
    property<edge_capacity_t, long, property<edge_residual_capacity_t, long,
    property<edge_reverse_t, Traits::edge_descriptor>>>> Graph;

int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 66; }
    int32_t hdr[5];
    if (fread(hdr, 4, 5, f) != 5) return 65;
    int n = hdr[0], m = hdr[1], s = hdr[2], t = hdr[3], directed = hdr[4];
    std::vector<int32_t> src(m), dst(m);
    std::vector<int64_t> cap(m);
    if (fread(src.data(), 4, m, f) != (size_t)m || fread(dst.data(), 4, m, f) != (size_t)m ||
        fread(cap.data(), 8, m, f) != (size_t)m) return 65;
    Graph g(n);
    auto capacity = get(edge_capacity, g);
    auto rev = get(edge_reverse, g);
    for (int e = 0; e < m; e++) {
        auto a = add_edge(src[e], dst[e], g).first, b = add_edge(dst[e], src[e], g).first;
        capacity[a] = cap[e];
        capacity[b] = directed ? 0 : cap[e];
        rev[a] = b;
        rev[b] = a;
    }
    auto t0 = std::chrono::steady_clock::now();
    long flow = boykov_kolmogorov_max_flow(g, vertex(s, g), vertex(t, g));
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("%.6f %ld\n", sec, flow);
    return 0;
}
