set terminal pngcairo size 1000,640 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'no_unrolling.png'
set title 'Same words, 8× the executed launches: certificate CPU time (ratios/ x1 and x8)'
set logscale xy
set xlabel 'executed launches (the plan unrolled)'
set ylabel 'CPU time per certificate'
set key top left box opaque reverse Left
set xrange [6668.0:18880560.0]
set yrange [10.117550505050504:1652.8365000000001]
set xtics ('10^4' 10000, '2×10^4' 20000, '5×10^4' 50000, '10^5' 100000, '2×10^5' 200000, '5×10^5' 500000, '10^6' 1000000, '2×10^6' 2000000, '5×10^6' 5000000, '10^7' 10000000)
set ytics ('20 µs' 20, '50 µs' 50, '100 µs' 100, '200 µs' 200, '500 µs' 500, '1 ms' 1000)
plot 'no_unrolling.dat' index 0 using 1:2 with linespoints lc rgb '#000000' pt 7 dt 1 lw 2 ps 1.6 title 'decoder/medium (7004 words)', 'no_unrolling.dat' index 0 using 1:3 with lines lc rgb '#000000' lw 1.5 dt 3 notitle, 'no_unrolling.dat' index 1 using 1:2 with linespoints lc rgb '#0072b2' pt 5 dt 2 lw 2 ps 1.6 title 'moe/medium (7089 words)', 'no_unrolling.dat' index 1 using 1:3 with lines lc rgb '#0072b2' lw 1.5 dt 3 notitle, 'no_unrolling.dat' index 2 using 1:2 with linespoints lc rgb '#d55e00' pt 9 dt 3 lw 2 ps 1.6 title 'training/medium (2864 words)', 'no_unrolling.dat' index 2 using 1:3 with lines lc rgb '#d55e00' lw 1.5 dt 3 notitle, 'no_unrolling.dat' index 3 using 1:2 with linespoints lc rgb '#009e73' pt 11 dt 4 lw 2 ps 1.6 title 'pipeline/medium (1104 words)', 'no_unrolling.dat' index 3 using 1:3 with lines lc rgb '#009e73' lw 1.5 dt 3 notitle, 'no_unrolling.dat' index 4 using 1:2 with linespoints lc rgb '#cc79a7' pt 13 dt 5 lw 2 ps 1.6 title 'encoder/medium (6400 words)', 'no_unrolling.dat' index 4 using 1:3 with lines lc rgb '#cc79a7' lw 1.5 dt 3 notitle, 'no_unrolling.dat' index 5 using 1:2 with linespoints lc rgb '#8c6d00' pt 15 dt 1 lw 2 ps 1.6 title 'flat/medium (34801 words)', 'no_unrolling.dat' index 5 using 1:3 with lines lc rgb '#8c6d00' lw 1.5 dt 3 notitle
