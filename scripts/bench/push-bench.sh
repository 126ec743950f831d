#!/usr/bin/env bash
# Pushes the 100-profile bundle corpus (scripts/bench/bundle-corpus.sh makes it)
# to a local OpenTelemetry Collector (internal/push/collectortest's build:
# OTLP receiver, file exporter writing every request to a file) over each
# protocol, RUNS times each, and prints the medians: wall time, profiles/s,
# MB/s (of the input files, and of the requests before compression), the
# share of pprofx's wall time spent waiting on the collector (from pprofx's
# summary line: blocked handing a request to a busy sender, or waiting for
# the last answers), and the CPU seconds of pprofx and of the collector
# (/usr/bin/time and /proc/PID/stat; not skewed by other load, unlike wall
# time). Usage:
#   scripts/bench/bundle-corpus.sh && scripts/bench/push-bench.sh [CORPUS_DIR] [RUNS] [EXTRA PUSH FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=${1:-corpus}
runs=${2:-5}
shift $(( $# > 2 ? 2 : $# )) || true
extra=("$@")
ls "$corpus"/* >/dev/null
tmp=$(mktemp -d)
trap 'kill $colpid 2>/dev/null || true; wait $colpid 2>/dev/null || true; rm -rf "$tmp"' EXIT
colpid=
CGO_ENABLED=0 go build -tags grpcnotrace -o "$tmp/pprofx" ./cmd/pprofx # as make build builds it
(cd internal/push/collectortest && go build -o "$tmp/otelcol" ./cmd/otelcol-pprofx)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
hport=$(port); gport=$(port)
cat >"$tmp/collector.yaml" <<EOF
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:$gport
      http:
        endpoint: 127.0.0.1:$hport
exporters:
  file:
    path: $tmp/received.bin
    format: proto
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    profiles:
      receivers: [otlp]
      exporters: [file]
EOF
"$tmp/otelcol" --config "$tmp/collector.yaml" --feature-gates service.profilesSupport >"$tmp/collector.log" 2>&1 &
colpid=$!
for i in $(seq 100); do grep -q "Everything is ready" "$tmp/collector.log" && break; sleep 0.1; done
clk=$(getconf CLK_TCK)
colcpu() { awk -v c="$clk" '{print ($14+$15)/c}' /proc/$colpid/stat; }
files=$(ls "$corpus" | wc -l)
inbytes=$(cat "$corpus"/* | wc -c)
echo "corpus: $files files, $inbytes bytes; $runs runs per protocol; $(nproc) cores; machine load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %8s %11s %12s %12s %9s %10s %10s\n' protocol wall profiles/s "in MB/s" "req MB/s" waiting "pprofx cpu" "otelcol cpu"
for proto in http/protobuf http/json grpc; do
	ep=http://127.0.0.1:$hport
	[ "$proto" = grpc ] && ep=http://127.0.0.1:$gport
	: >"$tmp/rows"
	for r in $(seq "$runs"); do
		c0=$(colcpu)
		/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$tmp/pprofx" push "$corpus"/* --endpoint "$ep" --protocol "$proto" ${extra[@]+"${extra[@]}"} 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
		c1=$(colcpu)
		sum=$(grep 'pprofx: pushed' "$tmp/err")
		# "... in N requests, 12.3 MiB (...), R retries, 1.2s (345ms waiting on the server)"
		echo "$sum" | awk -v t="$(cat "$tmp/time")" -v c0="$c0" -v c1="$c1" -v inb="$inbytes" '
			function dur(s) { if (s ~ /ms$/) return substr(s, 1, length(s)-2)/1000; if (s ~ /µs$/) return 0;
				if (s ~ /m[0-9.]+s$/) { split(s, a, "m"); return a[1]*60 + substr(a[2], 1, length(a[2])-1) }
				return substr(s, 1, length(s)-1) }
			function bytes(n, u) { sub(/,$/, "", u); return n * (u == "GiB" ? 2^30 : u == "MiB" ? 2^20 : u == "KiB" ? 2^10 : 1) }
			{ for (i = 1; i <= NF; i++) { if ($i == "requests,") req = bytes($(i+1), $(i+2)); if ($i == "pushed") n = $(i+1)
			    if ($(i) ~ /^\(/ && $(i+1) == "waiting") { w = dur(substr($i, 2)); el = dur(substr($(i-1), 1, length($(i-1))-0)) } }
			  split(t, tt, " "); wall = tt[1]; cpu = tt[2] + tt[3]
			  printf "%.3f %.1f %.2f %.2f %.3f %.2f %.2f\n", wall, n / wall, inb / wall / 1e6, req / wall / 1e6, w / el, cpu, c1 - c0 }' >>"$tmp/rows"
	done
	sort -n "$tmp/rows" | awk -v p="$proto" '{ r[NR] = $0 } END { split(r[int((NR+1)/2)], m, " ");
		printf "%-14s %7.3fs %11.1f %12.2f %12.2f %8.0f%% %9.2fs %10.2fs\n", p, m[1], m[2], m[3], m[4], m[5]*100, m[6], m[7] }'
done
echo "(medians by wall time; waiting = share of pprofx's wall time blocked on the collector, from its summary line)"
