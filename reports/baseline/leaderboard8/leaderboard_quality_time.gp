set terminal pngcairo size 1100,700 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'leaderboard_quality_time.png'
set title 'Placement: quality against time (every instance but fit mode)'
set logscale x
set xlabel 'wall seconds (one run)'
set ylabel 'height / optimum or max-live bound (1 = optimal)'
set yrange [0.99:1.050]
set key outside right top
plot 'leaderboard_quality_time.dat' index 0 using 1:2 title 'greedy-by-size' with points pt 7 ps 1.4 lc rgb '#000000', 'leaderboard_quality_time.dat' index 1 using 1:2 title 'best-fit' with points pt 5 ps 1.4 lc rgb '#0072b2', 'leaderboard_quality_time.dat' index 2 using 1:2 title 'search' with points pt 9 ps 1.4 lc rgb '#d55e00', 'leaderboard_quality_time.dat' index 3 using 1:2 title 'lns' with points pt 11 ps 1.4 lc rgb '#009e73', 'leaderboard_quality_time.dat' index 4 using 1:2 title 'omnimalloc:supermalloc' with points pt 13 ps 1.4 lc rgb '#cc79a7'
