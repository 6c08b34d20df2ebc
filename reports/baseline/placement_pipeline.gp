set terminal pngcairo size 1300,640 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'placement_pipeline.png'
set title 'Placement height / lower bound per instance (pipeline)'
set datafile missing '?'
set style data histograms
set style histogram clustered gap 1
set style fill solid 1.0 border lc rgb 'black'
set boxwidth 0.9
set grid noxtics ytics
set key outside right top
set xtics rotate by -30
set bmargin 10
set ylabel 'height / lower bound (1 = optimal)'
set yrange [0:1.557]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'
plot 'placement_pipeline.dat' using 2:xtic(1) title 'best-fit' lc rgb '#440154', 'placement_pipeline.dat' using 3:xtic(1) title 'first-fit' lc rgb '#443983', 'placement_pipeline.dat' using 4:xtic(1) title 'greedy-by-breadth' lc rgb '#31688e', 'placement_pipeline.dat' using 5:xtic(1) title 'greedy-by-size' lc rgb '#21918c', 'placement_pipeline.dat' using 6:xtic(1) title 'lns' lc rgb '#35b779', 'placement_pipeline.dat' using 7:xtic(1) title 'search' lc rgb '#90d743'
