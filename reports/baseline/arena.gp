set terminal pngcairo size 1500,1050 enhanced font 'DejaVu Sans,11' noenhanced
set output 'arena.png'
set datafile missing '?'
set multiplot layout 2,2 title 'Arena strategies over the same ar_text_encode stream (medians after one warm-up pass; see the report for what each panel measures)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key outside right top vertical
set xrange [-0.6:4.6]
set xlabel 'stream (batch sizes)'
set title 'allocation path per call (arena: an empty-batch call; floor: 0, not drawn)'
set logscale y
set format y '%g'
set ylabel 'ns per call (log scale)'
set yrange [1:*]
plot 'arena.dat' using 2:xtic(1) title 'arena' lc rgb '#9400d3', 'arena.dat' using 3:xtic(1) title 'glibc' lc rgb '#009e73', 'arena.dat' using 4:xtic(1) title 'mimalloc' lc rgb '#56b4e9', 'arena.dat' using 5:xtic(1) title 'jemalloc' lc rgb '#e69f00', 'arena.dat' using 6:xtic(1) title 'mmap' lc rgb '#555555', 'arena.dat' using 7:xtic(1) title 'pool' lc rgb '#cc79a7'
unset logscale y
set format y '%g'
set title 'total time per call relative to caller-owned buffers (floor = 1)'
set ylabel 'time per call / floor time'
set yrange [0:2.74]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'
plot 'arena.dat' using 9:xtic(1) title 'arena' lc rgb '#9400d3', 'arena.dat' using 10:xtic(1) title 'glibc' lc rgb '#009e73', 'arena.dat' using 11:xtic(1) title 'mimalloc' lc rgb '#56b4e9', 'arena.dat' using 12:xtic(1) title 'jemalloc' lc rgb '#e69f00', 'arena.dat' using 13:xtic(1) title 'mmap' lc rgb '#555555', 'arena.dat' using 14:xtic(1) title 'pool' lc rgb '#cc79a7', 'arena.dat' using 15:xtic(1) title 'floor' lc rgb '#d55e00'
unset arrow 1
set title 'allocator calls per call after warm-up (0: arena growths, pool misses, floor)'
set ylabel 'allocations per call'
set yrange [0:3.45]
plot 'arena.dat' using 16:xtic(1) title 'arena' lc rgb '#9400d3', 'arena.dat' using 17:xtic(1) title 'glibc' lc rgb '#009e73', 'arena.dat' using 18:xtic(1) title 'mimalloc' lc rgb '#56b4e9', 'arena.dat' using 19:xtic(1) title 'jemalloc' lc rgb '#e69f00', 'arena.dat' using 20:xtic(1) title 'mmap' lc rgb '#555555', 'arena.dat' using 21:xtic(1) title 'pool' lc rgb '#cc79a7', 'arena.dat' using 22:xtic(1) title 'floor' lc rgb '#d55e00'
set title 'bytes held vs the most bytes one call writes'
set ylabel 'reserved / high water'
set yrange [0:7.96]
plot 'arena.dat' using 23:xtic(1) title 'arena' lc rgb '#9400d3', 'arena.dat' using 24:xtic(1) title 'glibc' lc rgb '#009e73', 'arena.dat' using 25:xtic(1) title 'mimalloc' lc rgb '#56b4e9', 'arena.dat' using 26:xtic(1) title 'jemalloc' lc rgb '#e69f00', 'arena.dat' using 27:xtic(1) title 'mmap' lc rgb '#555555', 'arena.dat' using 28:xtic(1) title 'pool' lc rgb '#cc79a7', 'arena.dat' using 29:xtic(1) title 'floor' lc rgb '#d55e00'
unset multiplot
