set terminal pngcairo size 1500,1050 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'arena.png'
set datafile missing '?'
set multiplot layout 2,2 title 'Arena strategies over the same ar_text_encode streams (CPU time; bars: median, whiskers: IQR over repetitions)'
set style fill solid 1.0 border lc rgb 'black'
set boxwidth 0.9
set grid noxtics ytics
set key outside right top vertical
set xrange [-0.6:4.6]
set xlabel 'stream'
set style data histograms
set style histogram errorbars gap 1 lw 1
set title 'allocation path per call (mean ns; arena: an empty-batch call)'
set logscale y
set ylabel 'ns per call'
set ytics ('10 ns' 10, '20 ns' 20, '50 ns' 50, '100 ns' 100, '200 ns' 200, '500 ns' 500, '1 µs' 1000, '2 µs' 2000, '5 µs' 5000, '10 µs' 10000, '20 µs' 20000, '50 µs' 50000, '100 µs' 100000, '200 µs' 200000, '500 µs' 500000)
set yrange [7.49609375:511137.5625]
plot 'arena.dat' using 2:3:4:xtic(1) title 'arena' lc rgb '#440154', 'arena.dat' using 14:15:16:xtic(1) title 'glibc' lc rgb '#443983', 'arena.dat' using 26:27:28:xtic(1) title 'mimalloc' lc rgb '#31688e', 'arena.dat' using 38:39:40:xtic(1) title 'jemalloc' lc rgb '#21918c', 'arena.dat' using 50:51:52:xtic(1) title 'mmap' lc rgb '#35b779', 'arena.dat' using 62:63:64:xtic(1) title 'pool' lc rgb '#90d743'
unset logscale y
set ytics auto
set style data histograms
set style histogram errorbars gap 1 lw 1
set title 'time per call / floor time (1 = caller-owned buffers)'
set ylabel 'ratio to the floor'
set yrange [0:4.856]
set format y '%.1f'
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'
plot 'arena.dat' using 5:6:7:xtic(1) title 'arena' lc rgb '#440154', 'arena.dat' using 17:18:19:xtic(1) title 'glibc' lc rgb '#443983', 'arena.dat' using 29:30:31:xtic(1) title 'mimalloc' lc rgb '#31688e', 'arena.dat' using 41:42:43:xtic(1) title 'jemalloc' lc rgb '#21918c', 'arena.dat' using 53:54:55:xtic(1) title 'mmap' lc rgb '#35b779', 'arena.dat' using 65:66:67:xtic(1) title 'pool' lc rgb '#90d743', 'arena.dat' using 77:78:79:xtic(1) title 'floor' lc rgb '#d8e219'
unset arrow 1
set format y '%g'
set style data histograms
set style histogram clustered gap 1
set title 'allocator calls per call after warm-up'
set ylabel 'allocations per call'
set yrange [0:3.55]
set ytics 1
plot 'arena.dat' using 8:xtic(1) title 'arena' lc rgb '#440154', 'arena.dat' using 20:xtic(1) title 'glibc' lc rgb '#443983', 'arena.dat' using 32:xtic(1) title 'mimalloc' lc rgb '#31688e', 'arena.dat' using 44:xtic(1) title 'jemalloc' lc rgb '#21918c', 'arena.dat' using 56:xtic(1) title 'mmap' lc rgb '#35b779', 'arena.dat' using 68:xtic(1) title 'pool' lc rgb '#90d743', 'arena.dat' using 80:xtic(1) title 'floor' lc rgb '#d8e219'
set ytics auto
set style data histograms
set style histogram clustered gap 1
set title 'bytes held / most bytes one call writes'
set ylabel 'reserved / high water'
set yrange [0:7.96]
plot 'arena.dat' using 9:xtic(1) title 'arena' lc rgb '#440154', 'arena.dat' using 21:xtic(1) title 'glibc' lc rgb '#443983', 'arena.dat' using 33:xtic(1) title 'mimalloc' lc rgb '#31688e', 'arena.dat' using 45:xtic(1) title 'jemalloc' lc rgb '#21918c', 'arena.dat' using 57:xtic(1) title 'mmap' lc rgb '#35b779', 'arena.dat' using 69:xtic(1) title 'pool' lc rgb '#90d743', 'arena.dat' using 81:xtic(1) title 'floor' lc rgb '#d8e219'
unset multiplot
