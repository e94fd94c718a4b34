/**
 * bench:scale, section `intake` (issue 45): payment_order events at rising rates, sent by the sandbox's
 * own event sender (the service's at-least-once delivery: a 10 s timeout per attempt, retries 10 s
 * doubling) through the public front door and nginx (the shipped examples/queue/nginx.conf, hash on
 * X-Service-Webhook-Id) to two webhook processes, in queue mode (main, two workers, PostgreSQL, Redis),
 * into the shipped once-per-order-state recipe (examples/queue/payment-order-events-once.json, every
 * trigger option at its default: confirmation with the API on, When the Workflow Has Finished), whose
 * "Your business step" is a POST to a local receiver (what a user puts there), which records when each
 * order state's step ran.
 *
 * The events, as the service sends them: each new order fires AWAITING_FUNDS; half of the orders are
 * then funded by one deposit, which fires a deposit event (observed), another 5 s later (confirmed
 * on-chain) and FUNDED 5 s after that: 2.5 events per order. Per rate, held BENCH_INTAKE_HOLD_S:
 *   - latency p50/p95/p99 from the service's first send of the event that ran a state's business step
 *     to that step (the receiver's clock; same machine),
 *   - lost: deliveries not delivered when the drain ends, and orders whose current state never ran its
 *     step; doubled: order states whose step ran more than once,
 *   - the service's retries (attempts after the first) and the answers it got,
 *   - CPU% and RSS (end and peak) of every process, the Redis queue's deepest backlog,
 *   - a CPU profile of each webhook process and worker over the middle of the hold.
 * The rates rise until one does not hold (p95 >= 10 s, or anything lost or doubled, or a delivery still
 * pending when the drain ends): the rates above it would only collapse further.
 *
 * The webhook processes run with what docs/queue-mode.md recommends for them (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true);
 * after the rates, the same run restarts them with n8n's defaults and holds the highest rate held again (the
 * baseline, BENCH_INTAKE_BASELINE_HOLD_S, default 60).
 * Time (about 12 minutes when the rates hold): pack 20 s, cluster 70 s, three rates of 2 minutes and their
 * drains, the baseline 2 minutes; each rate that collapses adds its drain's bound (the clean-clone run of
 * af34cad, where 1,000/min and the baseline both collapsed, took 1,033 s; a run that stopped at 500/min, 548 s). The rates stop at the goal, 1,000/min (issue 45): 2,000/min (BENCH_INTAKE_RATES=...,2000)
 * adds about 3.5 minutes, past the section's share of bench:scale's 25 minutes, and 1,000/min already takes
 * most of these 2 cores (bench/README.md, Scale).
 * Env: BENCH_INTAKE_RATES (events/min, default 250,500,1000), BENCH_INTAKE_HOLD_S (default 120),
 * BENCH_INTAKE_DRAIN_S (default 90), BENCH_INTAKE_PROFILE_S (default 20; 0 = no profile),
 * BENCH_INTAKE_LABEL (a variant's name: writes scale-intake-<label>.json, leaves the README), BENCH_INTAKE_ENV
 * (JSON: extra environment of every n8n process), BENCH_INTAKE_WEBHOOK_ENV (JSON: of the webhook processes;
 * `{}` for n8n's defaults), BENCH_INTAKE_WORKER_ENV (JSON: of the workers), BENCH_INTAKE_WORKER_ARGS (e.g.
 * "--concurrency=20"), BENCH_INTAKE_RECIPE (another recipe file, same node names).
 * Run: BENCH_SCALE_SECTIONS=intake npm run bench:scale
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { sleep, type WorkflowInput } from '../harness/n8nProcess';
import { freePort } from '../harness/ports';
import { Receiver } from '../harness/receiver';
import { repoRoot } from '../harness/runtime';
import { sandboxCredential, startSandbox } from '../harness/sandbox';
import { SandboxClient, walletOf } from '../harness/sandboxClient';
import { TRIGGER_NODE } from '../harness/workflows';
import { QueueCluster, type QueueProcess } from '../harness/queue/cluster';
import { InspectorSession, type CpuProfile } from './lib/cpuProfile';
import { cpuMs, findN8nPid } from './lib/proc';
import { replaceSection, writeResults } from './lib/readmeSection';
import { summariseProfile } from './profile';

const RATES = (process.env.BENCH_INTAKE_RATES ?? '250,500,1000').split(',').map(Number);
const HOLD_S = Number(process.env.BENCH_INTAKE_HOLD_S ?? 120);
const DRAIN_S = Number(process.env.BENCH_INTAKE_DRAIN_S ?? 90);
const PROFILE_S = Number(process.env.BENCH_INTAKE_PROFILE_S ?? 20);
const LABEL = process.env.BENCH_INTAKE_LABEL ?? '';
const EXTRA_ENV = JSON.parse(process.env.BENCH_INTAKE_ENV ?? '{}') as Record<string, string>;
/**
 * Extra environment of the webhook processes only (n8n's settings are per process): by default what
 * docs/queue-mode.md recommends for them. `{}` runs n8n's defaults.
 */
const WEBHOOK_ENV = JSON.parse(process.env.BENCH_INTAKE_WEBHOOK_ENV ?? '{"N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE":"true"}') as Record<string, string>;
/**
 * The same run's baseline: after the rising rates, the webhook processes restarted with n8n's defaults
 * and the highest rate held (else the first) for this long; 0 = none. Its drain is cut shorter: a rate
 * that collapses never drains.
 */
const BASELINE_HOLD_S = Number(process.env.BENCH_INTAKE_BASELINE_HOLD_S ?? 60);
const BASELINE_DRAIN_S = 30;
/** Extra environment of the workers only (n8n's settings are per process). */
const WORKER_ENV = JSON.parse(process.env.BENCH_INTAKE_WORKER_ENV ?? '{}') as Record<string, string>;
const WORKER_ARGS = (process.env.BENCH_INTAKE_WORKER_ARGS ?? '').split(' ').filter(Boolean);
const RECIPE = process.env.BENCH_INTAKE_RECIPE ?? join(repoRoot, 'examples', 'queue', 'payment-order-events-once.json');
/** What "held" means (issue 45): p95 under this, nothing lost or doubled, everything delivered. */
const P95_LIMIT_MS = 10_000;
const FUNDED_SHARE = 0.5;
const EVENTS_PER_ORDER = 1 + 3 * FUNDED_SHARE;
const WORKFLOW_ID = 'scaleIntake00001';
const STEP = 'Your business step';
const CLAIMS_TABLE =
	'CREATE TABLE IF NOT EXISTS clearinghouse_once (key text PRIMARY KEY, event_id text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now(), done_at timestamptz)';

interface ProcessFigures {
	name: string;
	cpuPercent: number;
	/** CPU time over the hold and drain per event the service sent (its retries included in the cost). */
	cpuMsPerEvent: number;
	rssEndMb: number;
	rssPeakMb: number;
}

interface RateFigures {
	rate: number;
	holdS: number;
	orders: number;
	funded: number;
	events: number;
	eventsPerMinSent: number;
	stepsRun: number;
	latencyMs: { p50: number; p95: number; p99: number; max: number; n: number };
	lost: number;
	lostUndelivered: number;
	lostStates: number;
	doubled: number;
	attempts: number;
	retries: number;
	answers: Record<string, number>;
	drainS: number;
	deepestQueue: number;
	executions: number;
	/** n8n's executions of this rate: waiting in the queue (created → started) and running (started → stopped), ms. */
	executionMs: { queuedP50: number; queuedP95: number; runP50: number; runP95: number };
	processes: ProcessFigures[];
	/** The machine's 1-minute load average at the end of the hold (other work on the machine shows here). */
	load1: number;
	held: boolean;
	why: string;
	profile?: Record<string, Array<{ part: string; msPerEvent: number; share: number }>>;
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

/** CPU of a process and its children: its own and its waited-for children's (cutime, cstime), plus the live children's. */
function treeCpuMs(pid: number): number {
	try {
		const fieldsOf = (p: string) => {
			const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
			return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		};
		const own = fieldsOf(String(pid));
		let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
		for (const entry of readdirSync('/proc')) {
			if (!/^\d+$/.test(entry)) continue;
			try {
				const f = fieldsOf(entry);
				if (Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
			} catch {
				// ended meanwhile
			}
		}
		return ticks * 10;
	} catch {
		return 0;
	}
}

function rssKb(pid: number): number {
	try {
		return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
	} catch {
		return 0;
	}
}

async function main(): Promise<void> {
	const started = Date.now();
	const sandbox = await startSandbox({ allowLoopbackWebhooks: true, timeScale: 1 });
	const client = new SandboxClient(sandbox);
	const [alice, bob] = (await client.state()).users;
	const aliceEth = walletOf(alice, 'ethereum');
	const inspectPorts = new Map<string, number>();
	for (const name of ['webhook1', 'webhook2', 'worker1', 'worker2']) inspectPorts.set(name, await freePort());
	const cluster = await QueueCluster.start({
		env: EXTRA_ENV,
		workerArgs: WORKER_ARGS,
		// Each process its own inspector (the profile of the middle of each hold); n8n's task-runner
		// child inherits NODE_OPTIONS and finds the port taken, which it only warns about.
		processEnv: (name): Record<string, string> => ({
			...(name.startsWith('webhook') ? WEBHOOK_ENV : {}),
			...(name.startsWith('worker') ? WORKER_ENV : {}),
			...(PROFILE_S > 0 ? { NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPorts.get(name)}` } : {}),
		}),
	});
	const bootS = (Date.now() - started) / 1000;
	const steps = new Map<string, Array<{ at: number; eventId: string }>>();
	const receiver = new Receiver();
	receiver.respond = ({ body, at }) => {
		const key = String(body?.orderStateKey ?? '');
		steps.set(key, [...(steps.get(key) ?? []), { at, eventId: String(body?.eventId ?? '') }]);
		return 200;
	};
	await receiver.start(await freePort());
	const results: RateFigures[] = [];
	const baseline: Array<RateFigures & { settings: string }> = [];
	const meta = {
		at: new Date().toISOString(),
		cores: cpus().length,
		label: LABEL || 'as shipped',
		commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim(),
		env: EXTRA_ENV,
		webhookEnv: WEBHOOK_ENV,
		workerEnv: WORKER_ENV,
		workerArgs: WORKER_ARGS,
		recipe: RECIPE.replace(`${repoRoot}/`, ''),
		holdS: HOLD_S,
		drainS: DRAIN_S,
		profileS: PROFILE_S,
		fundedShare: FUNDED_SHARE,
		bootS,
	};
	try {
		const credential = sandboxCredential(sandbox);
		await cluster.main.importCredential(credential);
		cluster.store.run(CLAIMS_TABLE);
		await cluster.main.importCredential({
			id: 'scalePostgres001',
			name: 'n8n database',
			type: 'postgres',
			data: { host: '127.0.0.1', port: cluster.services!.pgPort, database: 'n8n', user: 'n8n', password: '', ssl: 'disable' },
		});
		const webhookId = `${randomBytes(4).toString('hex')}-intake`;
		const recipe = JSON.parse(readFileSync(RECIPE, 'utf8')) as WorkflowInput;
		recipe.id = WORKFLOW_ID;
		for (const node of recipe.nodes) {
			const credentials = node.credentials as Record<string, unknown> | undefined;
			if (credentials?.clearinghouseApi) node.credentials = { clearinghouseApi: { id: credential.id, name: credential.name } };
			if (credentials?.postgres) node.credentials = { postgres: { id: 'scalePostgres001', name: 'n8n database' } };
			if (node.type === TRIGGER_NODE) node.webhookId = webhookId;
		}
		// "Your business step": what a user puts there, here a POST of the order state to the receiver.
		const step = recipe.nodes.find((n) => n.name === STEP);
		if (!step) throw new Error(`${RECIPE} has no node "${STEP}"`);
		Object.assign(step, {
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: `${receiver.url}/business`,
				sendBody: true,
				specifyBody: 'json',
				jsonBody:
					"={{ JSON.stringify({ orderStateKey: $('Clearinghouse Trigger').item.json.orderStateKey, eventId: $('Clearinghouse Trigger').item.json.eventId }) }}",
				options: {},
			},
		});
		await cluster.main.importWorkflow(recipe);
		await cluster.main.publish(WORKFLOW_ID);
		const path = `${webhookId}/webhook`;
		await cluster.waitForWebhook(path);
		const core = sandbox.services.core;
		const endpointId = await (async () => {
			const deadline = Date.now() + 120_000;
			for (;;) {
				const e = core.data.endpoints.find((x) => x.url === cluster.webhookUrl(path) && !x.deletedAt);
				if (e && JSON.stringify(cluster.store.staticData(WORKFLOW_ID) ?? {}).includes('secretBox')) return e.id;
				if (Date.now() > deadline) throw new Error('no endpoint registered for the recipe');
				await sleep(500);
			}
		})();
		const pids = new Map<string, number>();
		for (const p of [...cluster.webhooks, ...cluster.workers] as QueueProcess[]) {
			const pid = findN8nPid(p.instance.root, p.command);
			if (pid) pids.set(p.name, pid);
		}
		const mainPid = findN8nPid(cluster.main.root, 'start');
		if (mainPid) pids.set('main', mainPid);
		pids.set('bench (sandbox, front door, load)', process.pid);
		// PostgreSQL (the postmaster and its backends) and Redis: CPU only (their RSS is mostly shared buffers).
		const servicePids = new Map<string, number>();
		try {
			servicePids.set('postgresql', Number(readFileSync(join(cluster.services!.dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]));
			servicePids.set('redis', Number(readFileSync(join(cluster.services!.dir, 'redis.pid'), 'utf8').trim()));
		} catch (error) {
			console.warn(`[scale intake] no CPU figures of PostgreSQL/Redis: ${(error as Error).message}`);
		}

		// A warm-up of a few orders (first isolates, connections, the claims table), not measured.
		await runRate(20 * 60, 15, false);

		for (const rate of RATES) {
			const figures = await runRate(rate, HOLD_S, true);
			results.push(figures!);
			write(meta, results, baseline);
			const f = figures!;
			console.log(
				`[scale intake] ${rate}/min for ${HOLD_S} s: ${f.events} events (${f.eventsPerMinSent}/min sent), p50/p95/p99 ${f.latencyMs.p50}/${f.latencyMs.p95}/${f.latencyMs.p99} ms, ` +
					`lost ${f.lost} (undelivered ${f.lostUndelivered}, states ${f.lostStates}), doubled ${f.doubled}, retries ${f.retries} ${JSON.stringify(f.answers)}, ` +
					`queue ≤ ${f.deepestQueue}, executions ${f.executions} (queued p50/p95 ${f.executionMs.queuedP50}/${f.executionMs.queuedP95} ms, run ${f.executionMs.runP50}/${f.executionMs.runP95} ms), drain ${f.drainS} s; ${f.processes.map((p) => `${p.name} ${p.cpuPercent}% ${p.rssEndMb}/${p.rssPeakMb} MB`).join(', ')}: ${f.held ? 'held' : `NOT held (${f.why})`}`,
			);
			if (!f.held) break;
		}

		// The baseline in the same run: the webhook processes with n8n's defaults, at the highest rate held.
		if (BASELINE_HOLD_S > 0 && Object.keys(WEBHOOK_ENV).length > 0 && results.length) {
			const rate = (results.filter((r) => r.held).at(-1) ?? results[0]).rate;
			for (const w of cluster.webhooks) {
				await w.stop();
				w.env = Object.fromEntries(Object.entries(w.env).filter(([k]) => !(k in WEBHOOK_ENV)));
				await w.start();
				const pid = findN8nPid(w.instance.root, w.command);
				if (pid) pids.set(w.name, pid);
			}
			await cluster.waitForWebhook(path);
			await runRate(20 * 60, 15, false);
			const f = (await runRate(rate, BASELINE_HOLD_S, true, BASELINE_DRAIN_S))!;
			baseline.push({ ...f, settings: 'webhook processes with n8n defaults' });
			write(meta, results, baseline);
			console.log(
				`[scale intake] baseline, webhook processes with n8n's defaults, ${rate}/min for ${BASELINE_HOLD_S} s: p50/p95 ${f.latencyMs.p50}/${f.latencyMs.p95} ms, lost ${f.lost}, doubled ${f.doubled}, retries ${f.retries}; ` +
					`${f.processes.map((p) => `${p.name} ${p.cpuPercent}% ${p.rssEndMb}/${p.rssPeakMb} MB`).join(', ')}: ${f.held ? 'held' : `NOT held (${f.why})`}`,
			);
		}

		/** One rate: orders and deposits at the pace that makes `rate` events a minute, then the drain. */
		async function runRate(rate: number, holdS: number, measure: boolean, drainBoundS = DRAIN_S): Promise<RateFigures | undefined> {
			const run = randomBytes(3).toString('hex');
			const from = Date.now();
			const deliveriesBefore = new Set(core.data.deliveries.map((d) => d.id));
			const orderIds: string[] = [];
			const fundedIds = new Set<string>();
			const pending: Array<Promise<unknown>> = [];
			const cpuBefore = new Map([...pids].map(([n, pid]) => [n, cpuMs(pid) ?? 0]));
			const serviceCpuBefore = new Map([...servicePids].map(([n, pid]) => [n, treeCpuMs(pid)]));
			const peak = new Map<string, number>();
			let deepestQueue = 0;
			const sampler = setInterval(() => {
				for (const [n, pid] of pids) peak.set(n, Math.max(peak.get(n) ?? 0, rssKb(pid)));
				try {
					const depth = Number(execFileSync('redis-cli', ['-p', String(cluster.services!.redisPort), 'LLEN', 'bull:jobs:wait'], { encoding: 'utf8' }).trim());
					deepestQueue = Math.max(deepestQueue, depth || 0);
				} catch {
					// redis-cli missing or busy: the depth is left out
				}
			}, 1000);
			const profiles: Promise<Array<{ name: string; profile: CpuProfile }>> | undefined =
				measure && PROFILE_S > 0 && holdS > PROFILE_S + 10 ? sleep(((holdS - PROFILE_S) / 2) * 1000).then(() => profileAll(PROFILE_S)) : undefined;
			// The pace: one order every 60 / (rate / 2.5) s; every other order is funded 2 s after its creation.
			const orderEveryMs = 60_000 / (rate / EVENTS_PER_ORDER);
			const expiresAt = new Date(Date.now() + 6 * 3600_000).toISOString();
			for (let i = 0; Date.now() - from < holdS * 1000; i++) {
				const due = from + i * orderEveryMs;
				if (due > Date.now()) await sleep(due - Date.now());
				const amountUsd = 5 + (i % 20);
				const create = client
					.api('POST', '/payment', {
						fromUserId: alice.id,
						toAddress: bob.wallets[0].address,
						toChain: bob.wallets[0].chain,
						asset: 'USDC',
						amountUsd,
						expiresAt,
						memo: `intake-${run}-${i}`,
						idempotencyKey: `intake-${run}-${i}`,
					})
					.then(async (r: any) => {
						const id = r.paymentOrder.id as string;
						orderIds.push(id);
						if (i % Math.round(1 / FUNDED_SHARE) !== 0) return;
						await sleep(2000);
						const { transactionHash } = await client.call('POST', 'deposits', {
							paymentOrderId: id,
							sender: aliceEth,
							chain: 'ethereum',
							asset: 'USDC',
							amountUsd,
						});
						await client.api('POST', `/payment-orders/${id}/transactions`, { transactions: [{ hash: transactionHash, chain: 'ethereum' }] });
						fundedIds.add(id);
					});
				pending.push(create);
			}
			await Promise.all(pending);
			const sentEnd = Date.now();
			// The drain: every delivery of this rate's events delivered (or the bound), and the funded orders' last events sent.
			const ours = () => core.data.deliveries.filter((d) => d.endpointId === endpointId && !deliveriesBefore.has(d.id));
			const drainDeadline = sentEnd + (drainBoundS + 12) * 1000;
			for (;;) {
				const funding = [...fundedIds].some((id) => core.orders.get(id)?.status === 'AWAITING_FUNDS');
				const open = ours().filter((d) => d.status === 'PENDING' || d.status === 'DISPATCHED').length;
				if ((!funding && open === 0) || Date.now() > drainDeadline) break;
				await sleep(500);
			}
			const drainS = Number(((Date.now() - sentEnd) / 1000).toFixed(1));
			clearInterval(sampler);
			const wall = (Date.now() - from) / 1000;
			const profiled = await profiles;
			if (!measure) return undefined;

			const deliveries = ours();
			const answers: Record<string, number> = {};
			let attempts = 0;
			for (const d of deliveries)
				for (const a of d.attempts) {
					attempts++;
					const k = a.statusCode === null ? (a.error === 'timeout' ? 'timeout' : 'error') : String(a.statusCode);
					answers[k] = (answers[k] ?? 0) + 1;
				}
			const firstSend = new Map(deliveries.filter((d) => d.attempts.length).map((d) => [d.envelopeId, Date.parse(d.attempts[0].startedAt)]));
			const ourOrders = new Set(orderIds);
			const latencies: number[] = [];
			let doubled = 0;
			let stepsRun = 0;
			for (const [key, runs] of steps) {
				if (!ourOrders.has(key.split(':')[0])) continue;
				stepsRun += runs.length;
				if (runs.length > 1) doubled++;
				const sent = firstSend.get(runs[0].eventId);
				if (sent !== undefined) latencies.push(runs[0].at - sent);
			}
			// Lost: an order whose current state never ran its step (with confirmation a state the order left
			// before its event was read runs no step: docs/queue-mode.md), or a delivery never delivered.
			const lostStates = orderIds.filter((id) => {
				const now = core.orders.get(id);
				return !steps.has(`${id}:${now?.status}`);
			}).length;
			const lostUndelivered = deliveries.filter((d) => d.status !== 'DELIVERED').length;
			latencies.sort((a, b) => a - b);
			const latencyMs = {
				p50: Math.round(pct(latencies, 50)),
				p95: Math.round(pct(latencies, 95)),
				p99: Math.round(pct(latencies, 99)),
				max: Math.round(latencies.at(-1) ?? NaN),
				n: latencies.length,
			};
			const processes: ProcessFigures[] = [
				...[...pids].map(([name, pid]) => ({
					name,
					cpuPercent: Math.round((((cpuMs(pid) ?? 0) - (cpuBefore.get(name) ?? 0)) / (wall * 1000)) * 100),
					cpuMsPerEvent: Number((((cpuMs(pid) ?? 0) - (cpuBefore.get(name) ?? 0)) / Math.max(1, deliveries.length)).toFixed(1)),
					rssEndMb: Math.round(rssKb(pid) / 1024),
					rssPeakMb: Math.round((peak.get(name) ?? 0) / 1024),
				})),
				...[...servicePids].map(([name, pid]) => ({
					name,
					cpuPercent: Math.round(((treeCpuMs(pid) - (serviceCpuBefore.get(name) ?? 0)) / (wall * 1000)) * 100),
					cpuMsPerEvent: Number(((treeCpuMs(pid) - (serviceCpuBefore.get(name) ?? 0)) / Math.max(1, deliveries.length)).toFixed(1)),
					rssEndMb: NaN,
					rssPeakMb: NaN,
				})),
			];
			const executions = cluster.store.json<number>(
				`SELECT count(*) FROM execution_entity WHERE "workflowId" = '${WORKFLOW_ID}' AND "createdAt" >= to_timestamp(${from / 1000})`,
			);
			const timing = cluster.store.json<Record<string, number | null>>(
				`SELECT json_build_object(
				   'queuedP50', percentile_cont(0.5) WITHIN GROUP (ORDER BY q), 'queuedP95', percentile_cont(0.95) WITHIN GROUP (ORDER BY q),
				   'runP50', percentile_cont(0.5) WITHIN GROUP (ORDER BY r), 'runP95', percentile_cont(0.95) WITHIN GROUP (ORDER BY r))
				 FROM (SELECT extract(epoch FROM ("startedAt" - "createdAt")) * 1000 AS q, extract(epoch FROM ("stoppedAt" - "startedAt")) * 1000 AS r
				       FROM execution_entity WHERE "workflowId" = '${WORKFLOW_ID}' AND "createdAt" >= to_timestamp(${from / 1000}) AND "stoppedAt" IS NOT NULL) t`,
			);
			const executionMs = {
				queuedP50: Math.round(timing.queuedP50 ?? NaN),
				queuedP95: Math.round(timing.queuedP95 ?? NaN),
				runP50: Math.round(timing.runP50 ?? NaN),
				runP95: Math.round(timing.runP95 ?? NaN),
			};
			const lost = lostStates + lostUndelivered;
			const why = [
				latencyMs.p95 >= P95_LIMIT_MS ? `p95 ${latencyMs.p95} ms` : '',
				lost ? `${lost} lost` : '',
				doubled ? `${doubled} doubled` : '',
				latencies.length === 0 ? 'no step ran' : '',
			]
				.filter(Boolean)
				.join(', ');
			const events = deliveries.length;
			const figures: RateFigures = {
				rate,
				holdS,
				orders: orderIds.length,
				funded: fundedIds.size,
				events,
				eventsPerMinSent: Math.round(events / ((sentEnd - from) / 60_000)),
				stepsRun,
				latencyMs,
				lost,
				lostUndelivered,
				lostStates,
				doubled,
				attempts,
				retries: attempts - deliveries.filter((d) => d.attempts.length).length,
				answers,
				drainS,
				deepestQueue,
				executions,
				executionMs,
				processes,
				load1: Number(loadavg()[0].toFixed(2)),
				held: !why,
				why,
			};
			if (profiled) {
				figures.profile = {};
				// Per event the service sent during the profiled stretch (the rate's pace).
				const eventsProfiled = (rate / 60) * PROFILE_S;
				for (const { name, profile } of profiled) {
					const s = summariseProfile(profile);
					const busy = [...s.partsMs].filter(([p]) => !p.startsWith('idle')).reduce((n, [, ms]) => n + ms, 0);
					figures.profile[name] = [...s.partsMs]
						.filter(([p]) => !p.startsWith('idle'))
						.sort((a, b) => b[1] - a[1])
						.map(([part, ms]) => ({ part, msPerEvent: Number((ms / eventsProfiled).toFixed(2)), share: Number((ms / busy).toFixed(3)) }));
				}
				mkdirSync(join(repoRoot, '.e2e', 'scale-intake-profiles'), { recursive: true });
				for (const { name, profile } of profiled)
					writeFileSync(join(repoRoot, '.e2e', 'scale-intake-profiles', `${LABEL || 'shipped'}-${rate}-${name}.cpuprofile`), JSON.stringify(profile));
			}
			return figures;
		}

		/** A CPU profile of every webhook process and worker over the same `seconds`. */
		async function profileAll(seconds: number): Promise<Array<{ name: string; profile: CpuProfile }>> {
			const sessions: Array<{ name: string; session: InspectorSession }> = [];
			for (const [name, port] of inspectPorts) {
				try {
					const session = await InspectorSession.connect(port, 1000);
					await session.send('Profiler.start');
					sessions.push({ name, session });
				} catch (error) {
					console.warn(`[scale intake] no profile of ${name}: ${(error as Error).message}`);
				}
			}
			await sleep(seconds * 1000);
			const out: Array<{ name: string; profile: CpuProfile }> = [];
			for (const { name, session } of sessions) {
				out.push({ name, profile: (await session.send<{ profile: CpuProfile }>('Profiler.stop')).profile });
				session.close();
			}
			return out;
		}
	} finally {
		await receiver.close();
		await cluster.dispose().catch((error: Error) => console.warn(`[scale intake] dispose: ${error.message}`));
		await sandbox.close();
	}
	console.log(`[scale intake] ${((Date.now() - started) / 1000).toFixed(0)} s in all; written bench/results/${fileName()}`);
}

function fileName(): string {
	return LABEL ? `scale-intake-${LABEL}.json` : 'scale-intake.json';
}

/** After every rate, so a run cut short keeps what it measured. */
function write(meta: Record<string, unknown>, results: RateFigures[], baseline: Array<RateFigures & { settings: string }>): void {
	const held = results.filter((r) => r.held);
	const best = held.at(-1);
	const report = {
		...meta,
		load: loadavg().map((l) => Number(l.toFixed(2))),
		highestHeld: best ? { rate: best.rate, p95Ms: best.latencyMs.p95, eventsPerMinSent: best.eventsPerMinSent } : null,
		results,
		baseline,
	};
	writeResults(fileName(), report);
	if (!LABEL) replaceSection('intake', intakeMarkdown(report));
}

/** The generated part of the `intake` subsection of bench/README.md, from a results file. */
export function intakeMarkdown(report: Record<string, any>): string {
	const results = report.results as RateFigures[];
	const env = { ...report.env, ...Object.fromEntries(Object.entries(report.webhookEnv ?? {}).map(([k, v]) => [`${k} (webhook processes)`, v])) };
	const settings = Object.entries(env).map(([k, v]) => `${k}=${String(v)}`);
	const lines = [
		`Run of ${report.at} (commit ${report.commit}, ${report.cores} CPUs, ${report.label}${settings.length ? `: ${settings.join(', ')}` : ', n8n defaults'}${report.workerArgs?.length ? `, workers ${report.workerArgs.join(' ')}` : ''}; ` +
			`cluster start ${Math.round(report.bootS)} s; each rate held ${report.holdS} s, then up to ${report.drainS} s for the last deliveries). ` +
			'Results: [`results/scale-intake.json`](results/scale-intake.json).',
		'',
		'| Events/min asked (sent) | Events | Latency p50 / p95 / p99 | Lost | Doubled | Service retries (answers) | Queue ≤ | Executions: queued p50 / run p50 | CPU: webhook ×2 / worker ×2 / PostgreSQL | RSS end (peak): webhook ×2 / worker ×2 | Load | Held |',
		'|---|---|---|---|---|---|---|---|---|---|---|---|',
	];
	const byName = (r: RateFigures, prefix: string) => r.processes.filter((p) => p.name.startsWith(prefix));
	for (const r of results) {
		const cpu = (prefix: string) =>
			byName(r, prefix)
				.map((p) => `${p.cpuPercent}%`)
				.join(', ');
		const rss = (prefix: string) =>
			byName(r, prefix)
				.map((p) => `${p.rssEndMb} (${p.rssPeakMb})`)
				.join(', ');
		const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
		lines.push(
			`| ${r.rate.toLocaleString('en-US')} (${r.eventsPerMinSent.toLocaleString('en-US')}) | ${r.events.toLocaleString('en-US')} | ${s(r.latencyMs.p50)} / ${s(r.latencyMs.p95)} / ${s(r.latencyMs.p99)} | ` +
				`${r.lost}${r.lost ? ` (${r.lostUndelivered} undelivered, ${r.lostStates} states)` : ''} | ${r.doubled} | ${r.retries} (${Object.entries(r.answers)
					.map(([k, v]) => `${k}: ${v}`)
					.join(', ')}) | ${r.deepestQueue} | ${s(r.executionMs.queuedP50)} / ${s(r.executionMs.runP50)} | ` +
				`${cpu('webhook')} / ${cpu('worker')} / ${byName(r, 'postgresql')[0]?.cpuPercent ?? '?'}% | ${rss('webhook')} / ${rss('worker')} MB | ${r.load1} | ${r.held ? '**held**' : `no: ${r.why}`} |`,
		);
	}
	for (const r of (report.baseline ?? []) as RateFigures[]) {
		const rss = byName(r, 'webhook')
			.map((p) => `${p.rssEndMb} (${p.rssPeakMb})`)
			.join(', ');
		lines.push(
			`| baseline, webhook processes with n8n's defaults: ${r.rate.toLocaleString('en-US')} for ${r.holdS} s | ${r.events.toLocaleString('en-US')} | ${(r.latencyMs.p50 / 1000).toFixed(1)} s / ${(r.latencyMs.p95 / 1000).toFixed(1)} s / ${(r.latencyMs.p99 / 1000).toFixed(1)} s | ` +
				`${r.lost} | ${r.doubled} | ${r.retries} (${Object.entries(r.answers)
					.map(([k, v]) => `${k}: ${v}`)
					.join(', ')}) | ${r.deepestQueue} | ${(r.executionMs.queuedP50 / 1000).toFixed(1)} s / ${(r.executionMs.runP50 / 1000).toFixed(1)} s | ` +
				`${byName(r, 'webhook')
					.map((p) => `${p.cpuPercent}%`)
					.join(', ')} / ${byName(r, 'worker')
					.map((p) => `${p.cpuPercent}%`)
					.join(', ')} / ${byName(r, 'postgresql')[0]?.cpuPercent ?? '?'}% | ${rss} / ${byName(r, 'worker')
					.map((p) => `${p.rssEndMb} (${p.rssPeakMb})`)
					.join(', ')} MB | ${r.load1} | ${r.held ? 'held' : `no: ${r.why}`} |`,
		);
	}
	const best = results.filter((r) => r.held).at(-1);
	lines.push(
		'',
		best
			? `Highest rate held (p95 under 10 s, nothing lost or doubled): **${best.rate.toLocaleString('en-US')} events/min** (p95 ${(best.latencyMs.p95 / 1000).toFixed(1)} s).`
			: 'No rate held.',
	);
	if (best?.profile) {
		lines.push(
			'',
			`Where the CPU goes at ${best.rate.toLocaleString('en-US')}/min (${report.profileS ?? 20} s profiled in the middle of the hold; ms of CPU per event sent, share of the process's busy time):`,
			'',
		);
		lines.push('| Process | Parts (ms per event, share) |', '|---|---|');
		for (const [name, parts] of Object.entries(best.profile))
			lines.push(
				`| ${name} | ${parts
					.filter((p) => p.share >= 0.03)
					.map((p) => `${p.part} ${p.msPerEvent} (${Math.round(p.share * 100)}%)`)
					.join('; ')} |`,
			);
	}
	return lines.join('\n');
}

if (require.main === module) {
	if (process.argv.includes('--readme')) {
		// Rewrites the README block from the committed results, without a run.
		replaceSection(
			'intake',
			intakeMarkdown(
				JSON.parse(readFileSync(join(repoRoot, 'bench', 'results', process.argv[process.argv.indexOf('--readme') + 1] ?? 'scale-intake.json'), 'utf8')),
			),
		);
	} else {
		main().catch((error) => {
			console.error(error);
			process.exit(1);
		});
	}
}
