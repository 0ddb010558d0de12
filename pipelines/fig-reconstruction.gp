# Algorithm reconstruction on the synthetic vessel graph (the paper's
# Fig. 2b): edge-embed --reconstruct's total loss divided by its first
# value, primal and dual PGN-max.  PNG and SVG.  Called by
# pipelines/vessel.mk with logs, out and note set; the logs are
# logs/recon-{primal,dual}.tsv (iteration, mask, pi, flow_hint, cut_hint,
# flow, cut, total, seconds).
set datafile separator "\t"
set key top right
set grid
set xlabel "Adam step"
set ylabel "reconstruction loss / initial loss"
set format y "%g"
first(v) = system(sprintf("awk -F'\t' 'NR == 2 {print $8}' %s/recon-%s.tsv", logs, v)) + 0
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1000,600 noenhanced } else { set terminal svg size 1000,600 noenhanced }
    set output sprintf("%s.%s", out, fmt)
    set title sprintf("Algorithm reconstruction, normalised loss\n%s", note) noenhanced
    p0 = first("primal"); d0 = first("dual")
    plot sprintf("%s/recon-primal.tsv", logs) using 1:($8 / p0) skip 1 with linespoints title "PGN-max (primal)", \
         sprintf("%s/recon-dual.tsv", logs) using 1:($8 / d0) skip 1 with linespoints title "PGN-max (dual)"
}
