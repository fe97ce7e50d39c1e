#!/bin/sh
# benchtable.sh [BENCH_OUT]: turns a `go test -bench` run of codec's
# benchmarks (make bench) into the README's tables: benchstat with one column
# per implementation, then the ratios pgspec/other per case and their
# geometric mean. benchstat comes from the module proxy at a fixed version.
set -eu
in=${1:-/tmp/pgspec-bench.txt}
benchstat="${GO:-go} run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

echo "## pgspec against pgproto3 (frontend/backend messages, 1 MiB result stream, physical replication stream, real sessions)"
$benchstat -filter '.name:(Decode OR Encode OR Stream OR PhysicalStream OR Sessions)' -col '/impl@(pgproto3 pgspec)' "$in"
echo
echo "## pgspec against pglogrepl (pgoutput decode)"
$benchstat -filter '.name:LogicalDecode' -col '/impl@(pglogrepl pgspec)' "$in"
echo
echo "## replication commands: ParseCommand against a hand-written split on spaces, Append against pglogrepl's Sprintf"
$benchstat -filter '.name:ParseCommand' -col '/impl@(hand pgspec)' "$in"
$benchstat -filter '.name:AppendCommand' -col '/impl@(pglogrepl pgspec)' "$in"
echo

# Ratios of the median sec/op, from benchstat's CSV: one row per case,
# columns name, other's sec/op, CI, pgspec's sec/op, CI, delta, p.
ratios() {
	$benchstat -format csv -filter "$1" -col "/impl@($2 pgspec)" "$in" 2>/dev/null |
		awk -F, -v other="$2" '
			/^$/ { if (n) exit } # the sec/op table ends at the first blank line after its rows
			$1 ~ /-[0-9]+$/ && $2 + 0 > 0 && $4 + 0 > 0 {
				r = $4 / $2; n++; logsum += log(r)
				if (r > worst) { worst = r; worstName = $1 }
				printf "%-28s %7.2fx\n", $1, r
			}
			END {
				if (n) printf "%-28s %7.2fx  (worst: %s %.2fx; %d cases; pgspec/%s ns/op, lower is better)\n", "geomean", exp(logsum / n), worstName, worst, n, other
			}'
}
echo "## pgspec/pgproto3 ns/op over the shared messages (target: every case <= 1.0x, <= 1.3x where the README names the extra work)"
ratios '.name:(Decode OR Encode)' pgproto3
echo
echo "## pgspec/pgproto3 ns/op, streams framed from an io.Reader (target: <= 1.0x; Sessions, the captured real traffic: <= 0.6x)"
ratios '.name:(Stream OR PhysicalStream OR Sessions)' pgproto3
echo
echo "## pgspec/pglogrepl ns/op, pgoutput decode (target: <= 0.125x, 8x faster)"
ratios '.name:LogicalDecode' pglogrepl
