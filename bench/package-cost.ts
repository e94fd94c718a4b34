/**
 * 4. Package cost: the tarball users download, and the time n8n takes to load the package:
 * `n8n execute` of a trivial workflow in two otherwise identical instances, one with the package
 * installed, one without, alternating.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { N8nInstance } from '../harness/n8nProcess';
import { packageName } from '../harness/package';
import type { BenchContext } from './context';
import { figure, show, type Figure } from './lib/stats';
import { IDS, trivialWorkflow } from './workflows';

export interface PackageResult {
	tarballBytes: number;
	unpackedBytes: number;
	files: number;
	executeMs: { withPackage: Figure; withoutPackage: Figure };
	/** With − without, run by run. */
	loadMs: Figure;
}

function folderSize(dir: string): { bytes: number; files: number } {
	let bytes = 0;
	let files = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) {
			const inner = folderSize(path);
			bytes += inner.bytes;
			files += inner.files;
		} else {
			bytes += statSync(path).size;
			files++;
		}
	}
	return { bytes, files };
}

async function timedExecute(n8n: N8nInstance): Promise<number> {
	const started = performance.now();
	const result = await n8n.execute(IDS.trivial);
	const ms = performance.now() - started;
	if (result.code !== 0 || !result.run?.data?.resultData?.runData?.Done || result.run.data.resultData.error)
		throw new Error(
			`n8n execute failed (exit code ${result.code}, signal ${result.signal ?? 'none'}; SIGKILL is the harness's 180 s timeout):\n${result.stdout.slice(-1500)}\n${result.stderr.slice(-1500)}`,
		);
	return ms;
}

export async function benchPackage(ctx: BenchContext, tarball: string): Promise<PackageResult> {
	const runs = ctx.config.runs;
	ctx.log(`\n## 4. Package cost: tarball, and n8n execute of a trivial workflow with and without the package, ${runs} runs each`);
	const installed = folderSize(join(ctx.n8n.userFolder, '.n8n', 'nodes', 'node_modules', packageName));
	// `n8n execute` prints the run through its logger at level info: both instances at info.
	ctx.n8n.env.N8N_LOG_LEVEL = 'info';
	const bare = await N8nInstance.create({ installPackage: false, env: { N8N_LOG_LEVEL: 'info' } });
	try {
		await Promise.all([ctx.n8n.importWorkflow(trivialWorkflow()), bare.importWorkflow(trivialWorkflow())]);
		// One untimed run each (first run migrates nothing new but warms the OS file cache).
		await timedExecute(ctx.n8n);
		await timedExecute(bare);
		const withPackage: number[] = [];
		const withoutPackage: number[] = [];
		for (let r = 0; r < runs; r++) {
			if (r % 2 === 0) {
				withPackage.push(await timedExecute(ctx.n8n));
				withoutPackage.push(await timedExecute(bare));
			} else {
				withoutPackage.push(await timedExecute(bare));
				withPackage.push(await timedExecute(ctx.n8n));
			}
			ctx.log(`  run ${r + 1} with ${withPackage[r].toFixed(0)} ms, without ${withoutPackage[r].toFixed(0)} ms`);
		}
		const result: PackageResult = {
			tarballBytes: statSync(tarball).size,
			unpackedBytes: installed.bytes,
			files: installed.files,
			executeMs: { withPackage: figure(withPackage, 'ms', 0), withoutPackage: figure(withoutPackage, 'ms', 0) },
			loadMs: figure(
				withPackage.map((w, i) => w - withoutPackage[i]),
				'ms',
				0,
			),
		};
		ctx.log(`  tarball ${(result.tarballBytes / 1024).toFixed(1)} KiB (${result.files} files, ${(result.unpackedBytes / 1024).toFixed(1)} KiB unpacked)`);
		ctx.log(`  n8n execute, trivial workflow: with package ${show(result.executeMs.withPackage)}, without ${show(result.executeMs.withoutPackage)}`);
		ctx.log(`  load time of the package (difference): ${show(result.loadMs)}`);
		return result;
	} finally {
		await bare.dispose();
	}
}
