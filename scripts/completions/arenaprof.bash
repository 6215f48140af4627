# bash completion for arenaprof (installed by make install)

# _arenaprof_values CMD OPTION: the values OPTION of CMD takes, where they can be listed
# (a PID of a running process for record's and top's -p); 1 for an option without a list
_arenaprof_values()
{
	case "$1:$2" in
	plan:--strategy | plan:-s) echo "tflite greedy-size greedy-breadth naive micro" ;;
	plan:--delegate) echo "xnnpack none" ;;
	plan:--runtime) echo "litert tflite-runtime-2.14 tflm" ;;
	plan:--weights) echo "mmap copy" ;;
	report:--delegate | heatmap:--delegate | export:--delegate) echo "auto xnnpack none" ;;
	report:--runtime | heatmap:--runtime | export:--runtime) echo "auto litert tflite-runtime-2.14 tflm" ;;
	report:--format) echo "text json openmetrics" ;;
	heatmap:--format) echo "svg png csv ansi" ;;
	export:--format | export:-f) echo "chrome csv json" ;;
	heatmap:--by) echo "op run" ;;
	heatmap:--faults) echo "first all" ;;
	heatmap:--attr) echo "marker plan" ;;
	heatmap:--region) echo "arena workspace" ;;
	record:--probe | record:-m | top:--probe | top:-m | -*:--probe | -*:-m)
		echo "auto tp fentry perf" ;;
	record:--arena) echo "auto off" ;;
	record:--pid | record:-p | top:--pid | top:-p | -*:--pid | -*:-p)
		ps -e -o pid= 2>/dev/null ;;
	*) return 1 ;;
	esac
}

_arenaprof()
{
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}
	local cmds="plan record report top heatmap export run diff check help"
	local opts
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$cmds -p --help --version" -- "$cur"))
		return
	fi
	case $cmd in
	plan) opts="--delegate --cpu --strategy --budget --baseline --json --csv --top --as-dtype --no-inplace --import --threads --no-kernels --subgraph --arch --runtime --weights --input-shape --help" ;;
	record) opts="--pid --output --runs --duration --probe --run-probe --op-probe --interval --ring-size --keep --kill-at-runs --user --arena --btf --json --quiet --verbose --help" ;;
	report) opts="--plan --plan-csv --delegate --runtime --arena --salvage --json --format --pages --mappings --disagree --budget --help" ;;
	top|-p) opts="--pid --plan --output --interval --smaps-interval --psi-alarm --batch --json --iterations --probe --run-probe --op-probe --ring-size --snapshot-dir --trace-ring --openmetrics --alloc-probe --btf --budget --verbose --help" ;;
	heatmap) opts="--plan --plan-csv --delegate --runtime --arena --salvage --output --by --faults --cols --rows --runs --log --attr --format --width --force --skip-empty --region --help" ;;
	export) opts="--format --output --plan --plan-csv --delegate --runtime --arena --salvage --max-instants --help" ;;
	run) opts="--memory-max --memory-high --memory-min --plan --psi-trigger --repeat --cgroup-parent --json --user --help" ;;
	diff) opts="--plan --fail-above --fail-above-latency --budget --json --help" ;;
	check) opts="--json --btf --verbose --help" ;;
	help) COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return ;;
	esac
	local vals
	if vals=$(_arenaprof_values "$cmd" "${COMP_WORDS[COMP_CWORD - 1]}"); then
		COMPREPLY=($(compgen -W "$vals" -- "$cur"))
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _arenaprof arenaprof
