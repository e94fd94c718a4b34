#!/usr/bin/env bash
# npm run bench:scale (issue 45): large payouts and event intake, on a clean clone in at most 25 minutes.
# Node 24 and the cached n8n, the package packed once, then one section at a time (each starts and stops
# its own n8n processes, so sections never share the 2 cores):
#   single   bench/scale-single.ts  -> bench/results/scale-single.json  (1,000 / 5,000 / 10,000 payees, one execution)
#   chunks   bench/scale-chunks.ts  -> bench/results/scale-chunks.json  (10,000 in chunks, queue mode, 1 and 2 workers, a worker killed)
#   intake   bench/scale-intake.ts  -> bench/results/scale-intake.json  (events at rising rates, queue mode)
# BENCH_SCALE_SECTIONS picks the sections (default "single,chunks,intake"). TEST_PORT_BAND_OFFSET applies.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
work="$(pwd)/.e2e/bench-scale-pack"
rm -rf "$work" && mkdir -p "$work"
npx tsc -p tsconfig.json
npx gulp build:assets >/dev/null
npm pack --silent --pack-destination "$work" >/dev/null
export E2E_PACKAGE_TARBALL="$(ls "$work"/*.tgz)"
sections="${BENCH_SCALE_SECTIONS:-single,chunks,intake}"
for section in ${sections//,/ }; do
	case "$section" in
		single | chunks | intake)
			if [ -f "bench/scale-$section.ts" ]; then
				node -r ts-node/register/transpile-only "bench/scale-$section.ts"
			else
				echo "[bench:scale] section '$section' is not built yet (bench/scale-$section.ts)" >&2
			fi
			;;
		*) echo "BENCH_SCALE_SECTIONS: unknown section '$section' (single, chunks, intake)" >&2; exit 2 ;;
	esac
done
