# vertex-cover-claims.awk - issue 25's claims about the vertex-cover tables,
# each with its verdict on the numbers at hand: reads `metrics --table tsv
# --rows model,set --cols name --quantity cover_weight_ratio,certified_gap`
# (model, set, then mean, std, n of each) and prints a markdown list; the
# variable `largest` names the largest Barabasi-Albert set.  A verdict
# compares means of the PGN-max rows only: with one seed there is no spread
# to test a difference against, and the line says how many seeds there were.
NR > 1 { ratio[$1, $2] = $3; gap[$1, $2] = $6; seeds = $5; if (!($2 in seen)) { seen[$2] = 1; sets[++nsets] = $2 } }
function verdict(ok) { return ok ? "**holds**" : "**does not hold**" }
function have(row, set) { return ratio[row, set] != "" && ratio[row, set] != "nan" }
END {
    D = "PGN-max (dual)"; P = "PGN-max (primal)"; N = "PGN-max (no-algo)"; O = "PGN-max (dual +opt)"
    if (!have(D, "ba16") || !have(D, largest))
        exit
    print ""
    print "Claims (w(C)/w(C_alg) after cover-fix, means over " seeds " seed(s); PDNAR's own claims, then DAR's question):"
    print ""
    printf "- PDNAR, \"the model generalises to 64x larger graphs\" (here: dual's ratio at %s within 5 %% of the algorithm's, <= 1.05): %s (%.3f at ba16, %.3f at %s).\n",
        largest, verdict(ratio[D, largest] <= 1.05), ratio[D, "ba16"], ratio[D, largest], largest
    if (have(O, "ba16")) {
        detail = ""; below = 0; n = 0
        for (i = 1; i <= nsets; i++)
            if (have(O, sets[i])) {
                n++; below += ratio[O, sets[i]] < 1
                detail = detail sprintf("%s%s %.3f", detail == "" ? "" : ", ", sets[i], ratio[O, sets[i]])
            }
        printf "- PDNAR, \"with optimal labels the model beats the algorithm it was trained on\" (dual +opt below 1 at the training size, ba16): %s (below 1 on %d of %d sets: %s).\n",
            verdict(ratio[O, "ba16"] < 1), below, n, detail
    }
    if (have(N, largest))
        printf "- PDNAR, \"no-algo generalises worse\" (no-algo's ratio at %s above the dual's): %s (%.3f vs %.3f).\n",
            largest, verdict(ratio[N, largest] > ratio[D, largest]), ratio[N, largest], ratio[D, largest]
    if (have(P, "ba16")) {
        d = 0; p = 0; n = 0; wins = 0
        for (i = 1; i <= nsets; i++)
            if (have(D, sets[i]) && have(P, sets[i])) {
                n++; d += ratio[D, sets[i]]; p += ratio[P, sets[i]]; wins += ratio[D, sets[i]] < ratio[P, sets[i]]
            }
        printf "- DAR, \"learning the dual helps\" (the dual's mean ratio over the %d sets below the primal's): %s (dual %.3f vs primal %.3f; dual lighter on %d of %d sets). Only the dual certifies its cover: mean w(C)/sum y %.3f at ba16, %.3f at %s.\n",
            n, verdict(d < p), d / n, p / n, wins, n, gap[D, "ba16"], gap[D, largest], largest
    }
}
