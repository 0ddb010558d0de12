# shortest-paths-claims.awk - issue 23's claims about the shortest-paths
# table, each with its verdict on the numbers at hand: reads `metrics --table
# tsv --rows model --cols name --quantity pointer_accuracy` (model, mean,
# std, n) and prints a markdown list.  A verdict compares means only: with
# one seed there is no spread to test a difference against, and the line
# says how many seeds there were.
NR > 1 { acc[$1] = $2; n[$1] = $4 }
function pct(x) { return sprintf("%.1f%%", 100 * x) }
function verdict(ok) { return ok ? "**holds**" : "**does not hold**" }
END {
    p = acc["PGN-max (primal)"]; d = acc["PGN-max (dual)"]; a = acc["PGN-max (no-algo)"]
    if (p == "" || d == "" || a == "")
        exit
    print ""
    print "Claims (out-of-distribution pointer accuracy, means over " n["PGN-max (dual)"] " seed(s)):"
    print ""
    printf "- \"The dual's potentials improve out-of-distribution pointer accuracy\": %s (dual %s, primal %s).\n",
        verdict(d > p), pct(d), pct(p)
    printf "- \"No-algo is worse than both\": %s (no-algo %s, primal %s, dual %s).\n",
        verdict(a < p && a < d), pct(a), pct(p), pct(d)
}
