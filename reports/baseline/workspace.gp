set terminal pngcairo size 1300,640 font 'DejaVu Sans,12' noenhanced
set border lw 1.2
set grid lc rgb '#d0d0d0'
set output 'workspace.png'
set title 'Planner workspace and the lower bound per plan (bytes, log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 1.0 border lc rgb 'black'
set boxwidth 0.9
set grid noxtics ytics
set key top left box opaque reverse Left
set xtics rotate by -35
set bmargin 7
set rmargin 9
set logscale y 1024
set ylabel 'bytes'
set yrange [196736.0:76428610560.0]
set ytics ('256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304, '16 MiB' 16777216, '64 MiB' 67108864, '256 MiB' 268435456, '1 GiB' 1073741824, '4 GiB' 4294967296, '16 GiB' 17179869184, '64 GiB' 68719476736)
set mytics 1
plot 'workspace.dat' using 2:xtic(1) title 'workspace' lc rgb '#443983', '' using 3 title 'lower bound' lc rgb '#90d743'
