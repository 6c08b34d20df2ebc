set terminal pngcairo size 1000,640 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'cert_side.png'
set title 'Certificate next to the exact oracle, the loader, a jansson parse and the floor'
set logscale xy
set xlabel 'parameter words as written'
set ylabel 'CPU time'
set key top left box opaque reverse Left
set xtics ('100' 100, '200' 200, '500' 500, '10^3' 1000, '2×10^3' 2000, '5×10^3' 5000, '10^4' 10000, '2×10^4' 20000)
set ytics ('50 ns' 0.05, '100 ns' 0.1, '200 ns' 0.2, '500 ns' 0.5, '1 µs' 1, '2 µs' 2, '5 µs' 5, '10 µs' 10, '20 µs' 20, '50 µs' 50, '100 µs' 100, '200 µs' 200, '500 µs' 500, '1 ms' 1000, '2 ms' 2000, '5 ms' 5000, '10 ms' 10000, '20 ms' 20000, '50 ms' 50000)
set xrange [75.0:48721.399999999994]
set yrange [0.04807377657543774:94496.07764999257]
plot 'cert_side.dat' index 0 using 1:2:3:4 with yerrorbars lc rgb '#000000' pt 7 dt 1 ps 1.3 title 'certify', 'cert_side.dat' index 1 using 1:2:3:4 with yerrorbars lc rgb '#0072b2' pt 5 dt 2 ps 1.3 title 'exact', 'cert_side.dat' index 2 using 1:2:3:4 with yerrorbars lc rgb '#d55e00' pt 9 dt 3 ps 1.3 title 'load', 'cert_side.dat' index 3 using 1:2:3:4 with yerrorbars lc rgb '#009e73' pt 11 dt 4 ps 1.3 title 'jansson', 'cert_side.dat' index 4 using 1:2:3:4 with yerrorbars lc rgb '#cc79a7' pt 13 dt 5 ps 1.3 title 'floor'
