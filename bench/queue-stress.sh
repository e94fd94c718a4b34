#!/usr/bin/env bash
# Queue-mode benchmarks: Node 24 and the cached n8n, the package packed once, then one cluster per step.
#   stress      bench/queue-stress.ts -> bench/results/queue-stress.json
#               QUEUE_STRESS_EVENTS (default 200), QUEUE_STRESS_DEPLOYMENTS (e.g. hash/whenFinished)
#   throughput  bench/queue-throughput.ts -> bench/results/queue-throughput.json (1 worker against 2)
# QUEUE_BENCH picks the steps (default "stress,throughput"), in that order. TEST_PORT_BAND_OFFSET applies.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
work="$(pwd)/.e2e/bench-pack"
rm -rf "$work" && mkdir -p "$work"
npx tsc -p tsconfig.json
npx gulp build:assets >/dev/null
npm pack --silent --pack-destination "$work" >/dev/null
export E2E_PACKAGE_TARBALL="$(ls "$work"/*.tgz)"
steps="${QUEUE_BENCH:-stress,throughput}"
for step in ${steps//,/ }; do
	case "$step" in
		stress) node -r ts-node/register/transpile-only bench/queue-stress.ts ;;
		throughput) node -r ts-node/register/transpile-only bench/queue-throughput.ts ;;
		*) echo "QUEUE_BENCH: unknown step '$step' (stress, throughput)" >&2; exit 2 ;;
	esac
done
