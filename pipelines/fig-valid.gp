# Validation curves (masked MSE of the final flow, every --eval-every
# iterations, seed 0), one figure per processor, PNG and SVG.
# Called by pipelines/study.mk with logs, out and note set.
set datafile separator whitespace
set xlabel "iteration"
set ylabel "validation masked MSE of F"
set key outside right
set grid
set logscale y
curve(v, p, a) = sprintf("< awk -F'\t' 'NR > 1 && $9 != \"\" {print $1, $9}' %s/%s-%s-%s-s0.tsv", logs, v, p, a)
do for [p in "pgn mpnn"] {
    P = (p eq "pgn") ? "PGN" : "MPNN"
    set title sprintf("Ford-Fulkerson validation loss, %s processors\n%s", P, note) noenhanced
    do for [fmt in "png svg"] {
        if (fmt eq "png") { set terminal pngcairo size 1000,600 noenhanced } else { set terminal svg size 1000,600 noenhanced }
        set output sprintf("%s-%s.%s", out, p, fmt)
        if (p eq "pgn") {
            plot for [v in "primal dual pipeline"] for [a in "max mean"] curve(v, p, a) using 1:2 with linespoints \
                     title sprintf("%s-%s (%s)", P, a, v), \
                 curve("noalgo", "pgn", "max") using 1:2 with linespoints dashtype 2 title "PGN-max (no-algo)"
        } else {
            plot for [v in "primal dual pipeline"] for [a in "max mean"] curve(v, p, a) using 1:2 with linespoints \
                     title sprintf("%s-%s (%s)", P, a, v)
        }
    }
}
