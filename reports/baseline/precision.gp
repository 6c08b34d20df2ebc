set terminal pngcairo size 1500,520 enhanced font 'DejaVu Sans,11' noenhanced
set output 'precision.png'
set multiplot layout 1,3 title 'Interval-hull precision vs few (medium presets and precision probes; lines overlap where families agree)'
set logscale x 2
set xrange [0.8:320]
set grid
set key top right
set xlabel 'few (iterations given points, not a hull)'
set title 'falsely rejected sites (exact accepts, certificate rejects)'
set ylabel 'sites'
set yrange [0:*]
plot 'precision.dat' index 0 using 1:4 with linespoints lw 2 pt 4 ps 1.4 dt 1 title 'decoder', 'precision.dat' index 1 using 1:4 with linespoints lw 2 pt 6 ps 1.4 dt 2 title 'moe', 'precision.dat' index 2 using 1:4 with linespoints lw 2 pt 8 ps 1.4 dt 3 title 'training', 'precision.dat' index 3 using 1:4 with linespoints lw 2 pt 10 ps 1.4 dt 4 title 'pipeline', 'precision.dat' index 4 using 1:4 with linespoints lw 2 pt 12 ps 1.4 dt 5 title 'encoder'
set title 'safe plans the certificate certifies'
set ylabel 'share of safe plans'
set yrange [0:1.05]
set key bottom right
plot 'precision.dat' index 0 using 1:3 with linespoints lw 2 pt 4 ps 1.4 dt 1 title 'decoder', 'precision.dat' index 1 using 1:3 with linespoints lw 2 pt 6 ps 1.4 dt 2 title 'moe', 'precision.dat' index 2 using 1:3 with linespoints lw 2 pt 8 ps 1.4 dt 3 title 'training', 'precision.dat' index 3 using 1:3 with linespoints lw 2 pt 10 ps 1.4 dt 4 title 'pipeline', 'precision.dat' index 4 using 1:3 with linespoints lw 2 pt 12 ps 1.4 dt 5 title 'encoder'
set title 'hull slack'
set ylabel 'MiB (log scale)'
set logscale y
set yrange [*:*]
set format y '%g'
set key bottom left
plot 'precision.dat' index 0 using 1:5 with linespoints lw 2 pt 4 ps 1.4 dt 1 title 'decoder', 'precision.dat' index 1 using 1:5 with linespoints lw 2 pt 6 ps 1.4 dt 2 title 'moe', 'precision.dat' index 2 using 1:5 with linespoints lw 2 pt 8 ps 1.4 dt 3 title 'training', 'precision.dat' index 3 using 1:5 with linespoints lw 2 pt 10 ps 1.4 dt 4 title 'pipeline', 'precision.dat' index 4 using 1:5 with linespoints lw 2 pt 12 ps 1.4 dt 5 title 'encoder'
unset multiplot
