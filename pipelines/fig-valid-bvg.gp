# Validation balanced accuracy of the C-SAGE variants (vanilla, N2V, primal,
# dual) per evaluation, trial 0, one panel per graph (the paper's appendix
# figure fig:valid-bvg; truncated lines are early stops).  PNG and SVG.
# Called by pipelines/vessel.mk with logs, out and note set; the logs are
# gnn-train --log TSVs: record, epoch, loss, val_balanced_accuracy, ...
set datafile separator "\t"
set key bottom right
set grid
set xlabel "epoch"
set ylabel "validation balanced accuracy"
curve(v, g) = sprintf("%s/gnn-csage-%s-%s-s0.tsv", logs, v, g)
name(v) = (v eq "plain") ? "C-SAGE" : (v eq "n2v") ? "C-SAGE (N2V)" : sprintf("C-SAGE (%s)", v)
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1500,500 noenhanced } else { set terminal svg size 1500,500 noenhanced }
    set output sprintf("%s.%s", out, fmt)
    set multiplot layout 1,3 title sprintf("C-SAGE validation balanced accuracy\n%s", note) noenhanced
    do for [g in "CD1-E-3 CD1-E-2 CD1-E-1"] {
        set title g noenhanced
        plot for [v in "plain n2v primal dual"] curve(v, g) using 2:4 skip 1 with linespoints title name(v)
    }
    unset multiplot
}
