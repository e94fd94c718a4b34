/**
 * `npm run bench`: the package inside a real n8n (the n8n harness's isolated instance with the
 * packed package) against the sandbox, each figure a median over repeated runs with the ratio to a
 * baseline measured in the same run. Sizes and sections come from the environment (see
 * bench/README.md); results go to bench/results/<timestamp>.json and latest.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { N8nInstance } from '../harness/n8nProcess';
import { packedTarball } from '../harness/package';
import { repoRoot, runtime } from '../harness/runtime';
import { freePort } from '../harness/ports';
import { sandboxCredential } from '../harness/sandbox';
import { SandboxClient } from '../harness/sandboxClient';
import { benchBatch } from './batch';
import type { BenchConfig, BenchContext } from './context';
import { startSandboxProcess } from './lib/sandbox-process';
import { benchListing } from './listing';
import { benchPackage } from './package-cost';
import { compareWithPrevious, summarize } from './report';
import { benchTrigger, unpublishTriggers } from './trigger';
import { benchVerification } from './verification';
import { benchWorkflows, PLAIN_PATH, WEBHOOK_PATHS, type BatchOrderFields } from './workflows';

/** A loaded machine can take minutes to start n8n (its database ping alone timed out once at 90 s). */
const START_TIMEOUT_MS = 300_000;

const ALL_SECTIONS = ['batch', 'listing', 'diagnostics', 'trigger', 'verification', 'package'];
const profileDirOf = () => process.env.BENCH_CPU_PROFILE;

const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

function config(): BenchConfig {
	return {
		runs: env('BENCH_RUNS', 3),
		orders: env('BENCH_ORDERS', 2000),
		concurrency: env('BENCH_CONCURRENCY', 5),
		listed: env('BENCH_LISTED', 100_000),
		pageSize: env('BENCH_PAGE_SIZE', 1000),
		deliveries: env('BENCH_DELIVERIES', 300),
		deliveryConcurrency: env('BENCH_DELIVERY_CONCURRENCY', 8),
		sections: (process.env.BENCH_SECTIONS ?? ALL_SECTIONS.join(',')).split(',').map((s) => s.trim()),
	};
}

/** Restarts n8n with some environment changed (undefined removes a variable). */
async function restartWith(n8n: N8nInstance, changes: Record<string, string | undefined>, livePath: string): Promise<void> {
	await n8n.stop();
	for (const [name, value] of Object.entries(changes)) {
		if (value === undefined) delete n8n.env[name];
		else n8n.env[name] = value;
	}
	await n8n.start({ timeoutMs: START_TIMEOUT_MS });
	await n8n.waitForWebhook(livePath);
}

async function main(): Promise<void> {
	const startedAt = new Date();
	const wallStart = performance.now();
	const cfg = config();
	const lines: string[] = [];
	const log = (line: string) => {
		lines.push(line);
		console.log(line);
	};
	const commit = (() => {
		try {
			return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
		} catch {
			return 'unknown';
		}
	})();
	log(
		`# Clearinghouse benchmarks — n8n ${runtime().version}, Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
			.map((l) => l.toFixed(2))
			.join(' ')}, commit ${commit}`,
	);
	log(`config: ${JSON.stringify(cfg)}`);

	const tarball = packedTarball();
	const results: Record<string, unknown> = {};
	// The sandbox delivers webhooks to this n8n's port only (a loopback target on any other port is refused).
	const n8nPort = await freePort();
	const sandbox = await startSandboxProcess({ allowLoopbackWebhooks: [n8nPort] });
	const operator = new SandboxClient(sandbox);
	let n8n: N8nInstance | undefined;
	try {
		const state = await operator.state();
		// N8N_METRICS: n8n's /metrics, where it counts expression-engine calls (bench/lib/metrics.ts).
		// BENCH_CPU_PROFILE=<dir>: n8n's inspector open, and a CPU profile of every timed batch run
		// written to <dir> (bench/profile.ts summarises them). Profiling slows n8n: figures of such a
		// run are for the profile, not for the targets.
		const profileDir = profileDirOf();
		const inspectorPort = profileDir ? await freePort() : undefined;
		const n8nEnv: Record<string, string> = { N8N_LOG_LEVEL: 'warn', N8N_METRICS: 'true' };
		if (inspectorPort) n8nEnv.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:${inspectorPort}`.trim();
		n8n = await N8nInstance.create({ tarball, env: n8nEnv, port: n8nPort });
		const credential = sandboxCredential(sandbox, 'benchSandboxCred1', 'Clearinghouse bench');
		await n8n.importCredential(credential);
		const [alice, bob] = state.users;
		// One body for every batch order but the key: a fixed expiry well after the bench ends.
		const order: BatchOrderFields = {
			fromUserId: alice.id,
			toAddress: bob.wallets[0].address,
			toChain: bob.wallets[0].chain,
			asset: 'USDC',
			amountUsd: 1.25,
			memo: 'bench payout',
			expiresAt: new Date(Math.ceil((Date.now() + 6 * 3600_000) / 1000) * 1000).toISOString(),
		};
		await n8n.importWorkflows(
			benchWorkflows({ mainUrl: sandbox.mainUrl, credential, concurrency: cfg.concurrency, listUserId: bob.id, pageSize: cfg.pageSize, order }),
		);
		// Everything but the trigger is published before start; the trigger registers an endpoint at
		// the sandbox, which would then send deliveries for every order the other sections create.
		// In parallel (each is an n8n process of a few seconds); one that lost a race on the database
		// is published again once n8n runs, until every webhook is live.
		// Only the workflows of the sections asked for (BENCH_SECTIONS=trigger publishes one).
		const instance = n8n;
		const sectionOf = (id: string) => (id.startsWith('benchBatch') ? 'batch' : id.startsWith('benchList') ? 'listing' : 'trigger');
		const published = Object.entries(WEBHOOK_PATHS).filter(([id]) => cfg.sections.includes(sectionOf(id)));
		await Promise.all(published.map(([id]) => instance.publish(id)));
		await n8n.start({ timeoutMs: START_TIMEOUT_MS });
		for (const [id, path] of published) {
			if (await n8n.webhookLive(path)) continue;
			log(`  (workflow ${id} was not active after the parallel publish: publishing it again)`);
			await n8n.publish(id);
			await n8n.waitForWebhook(path);
		}
		const ctx: BenchContext = { sandbox, operator, n8n, credential, state, config: cfg, log, order };
		if (profileDir && inspectorPort) ctx.profiling = { inspectorPort, dir: profileDir };
		const want = (section: string) => cfg.sections.includes(section);
		if (want('batch')) {
			results.batch = await benchBatch(ctx);
		}
		if (want('listing')) results.listing = await benchListing(ctx);
		// What bounds the n8n contenders: the same runs with n8n's legacy expression engine instead of
		// its default isolate ("vm", one isolate), which every expression and every webhook trigger
		// other than n8n's own Webhook node waits for.
		const diagnostics: Record<string, unknown> = {};
		if (want('diagnostics') && want('batch')) {
			await restartWith(n8n, { N8N_EXPRESSION_ENGINE: 'legacy' }, 'bench-batch-node');
			diagnostics.batchLegacyExpressionEngine = await benchBatch(ctx, 'Diagnostic: batch payouts with N8N_EXPRESSION_ENGINE=legacy');
		}
		if (want('trigger')) {
			await restartWith(n8n, { N8N_EXPRESSION_ENGINE: undefined }, PLAIN_PATH);
			results.trigger = await benchTrigger(ctx);
			if (want('diagnostics')) {
				// Two isolates instead of one: if deliveries queue for the isolate, the trigger gains.
				await restartWith(n8n, { N8N_EXPRESSION_ENGINE_POOL_SIZE: '2' }, PLAIN_PATH);
				diagnostics.triggerIsolatePoolOf2 = await benchTrigger(ctx, 'Diagnostic: trigger throughput with N8N_EXPRESSION_ENGINE_POOL_SIZE=2');
				await restartWith(n8n, { N8N_EXPRESSION_ENGINE_POOL_SIZE: undefined, N8N_EXPRESSION_ENGINE: 'legacy' }, PLAIN_PATH);
				diagnostics.triggerLegacyExpressionEngine = await benchTrigger(ctx, 'Diagnostic: trigger throughput with N8N_EXPRESSION_ENGINE=legacy');
			}
			await unpublishTriggers(ctx);
		}
		if (Object.keys(diagnostics).length) results.diagnostics = diagnostics;
		await n8n.stop();
		delete n8n.env.N8N_EXPRESSION_ENGINE;
		if (want('verification')) results.verification = await benchVerification(ctx);
		if (want('package')) results.package = await benchPackage(ctx, tarball);
	} finally {
		await n8n?.dispose();
		await sandbox.close();
	}

	const wallSeconds = Math.round((performance.now() - wallStart) / 1000);
	const summary = summarize(results);
	log(`\n## Targets`);
	for (const target of summary) log(`  ${target.met ? 'MET   ' : 'MISSED'} ${target.name}: ${target.detail}`);
	log(`\nbench wall time: ${wallSeconds} s`);

	const outDir = join(repoRoot, 'bench', 'results');
	mkdirSync(outDir, { recursive: true });
	const latest = join(outDir, 'latest.json');
	const previous = existsSync(latest) ? (JSON.parse(readFileSync(latest, 'utf8')) as Record<string, unknown>) : undefined;
	const record = {
		startedAt: startedAt.toISOString(),
		commit,
		n8nVersion: runtime().version,
		node: process.version,
		cpus: cpus().length,
		loadAverageAtStart: loadavg(),
		config: cfg,
		wallSeconds,
		results,
		targets: summary,
	};
	if (previous) {
		log(`\n## Compared with the previous latest.json (${String(previous.startedAt)}, commit ${String(previous.commit)})`);
		for (const line of compareWithPrevious(previous, record)) log(`  ${line}`);
	}
	// Only a run of every section (and not profiled) replaces latest.json, which bench/README's
	// figures come from; a partial run is kept beside it as <sections>-<timestamp>.json.
	const complete = ALL_SECTIONS.every((section) => cfg.sections.includes(section)) && !profileDirOf();
	const prefix = complete ? '' : `${cfg.sections.join('+')}${profileDirOf() ? '-profiled' : ''}-`;
	const file = join(outDir, `${prefix}${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
	writeFileSync(file, JSON.stringify(record, null, 2) + '\n');
	if (complete) writeFileSync(latest, JSON.stringify(record, null, 2) + '\n');
	log(`\nresults: ${file}${complete ? ` (and ${latest})` : ' (a partial or profiled run: latest.json left as it was)'}`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
