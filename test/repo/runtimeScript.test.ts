/**
 * scripts/runtime.sh, the one installer of Node and n8n for every n8n line, as its callers use it
 * (`source scripts/runtime.sh` in a script or a shell, `bash scripts/runtime.sh`): which Node it picks
 * for which n8n, that sourcing it leaves the caller's shell options alone, and that a failure returns
 * from `source` instead of ending an interactive shell. Nothing is installed: a stand-in `node` (which
 * reports the major it is told), `uname` (an unknown CPU) and `npm` (which fails) make every install
 * path stop before any download, in a cache folder of the test's own. The tests of a group run at once
 * (test.concurrent): each is a few short processes that mostly wait to be scheduled.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
let dir: string;
let fakeBin: string;

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'runtime-script-'));
	fakeBin = join(dir, 'bin');
	mkdirSync(fakeBin);
	// `node -p process.execPath` gives this folder's node; any other `node -p` the major it is told.
	writeFileSync(
		join(fakeBin, 'node'),
		`#!/bin/sh\ncase "$*" in\n  *execPath*) echo "${fakeBin}/node" ;;\n  *modules*) echo 999 ;;\n  *) echo "$FAKE_NODE_MAJOR" ;;\nesac\n`,
	);
	writeFileSync(join(fakeBin, 'uname'), '#!/bin/sh\ncase "$1" in\n  -s) echo Linux ;;\n  *) echo sparc64 ;;\nesac\n');
	writeFileSync(join(fakeBin, 'npm'), '#!/bin/sh\necho "stand-in npm: $*" >&2\nexit 1\n');
	for (const name of ['node', 'uname', 'npm']) chmodSync(join(fakeBin, name), 0o755);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `script` in bash with the stand-ins first on PATH and a cache folder of its own. */
function shell(script: string, env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string; cache: string }> {
	const base = { ...process.env };
	for (const key of Object.keys(base)) if (key.startsWith('CLEARINGHOUSE_') || key === 'RUNTIME_NODE_DIR' || key === 'N8N_BIN') delete base[key];
	const cache = join(dir, `cache-${Math.random().toString(36).slice(2)}`);
	const options = {
		cwd: root,
		encoding: 'utf8' as const,
		env: { ...base, PATH: `${fakeBin}:${process.env.PATH}`, CLEARINGHOUSE_RUNTIME_CACHE: cache, FAKE_NODE_MAJOR: '20', ...env },
	};
	return new Promise((resolve) => {
		const child = execFile('bash', ['-c', script], options, (error, stdout, stderr) => {
			resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr, cache });
		});
		child.stdin?.end();
	});
}

/** The script stopped with exit 1 and said why on stderr. */
function expectStopped(run: Awaited<ReturnType<typeof shell>>, message: string): void {
	expect(run.status).toBe(1);
	expect(run.stderr).toContain(message);
}

describe('which Node runs which n8n', () => {
	test.concurrent('n8n 2.x (the default): Node 24, fetched when the Node on PATH is older', async () => {
		expectStopped(await shell('bash scripts/runtime.sh node-only'), 'unsupported CPU sparc64: install Node 24 yourself');
	});

	test.concurrent('n8n 2.x: a newer Node on PATH is used as it is', async () => {
		const run = await shell('bash scripts/runtime.sh node-only', { FAKE_NODE_MAJOR: '26' });
		expect(run.stderr).toBe('');
		expect(run.stdout).toBe(`NODE=${fakeBin}/node\nN8N=${run.cache}/n8n-2.40.7/node_modules/.bin/n8n\n`);
		expect(existsSync(run.cache)).toBe(false);
	});

	test.concurrent('n8n 1.x: Node 22 exactly, not the newer Node on PATH', async () => {
		expectStopped(
			await shell('bash scripts/runtime.sh node-only', { FAKE_NODE_MAJOR: '24', CLEARINGHOUSE_N8N_VERSION: '1.123.81' }),
			'install Node 22 yourself',
		);
	});

	test.concurrent('CLEARINGHOUSE_NODE_MAJOR chooses another Node; the n8n folder is per version', async () => {
		const run = await shell('bash scripts/runtime.sh node-only', {
			FAKE_NODE_MAJOR: '20',
			CLEARINGHOUSE_NODE_MAJOR: '20',
			CLEARINGHOUSE_N8N_VERSION: '1.90.2',
		});
		expect(run.stderr).toBe('');
		expect(run.stdout).toBe(`NODE=${fakeBin}/node\nN8N=${run.cache}/n8n-1.90.2/node_modules/.bin/n8n\n`);
	});
});

describe('sourced', () => {
	test.concurrent.each([
		['none set', 'set +euo pipefail'],
		['set -e only', 'set +uo pipefail; set -e'],
	])("exports the runtime and leaves the caller's shell options as they were (%s)", async (_name, setup) => {
		const options = 'echo "$-" "$(shopt -po errexit nounset pipefail | xargs)"';
		const run = await shell(
			`${setup}; ${options}; source scripts/runtime.sh node-only; ${options}; echo "$RUNTIME_NODE_DIR|$N8N_RUNTIME_VERSION|\${PATH%%:*}|$npm_config_yes"`,
			{
				FAKE_NODE_MAJOR: '24',
			},
		);
		const [before, after, exported] = run.stdout.trim().split('\n');
		expect(after).toBe(before);
		expect(exported).toBe(`${dir}|2.40.7|${fakeBin}|true`);
	});

	test.concurrent('a failure returns 1 from `source` and the shell goes on; under set -e the script stops there', async () => {
		const [interactive, strict] = await Promise.all([
			shell('source scripts/runtime.sh node-only; echo "returned $?"; echo still here'),
			shell('set -e; source scripts/runtime.sh node-only; echo not reached'),
		]);
		expect(interactive.stdout).toBe('returned 1\nstill here\n');
		expect(interactive.stderr).toContain('[runtime] error: unsupported CPU sparc64');

		expect(strict.status).toBe(1);
		expect(strict.stdout).toBe('');
	});

	test.concurrent("only `node-only` is read from the arguments: a calling script's own arguments are not", async () => {
		// A script sourcing it without arguments passes on its own ("$@" of the script).
		const run = await shell('set -- --selectProjects compat; source scripts/runtime.sh; echo "returned $?"', { FAKE_NODE_MAJOR: '24' });
		expect(run.stdout).toBe('returned 1\n');
		// It went on to n8n (not node-only), which the stand-in npm stops at the download (or a missing compiler before it).
		expect(run.stderr).toMatch(/n8n 2\.40\.7: downloading|missing: /);
	});
});
