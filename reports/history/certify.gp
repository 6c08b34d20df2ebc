set terminal pngcairo size 1300,960 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'certify.png'
set datafile missing '?'
set multiplot layout 2,1 title 'certify/: the largest preset of each family across commits (oldest left; dashed: change points)'
set xtics rotate by -45 ('3461de4' 0, '2c1ab22' 1, '0bfa639' 2, '9206e63' 3, 'd8bdb42' 4, '95d029e' 5, '75064f7' 6, '06b557d' 7, '845834a' 8, '13e0073' 9, 'e547f97' 10, '44af7bc' 11, '7637694' 12, '27aa1fe' 13, '8dc82c3' 14, 'a65c7d1' 15, '60dd668' 16, '7fa1aa0' 17)
set xrange [-0.5:17.5]
set key inside top right box opaque reverse Left
set bmargin 5
set rmargin 2
set title 'instructions per call (callgrind; exact)'
set logscale y
set ylabel 'instructions'
set ytics ('5×10^5' 500000, '10^6' 1000000, '2×10^6' 2000000, '5×10^6' 5000000)
set yrange [247306.6666666667:6084926.399999999]
set arrow from 4.5, graph 0 to 4.5, graph 1 nohead dt 2 lc rgb '#000000'
set arrow from 6.5, graph 0 to 6.5, graph 1 nohead dt 2 lc rgb '#000000'
set arrow from 4.5, graph 0 to 4.5, graph 1 nohead dt 2 lc rgb '#0072b2'
set arrow from 4.5, graph 0 to 4.5, graph 1 nohead dt 2 lc rgb '#d55e00'
set arrow from 6.5, graph 0 to 6.5, graph 1 nohead dt 2 lc rgb '#d55e00'
set arrow from 4.5, graph 0 to 4.5, graph 1 nohead dt 2 lc rgb '#009e73'
set arrow from 12.5, graph 0 to 12.5, graph 1 nohead dt 2 lc rgb '#009e73'
set arrow from 4.5, graph 0 to 4.5, graph 1 nohead dt 2 lc rgb '#cc79a7'
set arrow from 6.5, graph 0 to 6.5, graph 1 nohead dt 2 lc rgb '#cc79a7'
plot 'certify.dat' using 1:2 with linespoints lc rgb '#000000' pt 7 dt 1 lw 2 ps 1.4 title 'certify/decoder/medium', 'certify.dat' using 1:6 with linespoints lc rgb '#0072b2' pt 5 dt 2 lw 2 ps 1.4 title 'certify/encoder/medium', 'certify.dat' using 1:10 with linespoints lc rgb '#d55e00' pt 9 dt 3 lw 2 ps 1.4 title 'certify/moe/medium', 'certify.dat' using 1:14 with linespoints lc rgb '#009e73' pt 11 dt 4 lw 2 ps 1.4 title 'certify/pipeline/medium', 'certify.dat' using 1:18 with linespoints lc rgb '#cc79a7' pt 13 dt 5 lw 2 ps 1.4 title 'certify/training/medium'
unset arrow
set title 'CPU time per call (median, bars: IQR; different moments of a shared machine)'
set logscale y
set ylabel 'CPU time'
set ytics ('20 µs' 20, '50 µs' 50, '100 µs' 100, '200 µs' 200, '500 µs' 500)
set yrange [16.58735376011279:504.61169571428127]
plot 'certify.dat' using 1:3:4:5 with yerrorlines lc rgb '#000000' pt 7 dt 1 lw 1.5 ps 1.2 title 'certify/decoder/medium', 'certify.dat' using 1:7:8:9 with yerrorlines lc rgb '#0072b2' pt 5 dt 2 lw 1.5 ps 1.2 title 'certify/encoder/medium', 'certify.dat' using 1:11:12:13 with yerrorlines lc rgb '#d55e00' pt 9 dt 3 lw 1.5 ps 1.2 title 'certify/moe/medium', 'certify.dat' using 1:15:16:17 with yerrorlines lc rgb '#009e73' pt 11 dt 4 lw 1.5 ps 1.2 title 'certify/pipeline/medium', 'certify.dat' using 1:19:20:21 with yerrorlines lc rgb '#cc79a7' pt 13 dt 5 lw 1.5 ps 1.2 title 'certify/training/medium'
unset multiplot
