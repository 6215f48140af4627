# fish completion for arenaprof (installed by make install)
set -l cmds plan record report top heatmap export run diff check help
complete -c arenaprof -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
for c in $cmds
	complete -c arenaprof -n "__fish_seen_subcommand_from $c" -a "(arenaprof $c --help 2>/dev/null | string match -r -a -- '--[a-z][a-z-]*' | sort -u)"
end
# the values of an option that has a fixed set
complete -c arenaprof -n "__fish_seen_subcommand_from plan" -l runtime -x -a "litert tflite-runtime-2.14"
