set terminal pngcairo size 1300,560 enhanced font 'DejaVu Sans,11' noenhanced
set output 'arena.png'
set multiplot layout 1,2 title 'Arena strategies over the same ar_text_encode stream (medians, after warm-up)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key outside right top
set xrange [-0.6:2.6]
set xlabel 'batch sizes of the stream'
set title 'time per call relative to caller-owned buffers (floor = 1)'
set ylabel 'time per call / floor time'
set yrange [0.943:*]
plot 'arena.dat' using 2:xtic(1) title 'arena', 'arena.dat' using 3:xtic(1) title 'glibc', 'arena.dat' using 4:xtic(1) title 'mimalloc', 'arena.dat' using 5:xtic(1) title 'jemalloc', 'arena.dat' using 6:xtic(1) title 'pool', 'arena.dat' using 7:xtic(1) title 'floor'
set title 'allocations per call after warm-up'
set ylabel 'allocator calls per call'
set yrange [0:3.45]
plot 'arena.dat' using 8:xtic(1) title 'arena', 'arena.dat' using 9:xtic(1) title 'glibc', 'arena.dat' using 10:xtic(1) title 'mimalloc', 'arena.dat' using 11:xtic(1) title 'jemalloc', 'arena.dat' using 12:xtic(1) title 'pool', 'arena.dat' using 13:xtic(1) title 'floor'
unset multiplot
