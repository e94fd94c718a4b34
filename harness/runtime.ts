import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (harness → ..). */
export const repoRoot = resolve(__dirname, '..');

export interface Runtime {
	/** Node 24 binary that runs every n8n command. */
	node: string;
	/** n8n CLI entry (a JS file run with `node`). */
	n8nBin: string;
	/** n8n's own node_modules (for flatted and friends). */
	n8nModules: string;
	version: string;
}

let cached: Runtime | undefined;

/**
 * The Node 24 + n8n runtime that scripts/runtime.sh caches outside the clone. Uses the paths
 * it exported when present; otherwise sources it, which (re)builds whatever is missing.
 */
export function runtime(): Runtime {
	if (cached) return cached;
	let n8nBin = process.env.N8N_BIN;
	let nodeDir = process.env.RUNTIME_NODE_DIR;
	if (!n8nBin || !nodeDir || !existsSync(join(n8nBin, '..', '..', '..', '.complete'))) {
		const out = execFileSync('bash', ['-c', 'source scripts/runtime.sh >/dev/null && echo "$N8N_BIN" && echo "$RUNTIME_NODE_DIR"'], {
			cwd: repoRoot,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
			timeout: 30 * 60_000,
		});
		[n8nBin, nodeDir] = out.trim().split('\n');
	}
	const n8nModules = resolve(n8nBin, '..', '..');
	const version = (JSON.parse(readFileSync(join(n8nModules, 'n8n', 'package.json'), 'utf8')) as { version: string }).version;
	cached = { node: join(nodeDir, 'bin', 'node'), n8nBin, n8nModules, version };
	return cached;
}
