# fish completion for arenaprof (installed by make install): commands, each command's
# options from its --help, the values of the options that take one of a list (as
# arenaprof.bash's _arenaprof_values gives them) and PIDs for -p
set -l cmds plan record report top heatmap export run diff check help
complete -c arenaprof -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
for c in $cmds
	complete -c arenaprof -n "__fish_seen_subcommand_from $c" -a "(arenaprof $c --help 2>/dev/null | string match -r -a -- '--[a-z][a-z-]*' | sort -u)"
end
# __arenaprof_after CMD OPT...: the command is CMD and the word before the cursor one of OPT
function __arenaprof_after
	set -l words (commandline -opc)
	contains -- $argv[1] $words; and contains -- $words[-1] $argv[2..-1]
end
complete -c arenaprof -f -n '__arenaprof_after plan --strategy -s' -a 'tflite greedy-size greedy-breadth naive micro'
complete -c arenaprof -f -n '__arenaprof_after plan --delegate' -a 'xnnpack none'
for c in report heatmap export
	complete -c arenaprof -f -n "__arenaprof_after $c --delegate" -a 'auto xnnpack none'
	complete -c arenaprof -f -n "__arenaprof_after $c --runtime" -a 'auto litert tflite-runtime-2.14 tflm'
end
complete -c arenaprof -f -n '__arenaprof_after report --format' -a 'text json openmetrics'
complete -c arenaprof -f -n '__arenaprof_after heatmap --format' -a 'svg png csv ansi'
complete -c arenaprof -f -n '__arenaprof_after export --format -f' -a 'chrome csv json'
complete -c arenaprof -f -n '__arenaprof_after heatmap --by' -a 'op run'
complete -c arenaprof -f -n '__arenaprof_after heatmap --faults' -a 'first all'
complete -c arenaprof -f -n '__arenaprof_after heatmap --attr' -a 'marker plan'
complete -c arenaprof -f -n '__arenaprof_after heatmap --region' -a 'arena workspace'
for c in record top
	complete -c arenaprof -f -n "__arenaprof_after $c --probe -m" -a 'auto tp fentry perf'
	complete -c arenaprof -f -n "__arenaprof_after $c --pid -p" -a '(__fish_complete_pids)'
end
# 'arenaprof -p PID': the live view
complete -c arenaprof -f -n 'test (count (commandline -opc)) -eq 2; and contains -- (commandline -opc)[2] -p --pid' -a '(__fish_complete_pids)'
complete -c arenaprof -f -n '__arenaprof_after plan --runtime' -a 'litert tflite-runtime-2.14 tflm'
complete -c arenaprof -f -n '__arenaprof_after plan --weights' -a 'mmap copy'
