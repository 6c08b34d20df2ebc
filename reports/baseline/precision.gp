set terminal pngcairo size 1400,560 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'precision.png'
set datafile missing '?'
set multiplot layout 1,2 title 'Interval-hull precision vs few (medium presets and precision probes; families with identical values share a marker)'
set xtics ('1' 0, '2' 1, '4' 2, '8' 3, '16' 4, '64' 5, '256' 6)
set xrange [-0.5:6.5]
set xlabel 'few (iterations given as points, not a hull)'
set key top right box opaque reverse Left
set title 'falsely rejected sites (exact accepts, certificate rejects)'
set ylabel 'sites'
set yrange [-0.3:6.0]
set ytics 1
set format y '%.0f'
plot 'precision.dat' index 0 using ($1+-0.04):2 with points lc rgb '#000000' pt 7 dt 1 ps 2 lw 2 title 'decoder, moe, training, pipeline, encoder', 'precision.dat' index 1 using ($1+0.04):2 with points lc rgb '#0072b2' pt 5 dt 2 ps 2 lw 2 title 'flat'
set title 'hull slack (bytes the hulls claim, no iteration touches)'
set logscale y 1024
set ylabel 'bytes'
set key bottom left box opaque reverse Left
set yrange [57340.5:116324727332372.0]
set ytics ('64 KiB' 65536, '1 MiB' 1048576, '16 MiB' 16777216, '256 MiB' 268435456, '4 GiB' 4294967296, '64 GiB' 68719476736, '1 TiB' 1099511627776, '16 TiB' 17592186044416)
set mytics 1
plot 'precision.dat' index 2 using ($1+-0.20):2 with points lc rgb '#000000' pt 7 dt 1 ps 2 lw 2 title 'decoder', 'precision.dat' index 3 using ($1+-0.12):2 with points lc rgb '#0072b2' pt 5 dt 2 ps 2 lw 2 title 'moe', 'precision.dat' index 4 using ($1+-0.04):2 with points lc rgb '#d55e00' pt 9 dt 3 ps 2 lw 2 title 'training', 'precision.dat' index 5 using ($1+0.04):2 with points lc rgb '#009e73' pt 11 dt 4 ps 2 lw 2 title 'pipeline', 'precision.dat' index 6 using ($1+0.12):2 with points lc rgb '#cc79a7' pt 13 dt 5 ps 2 lw 2 title 'encoder', 'precision.dat' index 7 using ($1+0.20):2 with points lc rgb '#8c6d00' pt 15 dt 1 ps 2 lw 2 title 'flat'
unset multiplot
