import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot, runtime } from './runtime';

export const packageName = 'n8n-nodes-clearinghouse';

/**
 * Builds the package with its own build commands (tsc, then gulp build:assets) in a staging copy
 * of the sources, then `npm pack`s it: once per process. Staging keeps the tests off dist/, which
 * other builds in the same tree write to. Sources: the working tree (default) or, with
 * E2E_SOURCE=head, the last commit (`git archive HEAD`). E2E_PACKAGE_TARBALL reuses a tarball.
 */
let tarball: string | undefined;
export function packedTarball(): string {
	if (process.env.E2E_PACKAGE_TARBALL) return process.env.E2E_PACKAGE_TARBALL;
	if (tarball && existsSync(tarball)) return tarball;
	const env = nodeEnv();
	removeStaleStages();
	const stage = join(repoRoot, '.e2e', 'build', String(process.pid));
	rmSync(stage, { recursive: true, force: true });
	mkdirSync(stage, { recursive: true });
	if (process.env.E2E_SOURCE === 'head') {
		execFileSync('bash', ['-c', `git archive HEAD ${buildInputs.join(' ')} | tar -x -C "${stage}"`], { cwd: repoRoot });
	} else {
		for (const input of buildInputs) cpSync(join(repoRoot, input), join(stage, input), { recursive: true });
	}
	symlinkSync(join(repoRoot, 'node_modules'), join(stage, 'node_modules'));
	execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: stage, env, stdio: 'inherit' });
	execFileSync('npx', ['gulp', 'build:assets'], { cwd: stage, env, stdio: ['ignore', 'ignore', 'inherit'] });
	checkDeclaredFiles(stage);
	execFileSync('npm', ['pack', '--silent', '--pack-destination', stage], { cwd: stage, env, stdio: ['ignore', 'ignore', 'inherit'] });
	const file = readdirSync(stage).find((name) => name.endsWith('.tgz'));
	if (!file) throw new Error(`npm pack wrote no tarball into ${stage}`);
	tarball = join(stage, file);
	return tarball;
}

/** n8n refuses the whole package when one file its package.json declares is missing, so say which. */
function checkDeclaredFiles(stage: string): void {
	const pkg = JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
	const missing = [...pkg.n8n.nodes, ...pkg.n8n.credentials].filter((entry) => !existsSync(join(stage, entry)));
	if (missing.length > 0) {
		throw new Error(`package.json declares files the build did not produce (n8n would not load the package): ${missing.join(', ')}`);
	}
}

/** Staging folders are named by pid: drop those whose process is gone. */
function removeStaleStages(): void {
	const root = join(repoRoot, '.e2e', 'build');
	if (!existsSync(root)) return;
	for (const name of readdirSync(root)) {
		const pid = Number(name);
		if (!Number.isInteger(pid) || pid === process.pid) continue;
		try {
			process.kill(pid, 0); // still running: leave it
		} catch {
			rmSync(join(root, name), { recursive: true, force: true });
		}
	}
}

/** What the build reads. */
const buildInputs = ['package.json', 'tsconfig.json', 'gulpfile.js', 'index.ts', 'nodes', 'credentials'];

/** Unpacks the tarball where n8n loads an installed community package from. */
export function installPackage(userFolder: string, tgz = packedTarball()): string {
	const nodeModules = join(userFolder, '.n8n', 'nodes', 'node_modules');
	const target = join(nodeModules, packageName);
	const staging = join(userFolder, '.unpack');
	rmSync(staging, { recursive: true, force: true });
	rmSync(target, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	mkdirSync(nodeModules, { recursive: true });
	execFileSync('tar', ['-xzf', tgz, '-C', staging]);
	renameSync(join(staging, 'package'), target);
	rmSync(staging, { recursive: true, force: true });
	return target;
}

/** Environment with Node 24 first on PATH (n8n's task runners spawn `node` by name). */
export function nodeEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const nodeBinDir = join(runtime().node, '..');
	const env: NodeJS.ProcessEnv = { ...process.env, ...extra, PATH: `${nodeBinDir}:${process.env.PATH ?? ''}` };
	// Jest sets NODE_ENV=test, under which `n8n start` exits 1 without a word; n8n runs as users run it.
	if (env.NODE_ENV === 'test') delete env.NODE_ENV;
	for (const key of Object.keys(env)) if (key.startsWith('JEST_')) delete env[key];
	return env;
}
