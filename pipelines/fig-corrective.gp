# Per-node conservation error (in-flow minus out-flow, normalised by the
# largest magnitude before correction) of a predicted flow, each test graph a
# row, before and after flow-fix (the paper's appendix figure).  PNG and SVG.
# Called by pipelines/study.mk with dir and note set.
stats dir.'/corrective-before.tsv' matrix nooutput
scale = (abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max))
if (scale == 0) scale = 1
set palette defined (-1 "blue", 0 "white", 1 "red")
set cbrange [-1:1]
set xlabel "node"
set ylabel "test graph"
unset key
set autoscale xfix
set autoscale yfix
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1200,500 noenhanced } else { set terminal svg size 1200,500 noenhanced }
    set output sprintf("%s/fig-corrective.%s", dir, fmt)
    set multiplot layout 1,2 title sprintf("Normalised flow conservation error\n%s", note)
    set title "(a) predicted flow, before correction"
    plot dir.'/corrective-before.tsv' matrix using 1:2:($3 / scale) with image
    set title "(b) after flow-fix"
    plot dir.'/corrective-after.tsv' matrix using 1:2:($3 / scale) with image
    unset multiplot
}
