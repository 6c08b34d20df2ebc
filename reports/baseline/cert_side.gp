set terminal pngcairo size 1000,640 enhanced font 'DejaVu Sans,11' noenhanced
set output 'cert_side.png'
set title 'Certificate, exact oracle, loader, jansson parse and the floor (all families)'
set logscale xy
set xlabel 'parameter words as written'
set ylabel 'time (ms)'
set grid
set key top left
set format x '%g'
set format y '%g'
plot 'cert_side.dat' index 0 using 1:2 with points lw 2 pt 7 ps 1.3 title 'certify', 'cert_side.dat' index 1 using 1:2 with points lw 1 pt 5 ps 1.3 title 'exact', 'cert_side.dat' index 2 using 1:2 with points lw 1 pt 9 ps 1.3 title 'load', 'cert_side.dat' index 3 using 1:2 with points lw 1 pt 11 ps 1.3 title 'jansson', 'cert_side.dat' index 4 using 1:2 with points lw 1 pt 13 dt 2 ps 1.3 title 'floor'
