# bash completion for arenaprof (installed by make install)
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
	plan) opts="--delegate --cpu --strategy --budget --baseline --json --csv --top --as-dtype --no-inplace --import --threads --no-kernels --subgraph --arch --runtime --input-shape --help" ;;
	record) opts="--pid --output --runs --duration --probe --run-probe --op-probe --interval --ring-size --keep --kill-at-runs --user --arena --btf --json --verbose --help" ;;
	report) opts="--plan --plan-csv --delegate --arena --salvage --json --format --pages --mappings --disagree --budget --help" ;;
	top|-p) opts="--pid --plan --output --interval --smaps-interval --psi-alarm --batch --json --iterations --probe --run-probe --op-probe --ring-size --snapshot-dir --trace-ring --openmetrics --alloc-probe --btf --verbose --help" ;;
	heatmap) opts="--plan --plan-csv --delegate --arena --salvage --output --by --faults --cols --rows --runs --log --attr --format --width --force --skip-empty --region --help" ;;
	export) opts="--format --output --plan --plan-csv --delegate --arena --salvage --max-instants --help" ;;
	run) opts="--memory-max --memory-high --memory-min --plan --psi-trigger --repeat --cgroup-parent --json --user --help" ;;
	diff) opts="--plan --fail-above --json --help" ;;
	check) opts="--json --btf --verbose --help" ;;
	help) COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return ;;
	esac
	# the values of an option that has a fixed set
	if [ "$cmd" = plan ] && [ "${COMP_WORDS[COMP_CWORD-1]}" = --runtime ]; then
		COMPREPLY=($(compgen -W "litert tflite-runtime-2.14" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _arenaprof arenaprof
