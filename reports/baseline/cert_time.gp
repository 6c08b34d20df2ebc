set terminal pngcairo size 1000,640 enhanced font 'DejaVu Sans,11' noenhanced
set output 'cert_time.png'
set title 'Certificate time vs plan size, per workload family (ar_certify, median)'
set logscale xy
set xlabel 'parameter words as written'
set ylabel 'time (ms)'
set grid
set key top left
set format x '%g'
set format y '%g'
plot 'cert_time.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'decoder', 'cert_time.dat' index 1 using 1:2 with linespoints lw 2 pt 7 title 'moe', 'cert_time.dat' index 2 using 1:2 with linespoints lw 2 pt 7 title 'training', 'cert_time.dat' index 3 using 1:2 with linespoints lw 2 pt 7 title 'pipeline', 'cert_time.dat' index 4 using 1:2 with linespoints lw 2 pt 7 title 'encoder'
