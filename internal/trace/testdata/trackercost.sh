#!/bin/sh
# trackercost.sh wall|instructions: what the conversation trackers cost on
# the committed captures (BenchmarkTracker), beside decoding with the Params
# given (impl=bare, an oracle) and with the state kept by hand (impl=hand).
#
#   wall          ROUNDS rounds (10) of each impl, one after the other in
#                 each round so that a drift of the machine falls on all
#                 three alike, one core (taskset when there is one), then
#                 benchstat: every impl against bare, tracker against hand.
#   instructions  callgrind's count, for 1 and N+1 passes (N: 50), of the
#                 module's functions and the standard library's they call
#                 (not the runtime's collector and scheduler, whose work
#                 follows the clock), the difference over N: instructions a
#                 pass, repeatable whatever else the machine does (needs
#                 valgrind). No asynchronous preemption: callgrind fails on
#                 its signals. Each process hashes with its own seeds (maps,
#                 the intern table), which moves a pass by a few per cent: the
#                 median of REPEAT (3) processes. (The pass's inclusive
#                 count is no measure: callgrind loses calls across a
#                 goroutine's stack growth.)
#
# KINDS picks captures (sessions logical physical backup); OUT (/tmp/pgspec-
# tracker.txt) keeps the raw wall-time run.
set -eu
mode=${1:-wall}
kinds=${KINDS:-sessions logical physical backup}
out=${OUT:-/tmp/pgspec-tracker.txt}
go=${GO:-go}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)/trace.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$here" && $go test -c -o "$bin" .)
cd "$here" # the benchmark reads ../../testdata/captures

bench() { # bench KIND IMPL BENCHTIME [COMMAND…]: BenchmarkTracker's case, run under COMMAND
	kind=$1 impl=$2 benchtime=$3
	shift 3
	"$@" "$bin" -test.run '^$' -test.bench "^BenchmarkTracker\$/^capture=$kind\$/^impl=$impl\$" -test.benchtime "$benchtime" -test.cpu 1
}

case $mode in
wall)
	pin=
	command -v taskset >/dev/null && pin="taskset -c $(($(nproc) - 1))"
	: >"$out"
	for r in $(seq "${ROUNDS:-10}"); do
		for kind in $kinds; do
			for impl in bare hand tracker; do
				bench "$kind" "$impl" 1s $pin | grep '^Benchmark' >>"$out"
			done
		done
	done
	benchstat="$go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
	$benchstat -table '' -filter '.unit:sec/op' -col '/impl@(bare hand tracker)' "$out"
	echo
	$benchstat -table '' -filter '.unit:sec/op' -col '/impl@(hand tracker)' "$out"
	;;
instructions)
	command -v valgrind >/dev/null || { echo "trackercost.sh: instructions needs valgrind (apt-get install valgrind)" >&2; exit 1; }
	n=${N:-50}
	total() { # total KIND IMPL PASSES: the instructions of the module's code and what it calls
		cg=$(dirname "$bin")/cg.out
		bench "$1" "$2" "$3x" env GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 \
			valgrind --tool=callgrind --callgrind-out-file="$cg" >/dev/null 2>&1
		callgrind_annotate --inclusive=no --tree=none --auto=no --threshold=100 "$cg" | awk '
			$1 ~ /^[0-9,]+$/ && /%\)/ {
				fn = $0; sub(/^[^%]*%\) +/, "", fn); sub(/ \[.*/, "", fn); sub(/^[^:]*:/, "", fn)
				if (fn ~ /pgspec\/pgspec|^runtime\.(mem|interfaceSwitch|typeAssert|getitab|assertE2I)|bytealg|^bytes\.|^strings\.|^unicode|^encoding\/binary|^sync\/atomic|^internal\/sync\.|^indexbytebody|^memeqbody/) {
					gsub(",", "", $1); sum += $1
				}
			}
			END { print sum + 0 }'
	}
	perpass() { # perpass KIND IMPL: the median over REPEAT processes of a pass's instructions
		for r in $(seq "${REPEAT:-3}"); do
			echo $((($(total "$1" "$2" $((n + 1))) - $(total "$1" "$2" 1)) / n))
		done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
	}
	printf '%-10s %12s %12s %12s %9s %9s\n' capture bare hand tracker 'vs bare' 'vs hand'
	for kind in $kinds; do
		awk -v k="$kind" -v b="$(perpass "$kind" bare)" -v h="$(perpass "$kind" hand)" -v t="$(perpass "$kind" tracker)" \
			'BEGIN { printf "%-10s %12d %12d %12d %+8.1f%% %+8.1f%%\n", k, b, h, t, 100 * (t - b) / b, 100 * (t - h) / h }'
	done
	;;
*)
	echo "usage: trackercost.sh wall|instructions" >&2
	exit 2
	;;
esac
