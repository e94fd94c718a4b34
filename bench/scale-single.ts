/**
 * `npm run bench:scale`, section `single` (issue 45): 1,000, 5,000 and 10,000 payees paid in ONE
 * execution of a real n8n (regular mode, SQLite, execution data saved as n8n saves it by default).
 * The rows are read as a user reads them: a CSV file in n8n's files folder, through n8n's own
 * Read/Write Files from Disk and Extract from File, then Payment Order → Create.
 *
 * Contenders, each measured at every size in the same run:
 * - `n8nOnly`: the same webhook, file, CSV extraction and saved execution without Create (n8n's
 *   own cost of the rows, subtracted for the "net" figures);
 * - `autoMap`: Create with Order Fields → Map Automatically and Business Key Field "Invoice";
 * - `fixed`: Define Below with fixed values, only the Business Key from the row (one `$json` path);
 * - `expressions`: Define Below with every field mapped by an expression (`{{ $json.Wallet }}`, ...);
 * - `undici`: the same request bodies from a bare undici loop outside n8n (the node's concurrency).
 * n8n is restarted before every timed run so that each peak RSS (VmHWM, reset through
 * /proc/<pid>/clear_refs) starts from a fresh process; a 20-row warm-up run loads the nodes first.
 * Per run: wall time from the webhook call until n8n has saved the execution, orders/s, peak RSS,
 * the bytes of the saved execution (execution_data) and per order, and Create's output per order.
 * The growth: cost per order at the largest size ÷ at the smallest.
 *
 * Map Automatically (the recipe's mode) runs at every size; fixed fields and expressions at the largest
 * (BENCH_SCALE_ALL_MODES=1: at every size).
 *
 * Env: BENCH_SCALE_SIZES (default 1000,5000,10000), BENCH_SCALE_MODES (default
 * autoMap,fixed,expressions), BENCH_SCALE_ALL_MODES, BENCH_CONCURRENCY (default 5), TEST_PORT_BAND_OFFSET.
 * Writes bench/results/scale-single.json and the `single` subsection of bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Agent, request } from 'undici';

import { N8nInstance, sleep } from '../harness/n8nProcess';
import { packedTarball } from '../harness/package';
import { freePort } from '../harness/ports';
import { repoRoot, runtime } from '../harness/runtime';
import { sandboxCredential } from '../harness/sandbox';
import { SandboxClient } from '../harness/sandboxClient';
import { ACTION_NODE, graph, type CredentialRef, type NodeSpec } from '../harness/workflows';
import { executionRecord } from '../harness/executions';
import { pool } from './lib/http';
import { findN8nPid, withPeakMemory } from './lib/proc';
import { startSandboxProcess } from './lib/sandbox-process';
import { replaceSection, writeResults } from './lib/readmeSection';

type Mode = 'autoMap' | 'fixed' | 'expressions';
type N8nContender = 'n8nOnly' | Mode;

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const SIZES = env('BENCH_SCALE_SIZES', '1000,5000,10000')
	.split(',')
	.map((s) => Number(s.trim()))
	.filter((n) => n > 0);
const MODES = env('BENCH_SCALE_MODES', 'autoMap,fixed,expressions')
	.split(',')
	.map((s) => s.trim())
	.filter((m): m is Mode => ['autoMap', 'fixed', 'expressions'].includes(m));
const CONCURRENCY = Number(env('BENCH_CONCURRENCY', '5'));
const ALL_MODES_AT_EVERY_SIZE = env('BENCH_SCALE_ALL_MODES', '') === '1';
const WARM_UP_ROWS = 20;

const IDS: Record<N8nContender, string> = {
	n8nOnly: 'scaleSingleEmpty',
	autoMap: 'scaleSingleAutoM',
	fixed: 'scaleSingleFixed',
	expressions: 'scaleSingleExpr1',
};
const PATHS: Record<N8nContender, string> = {
	n8nOnly: 'scale-single-empty',
	autoMap: 'scale-single-automap',
	fixed: 'scale-single-fixed',
	expressions: 'scale-single-expressions',
};

/** What every order shares; each row has its own Invoice (the Business Key) and amount. */
interface Payee {
	fromUserId: string;
	wallet: string;
	chain: string;
	asset: string;
}

/** The CSV a payroll team exports: a name, where to pay, how much, the invoice that names the payment. */
function payeesCsv(tag: string, rows: number): string {
	const lines = ['Name,Wallet,Chain,Asset,Amount,Invoice'];
	for (let i = 0; i < rows; i++) lines.push(`Payee ${i + 1},${PAYEE.wallet},Ethereum,USDC,${amountOf(i)},${tag}-${i}`);
	return `${lines.join('\n')}\n`;
}
let PAYEE: Payee;
const amountOf = (i: number) => (1 + (i % 40) * 0.25).toFixed(2);

function workflow(contender: N8nContender, credential: CredentialRef, filesDir: string): ReturnType<typeof graph> {
	const nodes: NodeSpec[] = [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: `scale-single-${contender}`,
			// Answers once the last node is done, with no data (the response would be 10,000 orders).
			parameters: { httpMethod: 'POST', path: PATHS[contender], responseMode: 'lastNode', responseData: 'noData', options: {} },
		},
		{
			name: 'Read payees.csv',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			parameters: { operation: 'read', fileSelector: `={{ '${filesDir}/' + $json.body.file }}`, options: {} },
		},
		{ name: 'One item per row', type: 'n8n-nodes-base.extractFromFile', typeVersion: 1.1, parameters: { operation: 'csv', options: {} } },
	];
	const common = { resource: 'paymentOrder', operation: 'create', mode: 'standard', expiry: 'inMinutes', expiresInMinutes: 2880, idempotencyKeyMode: 'custom' };
	if (contender === 'autoMap') {
		nodes.push({
			name: 'Pay each row',
			type: ACTION_NODE,
			typeVersion: 2,
			parameters: {
				...common,
				dataMode: 'autoMapInputData',
				senderForAllRows: PAYEE.fromUserId,
				businessKeyField: 'Invoice',
				options: { concurrency: CONCURRENCY },
			},
		});
	} else if (contender === 'fixed' || contender === 'expressions') {
		const byExpression = contender === 'expressions';
		nodes.push({
			name: 'Pay each row',
			type: ACTION_NODE,
			typeVersion: 2,
			parameters: {
				...common,
				dataMode: 'defineBelow',
				fromUserId: PAYEE.fromUserId,
				toAddress: byExpression ? '={{ $json.Wallet }}' : PAYEE.wallet,
				toChain: byExpression ? '={{ $json.Chain }}' : 'ethereum',
				asset: byExpression ? '={{ $json.Asset }}' : 'USDC',
				amountUsd: byExpression ? '={{ $json.Amount }}' : '1.25',
				memo: '={{ $json.Invoice }}',
				idempotencyKey: '={{ $json.Invoice }}',
				options: { concurrency: CONCURRENCY },
			},
		});
	}
	return graph(
		IDS[contender],
		`scale single: ${contender}`,
		nodes,
		nodes.slice(1).map((node, i) => [nodes[i].name, node.name] as [string, string]),
		credential,
	);
}

/** The request body the node sends for row i (the undici baseline sends the same). */
function bodyOf(mode: Mode | 'undici', tag: string, i: number, expiresAt: string): Record<string, unknown> {
	const fixed = mode === 'fixed';
	return {
		fromUserId: PAYEE.fromUserId,
		toAddress: PAYEE.wallet,
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: fixed ? 1.25 : Number(amountOf(i)),
		memo: `${tag}-${i}`,
		mode: 'standard',
		expiresAt,
		idempotencyKey: `${tag}-${i}`,
	};
}

interface SavedExecution {
	id: number;
	status: string;
	startedAt: string | null;
	stoppedAt: string | null;
	dataBytes: number;
}

/** The newest execution of a workflow after `afterId`, once n8n has saved it (status final, data written). */
function savedExecution(dbFile: string, workflowId: string, afterId: number): SavedExecution | undefined {
	const db = new DatabaseSync(dbFile, { readOnly: true });
	try {
		const row = db
			.prepare(
				`SELECT e.id, e.status, e.startedAt, e.stoppedAt, length(CAST(d.data AS BLOB)) AS bytes
				 FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id
				 WHERE e.workflowId = ? AND e.id > ? ORDER BY e.id DESC LIMIT 1`,
			)
			.get(workflowId, afterId) as { id: number; status: string; startedAt: string | null; stoppedAt: string | null; bytes: number | null } | undefined;
		if (!row || row.stoppedAt === null || ['new', 'running', 'waiting'].includes(row.status) || !row.bytes) return undefined;
		return { id: Number(row.id), status: row.status, startedAt: row.startedAt, stoppedAt: row.stoppedAt, dataBytes: Number(row.bytes) };
	} finally {
		db.close();
	}
}

function lastExecutionId(dbFile: string): number {
	const db = new DatabaseSync(dbFile, { readOnly: true });
	try {
		return Number((db.prepare('SELECT MAX(id) AS id FROM execution_entity').get() as { id: number | null }).id ?? 0);
	} finally {
		db.close();
	}
}

/** Create's output items of one saved execution: how many, and their JSON bytes per order. */
function outputPerOrder(dbFile: string, id: number): { items: number; bytesPerOrder: number; fields: string[] } {
	const db = new DatabaseSync(dbFile, { readOnly: true });
	try {
		const row = db
			.prepare(
				'SELECT e.id, e.workflowId, e.mode, e.status, e.finished, e.startedAt, e.stoppedAt, d.data FROM execution_entity e JOIN execution_data d ON d.executionId = e.id WHERE e.id = ?',
			)
			.get(id) as Record<string, unknown>;
		const runs = executionRecord(row).data.resultData.runData['Pay each row'] ?? [];
		const items = runs.flatMap((r) => r.data?.main?.[0] ?? []);
		const bytes = items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item.json)), 0);
		return { items: items.length, bytesPerOrder: Math.round(bytes / Math.max(1, items.length)), fields: Object.keys(items[0]?.json ?? {}) };
	} finally {
		db.close();
	}
}

export interface SingleRun {
	contender: N8nContender | 'undici';
	orders: number;
	/** Webhook call until the execution is saved (n8n contenders), or the loop's time (undici). */
	wallMs: number;
	/** n8n's own startedAt → stoppedAt of the execution. */
	executionMs?: number;
	ordersPerSecond: number;
	/** Wall minus the n8n-only run of the same size: what Create added. */
	netMs?: number;
	netOrdersPerSecond?: number;
	/** µs per order, gross (wall) and net of n8n only. */
	usPerOrder: number;
	netUsPerOrder?: number;
	rssBeforeMb?: number;
	peakRssMb?: number;
	savedExecutionBytes?: number;
	savedBytesPerOrder?: number;
	/** Wall time ÷ the bare undici loop's for the same number of orders, measured in the same run. */
	timeVsUndici?: number;
	/** Create's output items: count and JSON bytes per order (the largest part of the saved execution). */
	output?: { items: number; bytesPerOrder: number; fields: string[] };
	created: number;
}

async function main(): Promise<void> {
	const startedAt = new Date();
	const wallStart = performance.now();
	const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
	const log = (line: string) => console.log(line);
	log(
		`# bench:scale single — n8n ${runtime().version}, ${cpus().length} CPUs, load ${loadavg()
			.map((l) => l.toFixed(2))
			.join(' ')}, commit ${commit}`,
	);
	log(`sizes ${SIZES.join(', ')}; field modes ${MODES.join(', ')}; concurrency ${CONCURRENCY}`);

	const tarball = packedTarball();
	const n8nPort = await freePort();
	const sandbox = await startSandboxProcess({ allowLoopbackWebhooks: [n8nPort] });
	const operator = new SandboxClient(sandbox);
	const root = mkdtempSync(join(tmpdir(), 'clearinghouse-scale-single-'));
	// n8n 2.x reads files only under N8N_RESTRICT_FILE_ACCESS_TO (default ~/.n8n-files): this instance's own files folder.
	const filesDir = join(root, 'files');
	mkdirSync(filesDir, { recursive: true });
	const n8n = await N8nInstance.create({
		root: join(root, 'n8n'),
		tarball,
		port: n8nPort,
		env: { N8N_LOG_LEVEL: 'warn', N8N_RESTRICT_FILE_ACCESS_TO: filesDir },
	});
	const dbFile = join(n8n.userFolder, '.n8n', 'database.sqlite');
	const runs: SingleRun[] = [];
	try {
		const state = await operator.state();
		const [alice, bob] = state.users;
		PAYEE = { fromUserId: alice.id, wallet: bob.wallets.find((w: { chain: string }) => w.chain === 'ethereum').address, chain: 'ethereum', asset: 'USDC' };
		const credential = sandboxCredential(sandbox, 'scaleSandboxCred', 'Clearinghouse scale');
		await n8n.importCredential(credential);
		const contenders: N8nContender[] = ['n8nOnly', ...MODES];
		await n8n.importWorkflows(contenders.map((c) => workflow(c, credential, filesDir)));
		await Promise.all(contenders.map((c) => n8n.publish(IDS[c])));

		const restart = async (contender: N8nContender): Promise<number> => {
			if (n8n.running) await n8n.stop();
			await n8n.start({ timeoutMs: 300_000 });
			await n8n.waitForWebhook(PATHS[contender], true, 60_000);
			const pid = findN8nPid(n8n.root, 'start');
			if (!pid) throw new Error('could not find the pid of n8n start');
			return pid;
		};
		/** One run: a fresh CSV of `rows` rows, the webhook called, the saved execution awaited. */
		const runN8n = async (contender: N8nContender, rows: number, tag: string) => {
			const file = `payees-${tag}.csv`;
			writeFileSync(join(filesDir, file), payeesCsv(tag, rows));
			const after = lastExecutionId(dbFile);
			const mark = await operator.mark();
			const started = performance.now();
			const response = await fetch(n8n.webhookUrl(PATHS[contender]), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ file }),
			});
			const text = await response.text();
			if (response.status !== 200) throw new Error(`${contender} ${rows}: webhook answered ${response.status}: ${text.slice(0, 300)}`);
			let saved: SavedExecution | undefined;
			const deadline = Date.now() + 600_000;
			while (!(saved = savedExecution(dbFile, IDS[contender], after))) {
				if (Date.now() > deadline) throw new Error(`${contender} ${rows}: no saved execution within 600 s`);
				await sleep(25);
			}
			const wallMs = performance.now() - started;
			if (saved.status !== 'success') throw new Error(`${contender} ${rows}: execution ${saved.id} ended ${saved.status}`);
			const creates = (await operator.requests(mark)).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
			const created = creates.filter((r) => r.status === 201).length;
			const expected = contender === 'n8nOnly' ? 0 : rows;
			if (creates.length !== expected || created !== expected) {
				throw new Error(`${contender} ${rows}: the sandbox logged ${creates.length} creates (${created} created), expected ${expected}`);
			}
			return { wallMs, saved, created };
		};

		for (const size of SIZES) {
			log(`\n## ${size} payees in one execution`);
			const largest = size === SIZES[SIZES.length - 1];
			for (const contender of contenders) {
				if (contender !== 'n8nOnly' && contender !== 'autoMap' && !largest && !ALL_MODES_AT_EVERY_SIZE) continue;
				const pid = await restart(contender);
				await runN8n(contender, WARM_UP_ROWS, `warm-${contender}-${size}-${Date.now().toString(36)}`);
				const tag = `s${size}-${contender}-${Date.now().toString(36)}`;
				const measured = await withPeakMemory(pid, () => runN8n(contender, size, tag));
				const { wallMs, saved, created } = measured.result;
				const run: SingleRun = {
					contender,
					orders: size,
					wallMs: Math.round(wallMs),
					executionMs: saved.startedAt && saved.stoppedAt ? Date.parse(saved.stoppedAt) - Date.parse(saved.startedAt) : undefined,
					ordersPerSecond: Number(((size / wallMs) * 1000).toFixed(1)),
					usPerOrder: Math.round((wallMs * 1000) / size),
					rssBeforeMb: Math.round(measured.beforeMb),
					peakRssMb: Math.round(measured.peakMb),
					savedExecutionBytes: saved.dataBytes,
					savedBytesPerOrder: Math.round(saved.dataBytes / size),
					created,
				};
				if (contender !== 'n8nOnly') {
					const base = runs.find((r) => r.contender === 'n8nOnly' && r.orders === size)!;
					run.netMs = Math.max(1, run.wallMs - base.wallMs);
					run.netOrdersPerSecond = Number(((size / run.netMs) * 1000).toFixed(1));
					run.netUsPerOrder = Math.round((run.netMs * 1000) / size);
					if (size === SIZES[0] || size === SIZES[SIZES.length - 1]) run.output = outputPerOrder(dbFile, saved.id);
				}
				runs.push(run);
				log(
					`  ${contender.padEnd(11)} ${run.wallMs} ms (${run.ordersPerSecond} orders/s${run.netOrdersPerSecond ? `, net of n8n only ${run.netOrdersPerSecond}/s` : ''}), ` +
						`RSS ${run.rssBeforeMb} → peak ${run.peakRssMb} MB, saved execution ${(saved.dataBytes / 1048576).toFixed(1)} MB (${run.savedBytesPerOrder} B/order)` +
						(run.output ? `, Create's output ${run.output.bytesPerOrder} B/order` : ''),
				);
			}
			// The bare loop: the same bodies, the node's concurrency, outside n8n.
			const tag = `s${size}-undici-${Date.now().toString(36)}`;
			const expiresAt = new Date(Math.ceil((Date.now() + 48 * 3600_000) / 1000) * 1000).toISOString();
			const agent = new Agent({ connections: CONCURRENCY });
			let created = 0;
			const started = performance.now();
			await pool(size, CONCURRENCY, async (i) => {
				const response = await request(`${sandbox.mainUrl}/api/v1/payment`, {
					method: 'POST',
					dispatcher: agent,
					headers: { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
					body: JSON.stringify(bodyOf('undici', tag, i, expiresAt)),
				});
				await response.body.json();
				if (response.statusCode === 201) created++;
			});
			const ms = performance.now() - started;
			await agent.close();
			if (created !== size) throw new Error(`undici ${size}: ${created} created`);
			runs.push({
				contender: 'undici',
				orders: size,
				wallMs: Math.round(ms),
				ordersPerSecond: Number(((size / ms) * 1000).toFixed(1)),
				usPerOrder: Math.round((ms * 1000) / size),
				created,
			});
			log(`  undici      ${Math.round(ms)} ms (${((size / ms) * 1000).toFixed(1)} orders/s)`);
			// Each contender's time ÷ the bare loop's for the same orders (the same sandbox, the same minutes).
			for (const run of runs)
				if (run.orders === size && run.contender !== 'undici' && run.contender !== 'n8nOnly') run.timeVsUndici = Number((run.wallMs / ms).toFixed(2));
		}
	} finally {
		await n8n.dispose();
		await sandbox.close();
	}

	const smallest = SIZES[0];
	const largest = SIZES[SIZES.length - 1];
	const at = (contender: SingleRun['contender'], size: number) => runs.find((r) => r.contender === contender && r.orders === size);
	const growth: Record<string, { gross: number; net?: number; savedBytesPerOrder?: number; peakRssMb?: number }> = {};
	for (const contender of ['n8nOnly', ...MODES, 'undici'] as const) {
		const a = at(contender, smallest);
		const b = at(contender, largest);
		if (!a || !b || a === b) continue;
		growth[contender] = {
			gross: Number((b.usPerOrder / a.usPerOrder).toFixed(2)),
			net: a.netUsPerOrder && b.netUsPerOrder ? Number((b.netUsPerOrder / a.netUsPerOrder).toFixed(2)) : undefined,
			savedBytesPerOrder: a.savedBytesPerOrder && b.savedBytesPerOrder ? Number((b.savedBytesPerOrder / a.savedBytesPerOrder).toFixed(2)) : undefined,
		};
	}
	const record = {
		section: 'single',
		startedAt: startedAt.toISOString(),
		commit,
		n8nVersion: runtime().version,
		cpus: cpus().length,
		loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
		sizes: SIZES,
		modes: MODES,
		concurrency: CONCURRENCY,
		memorySource: 'VmHWM of the n8n start process, reset through /proc/<pid>/clear_refs before the run; n8n restarted before every run',
		wallSeconds: Math.round((performance.now() - wallStart) / 1000),
		runs,
		/** Cost per order at the largest size ÷ at the smallest (1.0: linear growth of the total). */
		perOrderCostGrowth: { from: smallest, to: largest, ...growth },
	};
	log(`\nper-order cost ${largest} ÷ ${smallest}: ${JSON.stringify(growth)}`);
	const file = writeResults('scale-single.json', record);
	replaceSection('single', singleMarkdown(record));
	log(`results: ${file}; bench/README.md (section single) updated; ${record.wallSeconds} s`);
}

/** The `single` subsection of bench/README.md from a results record. */
export function singleMarkdown(record: {
	startedAt: string;
	commit: string;
	n8nVersion: string;
	cpus: number;
	loadAverageAtStart: number[];
	concurrency: number;
	wallSeconds: number;
	runs: SingleRun[];
	perOrderCostGrowth: Record<string, any>;
	sizes: number[];
}): string {
	const names: Record<string, string> = {
		n8nOnly: 'n8n only (file, CSV, no requests)',
		autoMap: 'Create, Map Automatically',
		fixed: 'Create, fixed fields',
		expressions: 'Create, fields by expression',
		undici: 'bare undici loop',
	};
	const lines = [
		`Run of ${record.startedAt} (commit ${record.commit}, n8n ${record.n8nVersion}, ${record.cpus} CPUs, load at start ${record.loadAverageAtStart.join(' ')}, concurrency ${record.concurrency}; ${record.wallSeconds} s). ` +
			'One run per size and contender, n8n restarted before each; wall time from the webhook call until n8n has saved the execution. Results: [`results/scale-single.json`](results/scale-single.json).',
		'',
		'| Payees | Contender | Wall | Orders/s | Net of n8n only | Time ÷ undici loop | Peak RSS of n8n (before) | Saved execution (per order) | Create output per order |',
		'|---|---|---|---|---|---|---|---|---|',
	];
	for (const r of record.runs) {
		lines.push(
			`| ${r.orders.toLocaleString('en-US')} | ${names[r.contender]} | ${(r.wallMs / 1000).toFixed(1)} s | ${r.ordersPerSecond} | ${r.netOrdersPerSecond ?? ''} | ${r.timeVsUndici !== undefined ? `${r.timeVsUndici} ×` : ''} | ${r.peakRssMb !== undefined ? `${r.peakRssMb} MB (${r.rssBeforeMb})` : ''} | ` +
				`${r.savedExecutionBytes !== undefined ? `${(r.savedExecutionBytes / 1048576).toFixed(1)} MB (${r.savedBytesPerOrder} B)` : ''} | ${r.output ? `${r.output.bytesPerOrder} B` : ''} |`,
		);
	}
	const g = record.perOrderCostGrowth;
	const growthText = Object.entries(g)
		.filter(([k]) => k !== 'from' && k !== 'to')
		.map(([k, v]) => `${names[k]} ${v.gross} ×${v.net ? ` (net ${v.net} ×)` : ''}`)
		.join('; ');
	lines.push(
		'',
		`Cost per order at ${Number(g.to).toLocaleString('en-US')} ÷ at ${Number(g.from).toLocaleString('en-US')} payees (1.0 = the total grows linearly): ${growthText}.`,
	);
	return lines.join('\n');
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}
