/**
 * `npm run bench:scale`, section `chunks` (issue 45): the same 10,000 payees paid in chunks with the
 * shipped recipe (examples/10-pay-a-large-csv-in-chunks.json: the file checked once with Check Batch
 * Against Limits, Loop Over Items, Execute Workflow running the workflow's own "One chunk" part per
 * chunk, every row keyed by its Invoice), in queue mode (PostgreSQL, Redis, harness/queue/cluster.ts)
 * with one worker and with two. The example is used as shipped but for what a user changes: a Webhook
 * instead of Run now (a run the queue can hand to a worker), the CSV read from n8n's files folder with
 * Read/Write Files from Disk (as its note says), the chunk size.
 *
 * n8n runs a sub-workflow inside the process of its parent (n8n 2.40.7 executeWorkflow → startExecution,
 * no queue): one payout is one worker's work whatever the worker count. Measured both ways:
 * - `onePayout`: the 10,000 as one file, one parent execution: 1 worker, then 2 workers;
 * - `twoPayouts`: the 10,000 as two files of 5,000 started together (two parents), 1 worker, then 2.
 * Per run: wall time from the webhook calls until every parent is saved, orders/s, CPU seconds and
 * peak RSS of each worker (VmHWM reset through /proc/<pid>/clear_refs), orders/s per worker CPU second.
 *
 * Then a worker killed (SIGKILL) mid-chunk of a new 10,000-row payout, and the documented way to
 * finish: the same file run again. Counted at the service: exactly one order per key, none unpaid,
 * and the time the second run took.
 *
 * Env: BENCH_SCALE_CHUNK_ROWS (default 10000), BENCH_SCALE_CHUNK (chunk size, default 1000),
 * TEST_PORT_BAND_OFFSET. Writes bench/results/scale-chunks.json and the `chunks` subsection of bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadExample } from '../harness/examples';
import { sleep, type WorkflowInput } from '../harness/n8nProcess';
import { repoRoot, runtime } from '../harness/runtime';
import { sandboxCredential } from '../harness/sandbox';
import { SandboxClient } from '../harness/sandboxClient';
import { QueueCluster, type QueueProcess } from '../harness/queue/cluster';
import { PAYMENT_ORDER_STATUSES } from '../nodes/shared/paymentOrderStatus';
import { cpuMs, findN8nPid } from './lib/proc';
import { startSandboxProcess } from './lib/sandbox-process';
import { replaceSection, writeResults } from './lib/readmeSection';

const ROWS = Number(process.env.BENCH_SCALE_CHUNK_ROWS ?? 10_000);
const CHUNK = Number(process.env.BENCH_SCALE_CHUNK ?? 1_000);
const EXAMPLE = '10-pay-a-large-csv-in-chunks.json';
const PATH = 'scale-chunks-payout';
const LOOP = 'Chunks of 1,000 rows';

/** The example as a user deploys it for a large file: webhook start, the file from disk, the chunk size. */
function deployed(filesDir: string): WorkflowInput {
	const workflow = loadExample(EXAMPLE);
	const nodes = workflow.nodes.filter((n) => !['Run now', 'The CSV file', 'As a file'].includes(String(n.name)));
	nodes.push(
		{
			id: 'bench-webhook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 100],
			webhookId: 'scale-chunks-payout',
			parameters: { httpMethod: 'POST', path: PATH, responseMode: 'onReceived', options: {} },
		},
		{
			id: 'bench-read',
			name: 'Read payees.csv',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			position: [440, 100],
			parameters: { operation: 'read', fileSelector: `={{ '${filesDir}/' + $json.body.file }}`, options: {} },
		},
	);
	const loop = nodes.find((n) => n.name === LOOP)!;
	(loop.parameters as Record<string, unknown>).batchSize = CHUNK;
	const connections = { ...(workflow.connections as Record<string, unknown>) };
	delete connections['Run now'];
	delete connections['The CSV file'];
	delete connections['As a file'];
	connections.Webhook = { main: [[{ node: 'Read payees.csv', type: 'main', index: 0 }]] };
	connections['Read payees.csv'] = { main: [[{ node: 'One item per row', type: 'main', index: 0 }]] };
	return { ...workflow, nodes, connections, active: false };
}

interface WorkerFigures {
	name: string;
	cpuSeconds: number;
	peakRssMb: number;
	rssBeforeMb: number;
	parents: number;
}

interface ChunkRun {
	label: string;
	workers: number;
	payouts: number;
	orders: number;
	wallMs: number;
	ordersPerSecond: number;
	/** Orders ÷ CPU seconds of all workers together: what one core of worker pays per second. */
	ordersPerWorkerCpuSecond: number;
	workerFigures: WorkerFigures[];
	/** Bytes n8n saved: the parents (every row several times: file, rows, loop) and the chunks' sub-executions. */
	savedBytes: { parents: number; chunks: number; chunkExecutions: number };
}

function payeesCsv(tag: string, from: number, to: number, wallet: string): string {
	const lines = ['Name,Wallet,Amount,Invoice'];
	for (let i = from; i < to; i++) lines.push(`Payee ${i + 1},${wallet},${(1 + (i % 40) * 0.25).toFixed(2)},${tag}-${i}`);
	return `${lines.join('\n')}\n`;
}

/** Peak RSS (MB) since the last reset, and the reset (echo 5 > clear_refs). */
function hwmMb(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
}
function rssMb(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
}
function resetHwm(pid: number): void {
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
	} catch {
		// not allowed here: the peak is then the process's peak since it started
	}
}

async function main(): Promise<void> {
	const startedAt = new Date();
	const wallStart = performance.now();
	const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
	const log = (line: string) => console.log(line);
	log(
		`# bench:scale chunks — n8n ${runtime().version}, ${cpus().length} CPUs, load ${loadavg()
			.map((l) => l.toFixed(2))
			.join(' ')}, commit ${commit}`,
	);
	log(`${ROWS} rows, chunks of ${CHUNK}; queue mode (PostgreSQL, Redis), 1 webhook process`);

	const filesDir = mkdtempSync(join(tmpdir(), 'clearinghouse-scale-files-'));
	chmodSync(filesDir, 0o755);
	const sandbox = await startSandboxProcess();
	const operator = new SandboxClient(sandbox);
	let cluster: QueueCluster | undefined;
	const runs: ChunkRun[] = [];
	let kill: Record<string, unknown> | undefined;
	try {
		const [, bob] = (await operator.state()).users;
		const wallet = bob.wallets.find((w: { chain: string }) => w.chain === 'ethereum').address as string;
		cluster = await QueueCluster.start({ workers: 2, webhooks: 1, env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir } });
		const c = cluster;
		const credential = sandboxCredential(sandbox);
		await c.main.importCredential(credential);
		const workflow = deployed(filesDir);
		await c.main.importWorkflow(workflow);
		await c.main.publish(String(workflow.id));
		await c.waitForWebhook(PATH);
		const workflowId = String(workflow.id);

		const sql = <T>(query: string) => c.store.json<T>(query);
		const lastId = () => sql<number | null>('SELECT max(id) FROM execution_entity') ?? 0;
		/** Parent executions (started by the webhook) after `after`: id, status, stoppedAt. */
		const parents = (after: number) =>
			sql<Array<{ id: number; status: string; stoppedAt: string | null }> | null>(
				`SELECT json_agg(r ORDER BY r.id) FROM (SELECT id, status, "stoppedAt" FROM execution_entity WHERE "workflowId" = '${workflowId}' AND mode = 'webhook' AND id > ${after}) r`,
			) ?? [];
		const savedBytes = (after: number) =>
			sql<{ parents: number | null; chunks: number | null; chunkExecutions: number }>(
				`SELECT json_build_object(
				   'parents', sum(CASE WHEN e.mode = 'webhook' THEN octet_length(d.data) END),
				   'chunks', sum(CASE WHEN e.mode = 'integrated' THEN octet_length(d.data) END),
				   'chunkExecutions', count(*) FILTER (WHERE e.mode = 'integrated'))
				 FROM execution_entity e JOIN execution_data d ON d."executionId" = e.id WHERE e."workflowId" = '${workflowId}' AND e.id > ${after}`,
			);
		const pidOf = (worker: QueueProcess) => findN8nPid(worker.instance.root, 'worker');
		const post = async (file: string) => {
			const response = await fetch(c.webhookUrl(PATH), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file }) });
			await response.text();
			if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
		};
		const waitForParents = async (after: number, count: number, timeoutMs = 900_000) => {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const done = parents(after).filter((p) => p.stoppedAt !== null && !['new', 'running', 'waiting'].includes(p.status));
				if (done.length >= count) return done;
				if (Date.now() > deadline) throw new Error(`${done.length} of ${count} payouts finished within ${timeoutMs} ms`);
				await sleep(200);
			}
		};
		/** Every order of the service whose key starts with `tag-`, counted per key (the public API, paged). */
		const ordersPerKey = async (tag: string) => {
			const perKey = new Map<string, number>();
			for (let offset = 0; ; offset += 1000) {
				const page = await operator.api('GET', `/payment-orders?limit=1000&offset=${offset}&status=${PAYMENT_ORDER_STATUSES.join(',')}`);
				for (const o of page.paymentOrders as Array<{ idempotencyKey?: string }>) {
					if (String(o.idempotencyKey).startsWith(`${tag}-`)) perKey.set(String(o.idempotencyKey), (perKey.get(String(o.idempotencyKey)) ?? 0) + 1);
				}
				if (!page.hasMore) break;
			}
			return perKey;
		};
		const settle = (perKey: Map<string, number>, rows: number) => {
			const counts = [...perKey.values()];
			return { orders: counts.reduce((a, b) => a + b, 0), keys: perKey.size, paidTwice: counts.filter((n) => n > 1).length, unpaid: rows - perKey.size };
		};

		const measure = async (label: string, workers: QueueProcess[], payouts: number) => {
			const tag = `${label}-${Date.now().toString(36)}`;
			const files = Array.from({ length: payouts }, (_, p) => {
				const file = `${tag}-${p}.csv`;
				writeFileSync(join(filesDir, file), payeesCsv(tag, Math.floor((p * ROWS) / payouts), Math.floor(((p + 1) * ROWS) / payouts), wallet));
				return file;
			});
			const pids = workers.map((w) => pidOf(w)!);
			for (const pid of pids) resetHwm(pid);
			const before = pids.map((pid) => ({ cpu: cpuMs(pid) ?? 0, rss: rssMb(pid) }));
			const after = lastId();
			const started = performance.now();
			await Promise.all(files.map(post));
			const done = await waitForParents(after, payouts);
			const wallMs = performance.now() - started;
			if (done.some((p) => p.status !== 'success')) throw new Error(`${label}: payouts ended ${done.map((p) => p.status).join(', ')}`);
			const workerFigures = workers.map((w, i) => ({
				name: w.name,
				cpuSeconds: Number((((cpuMs(pids[i]) ?? 0) - before[i].cpu) / 1000).toFixed(1)),
				peakRssMb: Math.round(hwmMb(pids[i])),
				rssBeforeMb: Math.round(before[i].rss),
				parents: done.filter((p) => c.workerOf(p.id) === w).length,
			}));
			const settled = settle(await ordersPerKey(tag), ROWS);
			if (settled.orders !== ROWS || settled.paidTwice || settled.unpaid) throw new Error(`${label}: ${JSON.stringify(settled)}`);
			const cpu = workerFigures.reduce((sum, w) => sum + w.cpuSeconds, 0);
			const bytes = savedBytes(after);
			const run: ChunkRun = {
				label,
				workers: workers.length,
				payouts,
				orders: ROWS,
				wallMs: Math.round(wallMs),
				ordersPerSecond: Number(((ROWS / wallMs) * 1000).toFixed(1)),
				ordersPerWorkerCpuSecond: Number((ROWS / cpu).toFixed(1)),
				workerFigures,
				savedBytes: { parents: Number(bytes.parents ?? 0), chunks: Number(bytes.chunks ?? 0), chunkExecutions: Number(bytes.chunkExecutions) },
			};
			runs.push(run);
			log(
				`  ${label}: ${run.wallMs} ms, ${run.ordersPerSecond} orders/s, ${run.ordersPerWorkerCpuSecond} orders per worker CPU second; ` +
					workerFigures.map((w) => `${w.name} ${w.cpuSeconds} s CPU, RSS ${w.rssBeforeMb} → peak ${w.peakRssMb} MB, ${w.parents} payouts`).join('; '),
			);
		};

		const [first, second] = c.workers;
		// Warm-up (not counted): each worker loads the nodes and compiles the workflow on its first payouts.
		const warmUp = async () => {
			const tag = `warm-${Date.now().toString(36)}`;
			const after = lastId();
			const files = [0, 1].map((p) => {
				const file = `${tag}-${p}.csv`;
				writeFileSync(join(filesDir, file), payeesCsv(`${tag}-${p}`, 0, 20, wallet));
				return file;
			});
			await Promise.all(files.map(post));
			await waitForParents(after, files.length);
		};
		await warmUp();
		await second.stop();
		log('\n## one worker');
		await measure('one-worker-one-payout', [first], 1);
		await measure('one-worker-two-payouts', [first], 2);
		await second.start();
		await warmUp();
		log('\n## two workers');
		await measure('two-workers-one-payout', [first, second], 1);
		await measure('two-workers-two-payouts', [first, second], 2);

		// A worker killed mid-chunk, then the payout run again (the recipe's way to finish).
		log('\n## a worker killed mid-chunk, then the payout run again');
		const tag = `kill-${Date.now().toString(36)}`;
		const file = `${tag}.csv`;
		writeFileSync(join(filesDir, file), payeesCsv(tag, 0, ROWS, wallet));
		const ordersBefore = Number((await operator.state()).counts.orders);
		const after = lastId();
		const started = performance.now();
		await post(file);
		// Mid-chunk: 45% of the rows have an order (with chunks of 1,000, in the middle of the 5th).
		const target = Math.floor(ROWS * 0.45);
		for (;;) {
			const made = Number((await operator.state()).counts.orders) - ordersBefore;
			if (made >= target) break;
			if (performance.now() - started > 600_000) throw new Error(`kill: only ${made} orders after 600 s`);
			await sleep(50);
		}
		const parent = parents(after)[0];
		const victim = parent ? c.workerOf(parent.id) : undefined;
		if (!parent || !victim) throw new Error(`kill: no worker runs payout ${parent?.id}`);
		await victim.stop('SIGKILL');
		const killedAtMs = performance.now() - started;
		const ordersAtKill = Number((await operator.state()).counts.orders) - ordersBefore;
		log(`  killed ${victim.name} (payout execution ${parent.id}) at ${Math.round(killedAtMs)} ms, ${ordersAtKill} orders made`);
		// The process manager starts the worker again; the person runs the payout again.
		await victim.start();
		const afterKill = lastId();
		const again = performance.now();
		await post(file);
		const [rerun] = await waitForParents(afterKill, 1);
		const finishMs = performance.now() - again;
		if (rerun.status !== 'success') throw new Error(`kill: the run again ended ${rerun.status}`);
		const settled = settle(await ordersPerKey(tag), ROWS);
		const killedStatus = parents(after).find((p) => p.id === parent.id)?.status ?? 'unknown';
		kill = {
			rows: ROWS,
			chunk: CHUNK,
			killedWorker: victim.name,
			killedAfterMs: Math.round(killedAtMs),
			ordersWhenKilled: ordersAtKill,
			killedExecutionStatusAfter: killedStatus,
			runAgainMs: Math.round(finishMs),
			...settled,
			exactlyOnePerKey: settled.orders === ROWS && settled.keys === ROWS && settled.paidTwice === 0 && settled.unpaid === 0,
		};
		log(`  run again: ${Math.round(finishMs)} ms; ${JSON.stringify(settled)}; the killed payout's execution: ${killedStatus}`);
		if (!kill.exactlyOnePerKey) throw new Error(`kill: ${JSON.stringify(kill)}`);
	} finally {
		await cluster?.dispose();
		await sandbox.close();
		rmSync(filesDir, { recursive: true, force: true });
	}

	const record = {
		section: 'chunks',
		startedAt: startedAt.toISOString(),
		commit,
		n8nVersion: runtime().version,
		cpus: cpus().length,
		loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
		rows: ROWS,
		chunk: CHUNK,
		memorySource: 'VmHWM of each n8n worker process, reset through /proc/<pid>/clear_refs before the run',
		wallSeconds: Math.round((performance.now() - wallStart) / 1000),
		runs,
		kill,
	};
	const file = writeResults('scale-chunks.json', record);
	replaceSection('chunks', chunksMarkdown(record));
	log(`results: ${file}; bench/README.md (section chunks) updated; ${record.wallSeconds} s`);
}

export function chunksMarkdown(record: {
	startedAt: string;
	commit: string;
	n8nVersion: string;
	cpus: number;
	loadAverageAtStart: number[];
	rows: number;
	chunk: number;
	wallSeconds: number;
	runs: ChunkRun[];
	kill?: Record<string, any>;
}): string {
	const lines = [
		`Run of ${record.startedAt} (commit ${record.commit}, n8n ${record.n8nVersion}, ${record.cpus} CPUs, load at start ${record.loadAverageAtStart.join(' ')}; ${record.wallSeconds} s): ` +
			`${record.rows.toLocaleString('en-US')} rows in chunks of ${record.chunk.toLocaleString('en-US')} with [Example 10](../examples/10-pay-a-large-csv-in-chunks.json), queue mode (PostgreSQL, Redis, one webhook process). ` +
			'One run each; wall time from the webhook call(s) until every payout is saved. Results: [`results/scale-chunks.json`](results/scale-chunks.json).',
		'',
		'| Run | Workers | Payouts | Wall | Orders/s | Orders per worker CPU second | Per worker: CPU, peak RSS, payouts run | Saved: payouts, chunks |',
		'|---|---|---|---|---|---|---|---|',
	];
	for (const r of record.runs) {
		lines.push(
			`| ${r.label} | ${r.workers} | ${r.payouts} | ${(r.wallMs / 1000).toFixed(1)} s | ${r.ordersPerSecond} | ${r.ordersPerWorkerCpuSecond} | ` +
				`${r.workerFigures.map((w) => `${w.name}: ${w.cpuSeconds} s, ${w.peakRssMb} MB, ${w.parents}`).join('; ')} | ` +
				`${(r.savedBytes.parents / 1048576).toFixed(1)} MB, ${(r.savedBytes.chunks / 1048576).toFixed(1)} MB in ${r.savedBytes.chunkExecutions} |`,
		);
	}
	const k = record.kill;
	if (k) {
		lines.push(
			'',
			`A worker killed (SIGKILL) mid-chunk: ${k.killedWorker} after ${(k.killedAfterMs / 1000).toFixed(1)} s, ${k.ordersWhenKilled.toLocaleString('en-US')} orders made; its payout's execution then read \`${k.killedExecutionStatusAfter}\`. ` +
				`The same file run again finished in ${(k.runAgainMs / 1000).toFixed(1)} s. At the service: ${k.orders.toLocaleString('en-US')} orders for ${k.keys.toLocaleString('en-US')} keys of ${k.rows.toLocaleString('en-US')} rows, ${k.paidTwice} paid twice, ${k.unpaid} unpaid.`,
		);
	}
	return lines.join('\n');
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}
