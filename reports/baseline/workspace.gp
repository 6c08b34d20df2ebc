set terminal pngcairo size 1300,900 enhanced font 'DejaVu Sans,11' noenhanced
set output 'workspace.png'
set multiplot layout 2,1 title 'Planner workspace vs lower bound per plan'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key top left
set xtics rotate by -35
set rmargin 10
set bmargin 6
set title 'bytes'
set logscale y
set ylabel 'MiB (log scale)'
plot 'workspace.dat' using 2:xtic(1) title 'workspace', '' using 3 title 'lower bound'
set title 'workspace / lower bound (1 = optimal)'
unset logscale y
set ylabel 'ratio'
set yrange [0:1.25]
unset key
plot 'workspace.dat' using ($2/$3):xtic(1) title 'workspace / lower bound' lc rgb '#4477aa'
unset multiplot
