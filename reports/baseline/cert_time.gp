set terminal pngcairo size 1000,640 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'cert_time.png'
set title 'Certificate CPU time vs plan size per workload family (median, bars: IQR)'
set logscale xy
set xlabel 'parameter words as written'
set ylabel 'CPU time per certificate'
set key top left box opaque reverse Left
set xrange [75.0:48721.399999999994]
set yrange [1.5537018547265362:1371.6456454545455]
set xtics ('100' 100, '200' 200, '500' 500, '10^3' 1000, '2×10^3' 2000, '5×10^3' 5000, '10^4' 10000, '2×10^4' 20000)
set ytics ('2 µs' 2, '5 µs' 5, '10 µs' 10, '20 µs' 20, '50 µs' 50, '100 µs' 100, '200 µs' 200, '500 µs' 500, '1 ms' 1000)
plot 'cert_time.dat' index 0 using 1:2:3:4 with yerrorbars lc rgb '#000000' pt 7 dt 1 ps 1.5 lw 1.5 title 'decoder', 'cert_time.dat' index 1 using 1:2:3:4 with yerrorbars lc rgb '#0072b2' pt 5 dt 2 ps 1.5 lw 1.5 title 'moe', 'cert_time.dat' index 2 using 1:2:3:4 with yerrorbars lc rgb '#d55e00' pt 9 dt 3 ps 1.5 lw 1.5 title 'training', 'cert_time.dat' index 3 using 1:2:3:4 with yerrorbars lc rgb '#009e73' pt 11 dt 4 ps 1.5 lw 1.5 title 'pipeline', 'cert_time.dat' index 4 using 1:2:3:4 with yerrorbars lc rgb '#cc79a7' pt 13 dt 5 ps 1.5 lw 1.5 title 'encoder', 'cert_time.dat' index 5 using 1:2:3:4 with yerrorbars lc rgb '#8c6d00' pt 15 dt 1 ps 1.5 lw 1.5 title 'flat', 'cert_time.dat' index 6 using 1:2:3:4 with yerrorbars lc rgb '#7f7f7f' pt 4 dt 2 ps 1.5 lw 1.5 title 'tflite'
