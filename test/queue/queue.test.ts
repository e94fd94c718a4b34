/**
 * The nodes in n8n's queue mode, all on loopback and started here: PostgreSQL and Redis, the main
 * process, two workers and two webhook processes behind nginx (the shipped examples/queue/nginx.conf,
 * hash on X-Service-Webhook-Id), reached through a front door that can lose answers (WEBHOOK_URL).
 * Mirrors test/e2e: everything is checked on both sides, in n8n's own database (PostgreSQL) and
 * in what the sandbox received. The suite stops every process it started, also on failure.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { findNode, loadExample, withOutbox } from '../../harness/examples';
import { nodeItems, type ExecutionRecord } from '../../harness/executions';
import { sleep, type WorkflowInput } from '../../harness/n8nProcess';
import { repoRoot } from '../../harness/runtime';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { triggerSecret } from '../../harness/secrets';
import { pollFor, type Probe } from '../../harness/wait';
import { action, createOrdersNode, graph, itemsNode, TRIGGER_NODE, type NodeSpec } from '../../harness/workflows';
import { QueueCluster } from '../../harness/queue/cluster';
import { N8nRest } from '../../harness/n8nRest';
import { BusinessReceiver, runStress, settled, stressSecret, stressWorkflow } from '../../harness/queue/stress';
import { freePort } from '../../harness/ports';
import { PAYMENT_ORDER_STATUSES } from '../../nodes/shared/paymentOrderStatus';
import { nowSeconds, signatureHeader } from '../../harness/signer';

jest.setTimeout(600_000);

const run = randomBytes(3).toString('hex');
const IDS = {
	batch: 'queueBatchFlow01',
	batchRef: 'queueBatchRef001',
	list: 'queueListFlow001',
	listRef: 'queueListRef0001',
	trigger: 'queueTrigger0001',
	stress: 'queueStress00001',
	health: 'queueHealth00001',
	perState: 'queuePerState001',
	interleaved: 'queueInterleave1',
	recoverNow: 'queueRecoverNow1',
};
/** The queue suite's stress run; `bash bench/queue-stress.sh` (bench/queue-stress.ts) runs 200. */
const STRESS_EVENTS = 40;
const BATCH_PATH = `queue-batch-${run}`;
const LIST_PATH = `queue-list-${run}`;
const TRIGGER_WEBHOOK_ID = randomUUID();
const TRIGGER_PATH = `${TRIGGER_WEBHOOK_ID}/webhook`;
const TRIGGER = 'Clearinghouse Trigger';
/** The shipped recipe's business step (a placeholder users replace): it succeeding is "the business step ran". */
const BUSINESS = 'Your business step';
const RECIPE = join(repoRoot, 'examples', 'queue', 'payment-order-events-once.json');
/** The recipe's nodes, in order: the claim on orderStateKey, the filter, your business step, the mark. */
const RECIPE_NODES = [TRIGGER, 'Claim the order state', 'Only the first of this order state', BUSINESS, 'Mark the order state done'];
/** The claims table the recipe's notes ask for, in n8n's own database here. */
const CLAIMS_TABLE =
	'CREATE TABLE IF NOT EXISTS clearinghouse_once (key text PRIMARY KEY, event_id text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now(), done_at timestamptz)';
const countBy = (values: Array<string | number>) => values.reduce<Record<string, number>>((counts, v) => ({ ...counts, [v]: (counts[v] ?? 0) + 1 }), {});

interface OrderInput {
	key: string;
	memo: string;
	amountUsd: number;
	expiresAt: string;
}

const webhookNode = (path: string): NodeSpec => ({
	name: 'Webhook',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	webhookId: randomUUID(),
	parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
});

describe('Clearinghouse nodes in n8n queue mode (main, 2 workers, 2 webhook processes, PostgreSQL, Redis)', () => {
	let stage: SandboxStage;
	let cluster: QueueCluster;
	const expiresAt = new Date(Date.now() + 6 * 3600_000).toISOString();

	const createOrders = (): NodeSpec => createOrdersNode(stage.alice.id, stage.bobEth);
	const listOrdersNode = (): NodeSpec =>
		action('List orders', 'paymentOrder', 'getMany', { returnAll: true, filters: { fromUserId: stage.alice.id } }, { executeOnce: true });
	const orders = (prefix: string, count: number): OrderInput[] =>
		Array.from({ length: count }, (_, i) => ({ key: `${prefix}-${i}`, memo: `${prefix}-${i}`, amountUsd: 1 + (i % 7) + 0.25, expiresAt }));

	/** POSTs JSON to a production webhook path through the public entry point. */
	async function post(path: string, body: unknown): Promise<number> {
		const response = await fetch(cluster.webhookUrl(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		await response.text();
		return response.status;
	}
	const maxExecutionId = () => Math.max(0, ...cluster.store.list().map((e) => e.id));
	/** Waits for `count` finished executions of a workflow with an id above `after`. */
	async function finishedAfter(workflowId: string, after: number, count: number, timeoutMs = 120_000): Promise<ExecutionRecord[]> {
		const deadline = Date.now() + timeoutMs;
		let seen: ExecutionRecord[] = [];
		while (Date.now() < deadline) {
			seen = cluster.main.finishedExecutions(workflowId).filter((e) => e.id > after);
			if (seen.length >= count) return seen;
			await sleep(300);
		}
		throw new Error(`workflow ${workflowId}: ${seen.length} finished executions after #${after}, wanted ${count}`);
	}
	async function sandboxOrders(): Promise<any[]> {
		const all: any[] = [];
		for (let offset = 0; ; offset += 100) {
			const page = (await stage.operator.api('GET', `/payment-orders?limit=100&offset=${offset}&status=${PAYMENT_ORDER_STATUSES.join(',')}`))
				.paymentOrders as any[];
			all.push(...page);
			if (page.length < 100) return all;
		}
	}

	beforeAll(async () => {
		// timeScale 1: the service's own 10 s attempt timeout. The trigger answers when its run has
		// ended, so a loaded machine can still exceed it: the tests accept the retries that follows.
		stage = await startSandboxStage({ allowLoopbackWebhooks: true, timeScale: 1 });
		cluster = await QueueCluster.start();
		const credential = sandboxCredential(stage.sandbox);
		await cluster.main.importCredential(credential);
		const ref = { id: credential.id, name: credential.name };
		await cluster.main.importWorkflows([
			graph(
				IDS.batch,
				'queue: batch of payment orders',
				[
					webhookNode(BATCH_PATH),
					{ name: 'Orders', type: 'n8n-nodes-base.splitOut', parameters: { fieldToSplitOut: 'body.orders', include: 'noOtherFields', options: {} } },
					createOrders(),
				],
				[
					['Webhook', 'Orders'],
					['Orders', 'Create orders'],
				],
				ref,
			),
			graph(IDS.list, 'queue: all payment orders', [webhookNode(LIST_PATH), listOrdersNode()], [['Webhook', 'List orders']], ref),
			graph(
				IDS.listRef,
				'single process: all payment orders',
				[{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' }, listOrdersNode()],
				[['Start', 'List orders']],
				ref,
			),
		]);
		await cluster.main.publish(IDS.batch);
		await cluster.main.publish(IDS.list);
		await cluster.waitForWebhook(BATCH_PATH);
		await cluster.waitForWebhook(LIST_PATH);
	}, 900_000);

	afterAll(() => stopAll(cluster, stage?.sandbox));

	test('a batch of payment orders with business keys runs on a worker, with the same results as in a single process', async () => {
		const queued = orders(`q-batch-${run}`, 12);
		const single = orders(`s-batch-${run}`, 12);
		// The reference: the same Create node, run in one process by `n8n execute` (it runs in regular mode).
		await cluster.main.importWorkflow(
			graph(
				IDS.batchRef,
				'single process: batch of payment orders',
				[{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' }, itemsNode('Orders', single as any), createOrders()],
				[
					['Start', 'Orders'],
					['Orders', 'Create orders'],
				],
				{
					id: sandboxCredential(stage.sandbox).id,
					name: sandboxCredential(stage.sandbox).name,
				},
			),
		);
		const reference = await cluster.cli.execute(IDS.batchRef);
		expect(reference.code).toBe(0);
		const referenceItems = nodeItems(reference.run!.data, 'Create orders');

		const before = maxExecutionId();
		expect(await post(BATCH_PATH, { orders: queued })).toBe(200);
		const [execution] = await finishedAfter(IDS.batch, before, 1);
		expect(execution).toMatchObject({ mode: 'webhook', status: 'success' });
		// Ran on a worker (its log says so), not on the main or a webhook process.
		expect(cluster.workerOf(execution.id)).toBeDefined();
		for (const w of cluster.webhooks) expect(w.logText()).not.toMatch(new RegExp(`started execution ${execution.id} `));

		const queuedItems = nodeItems(execution.data, 'Create orders');
		const shape = (items: any[], prefix: string) =>
			items.map((item) => ({
				key: String(item.idempotencyKey).replace(prefix, ''),
				status: item.status,
				amountUsd: item.amountUsd,
				memo: String(item.memo).replace(prefix, ''),
				expiresAt: item.expiresAt,
				fields: Object.keys(item).sort(),
			}));
		expect(queuedItems).toHaveLength(queued.length);
		expect(shape(queuedItems, `q-batch-${run}`)).toEqual(shape(referenceItems, `s-batch-${run}`));
		// And the sandbox holds exactly one order per business key.
		const all = await sandboxOrders();
		for (const input of [...queued, ...single]) expect(all.filter((o) => o.memo === input.memo)).toHaveLength(1);
	});

	test('Get Many with Return All runs on a worker and returns what a single process returns (several pages)', async () => {
		await stage.operator.call('POST', 'payment-orders/bulk', { count: 230, fromUserId: stage.alice.id });
		const reference = await cluster.cli.execute(IDS.listRef);
		expect(reference.code).toBe(0);
		const referenceIds = nodeItems(reference.run!.data, 'List orders').map((o) => o.id);

		const before = maxExecutionId();
		expect(await post(LIST_PATH, {})).toBe(200);
		const [execution] = await finishedAfter(IDS.list, before, 1);
		expect(execution.status).toBe('success');
		expect(cluster.workerOf(execution.id)).toBeDefined();
		const queuedIds = nodeItems(execution.data, 'List orders').map((o) => o.id);
		expect(queuedIds.length).toBeGreaterThan(230);
		expect(queuedIds).toEqual(referenceIds);
		const expected = (await sandboxOrders()).filter((o) => o.fromUserId === stage.alice.id || o.sender?.userId === stage.alice.id).length;
		expect(expected === 0 || queuedIds.length === expected).toBe(true);
	});

	test("a worker killed (SIGKILL) in the middle of a batch, then n8n's retry and a re-run with the same business keys: no payment order created twice", async () => {
		const batch = orders(`kill-${run}`, 40);
		const isPaymentPost = (r: { method: string; path: string }) => r.method === 'POST' && r.path === '/api/v1/payment';
		// Slow answers, so the batch is surely in flight when the worker dies.
		await stage.operator.fault({ method: 'POST', path: '^/api/v1/payment$', count: 1000, delayMs: 400 });
		const mark = await stage.operator.mark();
		const before = maxExecutionId();
		expect(await post(BATCH_PATH, { orders: batch })).toBe(200);
		let posted = 0;
		const deadline = Date.now() + 60_000;
		while (posted < 8 && Date.now() < deadline) {
			posted = (await stage.operator.requests(mark)).filter(isPaymentPost).length;
			await sleep(100);
		}
		const victim = cluster.store.list(IDS.batch).find((e) => e.id > before);
		expect(victim?.status).toBe('running');
		const worker = cluster.workerOf(victim!.id);
		expect(worker).toBeDefined();
		await worker!.stop('SIGKILL');
		await stage.operator.clearFaults();
		try {
			const createdBeforeRetry = (await sandboxOrders()).filter((o) => String(o.memo).startsWith(`kill-${run}-`)).length;
			expect(createdBeforeRetry).toBeGreaterThan(0);
			expect(createdBeforeRetry).toBeLessThan(batch.length);

			// n8n notices the dead worker's execution (its job's lock expires) and ends it.
			let failed: ExecutionRecord | undefined;
			const crashDeadline = Date.now() + 180_000;
			while (!failed && Date.now() < crashDeadline) {
				failed = cluster.store.list(IDS.batch).find((e) => e.id === victim!.id && !['new', 'running'].includes(e.status));
				if (!failed) await sleep(500);
			}
			// Which of the two depends on who notices first: the surviving worker fails the stalled
			// job, or the leader's queue recovery marks it crashed. Either way it is retryable.
			expect(['crashed', 'error']).toContain(failed?.status);
			expect(failed?.finished).toBe(false);
			const failure = failed?.data.resultData.error?.message ?? '(no error recorded)';

			const memos = async () => (await sandboxOrders()).filter((o) => String(o.memo).startsWith(`kill-${run}-`));
			const onePerKey = (all: any[]) => new Set(all.map((o) => o.memo)).size === all.length;

			// n8n's own Retry (the editor's button, REST as the owner). In 2.40.7 it re-runs nothing for
			// an execution whose worker died: on the stalled job the main process overwrote its data
			// with the error and an empty node stack, so the retry has no node to start from.
			const rest = new N8nRest(cluster.main.baseUrl);
			await rest.setupOwner();
			await rest.retryExecution(victim!.id);
			let retry: ExecutionRecord | undefined;
			const retryDeadline = Date.now() + 60_000;
			while (!retry && Date.now() < retryDeadline) {
				retry = cluster.store.list(IDS.batch).find((e) => String((e as any).retryOf) === String(victim!.id) && e.stoppedAt !== null);
				if (!retry) await sleep(500);
			}
			expect(retry?.mode).toBe('retry');
			const retryRanCreate = Boolean(retry!.data.resultData.runData['Create orders']);
			expect(onePerKey(await memos())).toBe(true);

			// So the re-run that completes the batch is the caller's: the same request (same business
			// keys) to the same workflow, a new execution on a worker.
			const before2 = maxExecutionId();
			expect(await post(BATCH_PATH, { orders: batch })).toBe(200);
			const [rerun] = await finishedAfter(IDS.batch, before2, 1);
			expect(rerun).toMatchObject({ mode: 'webhook', status: 'success' });
			expect(cluster.workerOf(rerun.id)).toBeDefined();

			// Exactly one order per business key; the re-run re-sent the keys the dead worker had sent
			// and got the existing orders back.
			const all = await memos();
			expect(all).toHaveLength(batch.length);
			for (const input of batch) expect(all.filter((o) => o.memo === input.memo)).toHaveLength(1);
			const posts = (await stage.operator.requests(mark)).filter(isPaymentPost);
			const perKey = new Map<string, number>();
			for (const p of posts) {
				// Every POST, also one cut off by the kill during the injected delay: the sandbox reads
				// a body before the delay, so each log entry has it.
				expect(p.body?.idempotencyKey).toEqual(expect.any(String));
				perKey.set(p.body.idempotencyKey, (perKey.get(p.body.idempotencyKey) ?? 0) + 1);
			}
			expect([...perKey.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(createdBeforeRetry);
			const byMemo = new Map(all.map((o) => [o.memo, o.id]));
			const rerunItems = nodeItems(rerun.data, 'Create orders') as any[];
			expect(rerunItems).toHaveLength(batch.length);
			for (const item of rerunItems) expect(item.paymentOrderId).toBe(byMemo.get(item.memo));
			console.log(
				`[queue kill] ${worker!.name} killed after ${createdBeforeRetry} of ${batch.length} orders; execution ${victim!.id} ended ${failed!.status} ("${failure}"); ` +
					`n8n retry ${retry!.id} ${retry!.status}, ran Create orders: ${retryRanCreate}; re-run ${rerun.id} ${rerun.status}: ${posts.length} POSTs for ${batch.length} keys, ${all.length} orders`,
			);
		} finally {
			await worker!.start();
		}
	});

	describe('the trigger behind nginx (hash on X-Service-Webhook-Id), acknowledging when the workflow has finished', () => {
		const liveEndpoints = async () =>
			((await stage.operator.api<{ endpoints: any[] }>('GET', '/webhooks/endpoints')).endpoints ?? []).filter((e) => !e.deletedAt);
		/** Every execution of the trigger workflow: the event ids it got, and whether its business step ran. */
		const runs = () =>
			cluster.store.list(IDS.trigger).map((e) => ({
				id: e.id,
				status: e.status,
				eventIds: e.data.resultData.runData[TRIGGER] ? nodeItems(e.data, TRIGGER).map((i) => String(i.eventId)) : [],
				orderIds: e.data.resultData.runData[TRIGGER] ? nodeItems(e.data, TRIGGER).map((i: any) => String(i.paymentOrder?.id)) : [],
				// Event ids of a run whose business step ran without error.
				business:
					e.data.resultData.runData[BUSINESS] && !e.data.resultData.runData[BUSINESS].some((r) => r.error)
						? nodeItems(e.data, TRIGGER).map((i) => String(i.eventId))
						: [],
			}));
		const settle = () => settled(cluster, IDS.trigger);
		const createOrder = (amountUsd: number) => stage.operator.createOrder(amountUsd, 'queue trigger', `queue-trigger-${randomBytes(6).toString('hex')}`);
		/** Waits (90 s unless told) for what the cluster brings about; a timeout says what it saw. */
		const waitFor = <T>(what: string, probe: Probe<T>, timeoutMs = 90_000) => pollFor(what, probe, timeoutMs, { explain: diagnosis });
		/** What a timed-out wait saw: the routing, the sandbox's deliveries, the runs, the processes' last log lines. */
		const diagnosis = async () => {
			const deliveries = await stage.operator.api('GET', '/webhooks/deliveries?limit=8').catch((error: Error) => error.message);
			const processes = [...cluster.webhooks, ...cluster.workers].map((p) => `--- ${p.name} (running ${p.running})\n${p.logTail(1500)}`);
			return [
				`front door: ${JSON.stringify(cluster.proxy.log.slice(-10))}`,
				`nginx: ${JSON.stringify(cluster.nginx.log().slice(-10))}`,
				`deliveries: ${JSON.stringify(deliveries)}`,
				`runs: ${(() => {
					try {
						return JSON.stringify(runs().slice(-6));
					} catch (error) {
						return String(error);
					}
				})()}`,
				...processes,
			].join('\n');
		};
		const deliverTo = async (url: string, body: string, headers: Record<string, string>) => {
			const response = await fetch(url, { method: 'POST', headers, body });
			return { status: response.status, text: await response.text() };
		};

		/** A new event about an existing order, signed now with the trigger's stored secret (from its static data). */
		const freshSignedEvent = async (orderId: string, bump: number, status?: string) => {
			const triggerNode = JSON.parse(readFileSync(RECIPE, 'utf8')).nodes.find((n: any) => n.type === TRIGGER_NODE);
			const secret = triggerSecret(cluster.store.staticData(IDS.trigger), { apiKey: stage.sandbox.apiKey, workflowId: IDS.trigger, nodeId: triggerNode.id })!;
			expect(secret).toBeDefined();
			const base = JSON.parse(attempt.body);
			const current = await stage.operator.api('GET', `/payment-orders/${orderId}`);
			const event = {
				...base,
				id: `evt_${randomBytes(8).toString('hex')}_payment_order`,
				created: new Date().toISOString(),
				data: { payment_order: { ...current, returns: undefined, version: current.version + bump, ...(status ? { status } : {}) } },
			};
			const body = JSON.stringify(event);
			const headers = {
				'content-type': 'application/json',
				'x-service-webhook-id': event.id,
				'x-service-event': 'payment_order',
				'x-service-webhook-signature': signatureHeader(secret, nowSeconds(), body),
			};
			return { id: event.id as string, body, headers };
		};

		/** The recipe exactly as shipped, with this run's credentials and the given id and webhook id. */
		const recipeAs = (id: string, webhookId: string): WorkflowInput => {
			const credential = sandboxCredential(stage.sandbox);
			const recipe = JSON.parse(readFileSync(RECIPE, 'utf8')) as WorkflowInput;
			recipe.id = id;
			expect(recipe.nodes.map((n) => n.name)).toEqual(RECIPE_NODES);
			expect(recipe.nodes[0].parameters).toEqual({ options: { acknowledge: 'whenFinished' } });
			for (const node of recipe.nodes) {
				const credentials = node.credentials as Record<string, unknown> | undefined;
				if (credentials?.clearinghouseApi) node.credentials = { clearinghouseApi: { id: credential.id, name: credential.name } };
				if (credentials?.postgres) node.credentials = { postgres: { id: 'queuePostgres001', name: 'n8n database' } };
				if (node.type === TRIGGER_NODE) node.webhookId = webhookId;
			}
			return recipe;
		};

		beforeAll(async () => {
			cluster.store.run(CLAIMS_TABLE);
			await cluster.main.importCredential({
				id: 'queuePostgres001',
				name: 'n8n database',
				type: 'postgres',
				data: { host: '127.0.0.1', port: cluster.services!.pgPort, database: 'n8n', user: 'n8n', password: '', ssl: 'disable' },
			});
			const recipe = recipeAs(IDS.trigger, TRIGGER_WEBHOOK_ID);
			// These tests sign events with bumped versions of a real order, which confirmation with the
			// API refuses by design (a version only the payload claims): they are about routing and
			// acknowledgement, so confirmation is off here.
			const trigger = recipe.nodes[0];
			trigger.parameters = { options: { ...((trigger.parameters as any).options ?? {}), confirmWithApi: false } };
			await cluster.main.importWorkflow(recipe);
			await cluster.main.publish(IDS.trigger);
			await cluster.waitForWebhook(TRIGGER_PATH);
		});

		test('publishing registers exactly one endpoint, at the public entry point', async () => {
			const endpoints = await waitFor('one endpoint', async () => {
				const live = await liveEndpoints();
				return live.length === 1 ? live : undefined;
			});
			expect(endpoints[0]).toMatchObject({ url: cluster.webhookUrl(TRIGGER_PATH), status: 'ENABLED', eventTypes: ['payment_order'] });
			// The webhook processes register nothing themselves: still one a while later.
			await sleep(4_000);
			expect(await liveEndpoints()).toHaveLength(1);
			expect(cluster.store.staticData(IDS.trigger)).toBeTruthy();
		});

		test("the recipe's claim as shipped: the first event of a state gets it, a retry of that event gets it again until the state is marked done (a crash between the step and the mark runs the step again), another event of the state never", () => {
			const recipe = JSON.parse(readFileSync(RECIPE, 'utf8')) as WorkflowInput;
			const queryOf = (name: string) => String((recipe.nodes.find((n) => n.name === name)!.parameters as { query: string }).query);
			const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;
			// n8n's Postgres node binds Query Parameters as $1, $2, $3: here as literals, in the statements exactly as shipped.
			const bind = (query: string, values: string[]) => values.reduce((q, v, i) => q.split(`$${i + 1}`).join(literal(v)), query);
			const state = `claim-test-${randomUUID()}:FUNDED`;
			const claim = (eventId: string) =>
				cluster.store.json<string[]>(
					`WITH c AS (${bind(queryOf('Claim the order state'), ['wf', state, eventId])}) SELECT coalesce(json_agg(key), '[]') FROM c`,
				);
			const markDone = () => cluster.store.run(bind(queryOf('Mark the order state done'), ['wf', state]));
			expect(claim('evt_a')).toEqual([`wf:${state}`]);
			expect(claim('evt_b')).toEqual([]);
			// evt_a's run failed after the business step (a worker crash before the done mark): the service retries evt_a.
			expect(claim('evt_a')).toEqual([`wf:${state}`]);
			markDone();
			expect(claim('evt_a')).toEqual([]);
			expect(claim('evt_b')).toEqual([]);
		});

		let attempt: { headers: Record<string, string>; body: string };

		test('signed sandbox deliveries pass nginx to the webhook process their event id hashes to, are verified and run on the workers', async () => {
			const from = cluster.proxy.log.length;
			const created = [await createOrder(11), await createOrder(12)];
			const got = await waitFor('two runs', () => {
				const matching = runs().filter((r) => created.some((o) => r.orderIds.includes(o.id)) && r.business.length > 0);
				return matching.length >= 2 ? matching : undefined;
			});
			const events = new Set(got.flatMap((r) => r.eventIds));
			// The execution is stored before the webhook process answers (it reads it back): wait for the answers.
			const routed = await waitFor('the answers', () => {
				const seen = cluster.proxy.log.slice(from).filter((r) => r.path.includes(TRIGGER_PATH) && events.has(r.eventId!));
				return [...events].every((id) => seen.some((r) => r.eventId === id && r.status === 200)) ? seen : undefined;
			});
			// Answered when the run had finished: 200 (409 to a retry that met a run still in flight on a
			// loaded machine), always by the one webhook process the event id hashes to.
			for (const id of events) {
				const copies = routed.filter((r) => r.eventId === id);
				expect(copies.map((r) => r.status)).toContain(200);
				for (const r of copies) expect([200, 409]).toContain(r.status);
				expect(new Set(copies.map((r) => r.backend))).toEqual(new Set([copies[0].backend]));
				expect(copies[0].backend).toBeGreaterThanOrEqual(0);
			}
			for (const r of got) {
				const execution = cluster.store.list(IDS.trigger).find((e) => e.id === r.id)!;
				expect(execution).toMatchObject({ mode: 'webhook', status: 'success' });
				// The recipe's business step ran on the claim of the order state the event was about.
				expect(nodeItems(execution.data, BUSINESS).map((o) => o.key)).toEqual(
					nodeItems(execution.data, TRIGGER).map((i) => `${IDS.trigger}:${String(i.orderStateKey)}`),
				);
				expect(cluster.workerOf(r.id)).toBeDefined();
			}
			const attempts = (await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[];
			attempt = attempts.find((a) => a.statusCode === 200 && JSON.parse(a.body).data.payment_order.id === created[0].id);
			expect(attempt).toBeDefined();
		});

		test('forged, unsigned and tampered deliveries are refused (401) by both webhook processes and run nothing', async () => {
			await settle();
			const before = cluster.store.list(IDS.trigger).length;
			const event = JSON.parse(attempt.body);
			event.id = `evt_${randomBytes(8).toString('hex')}_payment_order`;
			const forged = JSON.stringify(event);
			const t = Math.floor(Date.now() / 1000);
			const tampered = attempt.body.replace('"amountUsd":11', '"amountUsd":110000');
			expect(tampered).not.toBe(attempt.body);
			for (const w of cluster.webhooks) {
				const url = cluster.webhookUrlOn(w, TRIGGER_PATH);
				expect(
					(
						await deliverTo(url, forged, {
							...attempt.headers,
							'x-service-webhook-id': event.id,
							'x-service-webhook-signature': signatureHeader(`whsec_${randomBytes(32).toString('hex')}`, t, forged),
						})
					).status,
				).toBe(401);
				expect((await deliverTo(url, forged, { 'content-type': 'application/json' })).status).toBe(401);
				expect((await deliverTo(url, tampered, attempt.headers)).status).toBe(401);
			}
			await settle();
			expect(cluster.store.list(IDS.trigger)).toHaveLength(before);
		});

		test('a delivery whose acknowledgement was lost is retried by the sandbox to the same webhook process: dropped there, the business step ran once', async () => {
			await settle();
			const from = cluster.proxy.log.length;
			cluster.proxy.loseAnswers(1);
			const order = await createOrder(13);
			const first = await waitFor('the first attempt', () => cluster.proxy.log.slice(from).find((r) => r.path.includes(TRIGGER_PATH)));
			expect(first).toMatchObject({ status: 200, answered: 502 });
			const eventId = first.eventId!;
			// The sandbox retries (at least once delivery) until it gets a 2xx; flush makes it retry now.
			const routed = await waitFor('an acknowledged retry', async () => {
				const seen = cluster.proxy.log.slice(from).filter((r) => r.eventId === eventId);
				if (seen.slice(1).some((r) => r.answered === 200)) return seen;
				await stage.operator.call('POST', 'webhooks/flush');
				return undefined;
			});
			// Every attempt reached the same webhook process; a retry that met the run in flight got 409.
			expect(new Set(routed.map((r) => r.backend))).toEqual(new Set([first.backend]));
			for (const r of routed.slice(1)) expect([200, 409]).toContain(r.answered);
			await settle();
			const withEvent = runs().filter((r) => r.eventIds.includes(eventId));
			expect(withEvent).toHaveLength(1);
			expect(runs().filter((r) => r.business.includes(eventId))).toHaveLength(1);
			expect(withEvent[0].orderIds).toEqual([order.id]);
			console.log(
				`[queue dedupe] sandbox retry: ${routed.length} deliveries of ${eventId} (backends ${routed.map((r) => r.backend).join(',')}), ${withEvent.length} execution, business step ran once`,
			);
		});

		test('simultaneous copies of one event through nginx reach one webhook process: one run each, the copy is answered 409 or dropped', async () => {
			await settle();
			const orderId = JSON.parse(attempt.body).data.payment_order.id;
			const events = [];
			// Five order states (the recipe runs its business step once per order state, so one state each).
			const states = ['FUNDED', 'DISTRIBUTED', 'CANCELED', 'EXPIRED', 'REFUNDED'];
			for (let i = 0; i < 5; i++) events.push(await freshSignedEvent(orderId, 200 + i, states[i]));
			const from = cluster.proxy.log.length;
			for (const event of events) {
				const statuses = await Promise.all([0, 1].map(async () => (await deliverTo(cluster.webhookUrl(TRIGGER_PATH), event.body, event.headers)).status));
				// One copy ran (200 when its run ended); the other met it in flight (409) or done (200).
				expect(statuses).toContain(200);
				for (const status of statuses) expect([200, 409]).toContain(status);
			}
			await settle();
			for (const event of events) {
				const copies = cluster.proxy.log.slice(from).filter((r) => r.eventId === event.id);
				expect(copies).toHaveLength(2);
				expect(copies[0].backend).toBe(copies[1].backend);
				expect(runs().filter((r) => r.eventIds.includes(event.id))).toHaveLength(1);
				expect(runs().filter((r) => r.business.includes(event.id))).toHaveLength(1);
			}
		});

		test('orders funded while both webhook processes were down, then delivered across both (status and deposit events of one order on different processes, confirmed with the API): the recipe ran its business step once per order state, none lost', async () => {
			await settle();
			const webhookId = randomUUID();
			const path = `${webhookId}/webhook`;
			// The recipe as shipped, every trigger option at its default (confirmation with the API on).
			await cluster.main.importWorkflow(recipeAs(IDS.perState, webhookId));
			await cluster.main.publish(IDS.perState);
			await cluster.waitForWebhook(path);
			try {
				const endpoint = await waitFor('its endpoint', async () => (await liveEndpoints()).find((e) => e.url === cluster.webhookUrl(path)));
				const nginxFrom = cluster.nginx.log().length;
				// Deliveries lag (the service retries later): every event is read after its order was funded.
				await Promise.all(cluster.webhooks.map((w) => w.stop()));
				const created: any[] = [];
				try {
					for (let i = 0; i < 6; i++) created.push(await createOrder(30 + i));
					for (const o of created) await stage.operator.deposit(o.id, o.amountUsd);
					await waitFor('every order funded', async () => {
						const now = await Promise.all(created.map((o) => stage.operator.api('GET', `/payment-orders/${o.id}`)));
						return now.every((o: any) => o.status === 'FUNDED') || undefined;
					});
				} finally {
					await Promise.all(cluster.webhooks.map((w) => w.start()));
				}
				await cluster.waitForWebhook(path);
				await waitFor(
					'every delivery of these orders delivered',
					async () => {
						await stage.operator.call('POST', 'webhooks/flush');
						const deliveries = (await stage.operator.api('GET', `/webhooks/deliveries?endpointId=${endpoint.id}&limit=1000`)).deliveries as any[];
						return deliveries.every((d) => d.status === 'DELIVERED') || undefined;
					},
					240_000,
				);
				await settled(cluster, IDS.perState);

				const executions = cluster.store.list(IDS.perState).filter((e) => e.data.resultData.runData[TRIGGER]);
				const items = executions.map((e) => ({ e, item: nodeItems(e.data, TRIGGER)[0] as any }));
				const emittedPerOrder = countBy(items.map((i) => String(i.item.paymentOrder.id)));
				const stepsPerKey = countBy(
					items.filter(({ e }) => e.data.resultData.runData[BUSINESS] && e.status === 'success').map(({ item }) => String(item.orderStateKey)),
				);
				// Nothing lost: each order's funded state ran; nothing doubled: every state ran once.
				for (const o of created) expect(stepsPerKey[`${o.id}:FUNDED`]).toBe(1);
				for (const [key, runs] of Object.entries(stepsPerKey)) expect([key, runs]).toEqual([key, 1]);
				expect(executions.filter((e) => e.status !== 'success')).toEqual([]);
				// The events of one order reached both webhook processes (what the per-process filters cannot see).
				const routed = cluster.nginx
					.log()
					.slice(nginxFrom)
					.filter((r) => r.path.includes(webhookId) && r.backend >= 0 && r.status === 200);
				const split = created.filter((o) => {
					const eventsOf = new Set(
						executions
							.filter((e) => String((nodeItems(e.data, TRIGGER)[0] as any).paymentOrder.id) === o.id)
							.map((e) => String(nodeItems(e.data, TRIGGER)[0].eventId)),
					);
					return new Set(routed.filter((r) => eventsOf.has(r.eventId!)).map((r) => r.backend)).size > 1;
				}).length;
				const emitted = Object.values(emittedPerOrder).reduce((a, b) => a + b, 0);
				console.log(
					`[queue per state] ${created.length} orders funded while both webhook processes were down: the trigger emitted ${emitted} items (${JSON.stringify(Object.values(emittedPerOrder))} per order; ` +
						`${split} orders with runs on both processes), business step per order state ${JSON.stringify(Object.values(stepsPerKey))}: lost 0, doubled 0`,
				);
			} finally {
				await cluster.main.unpublish(IDS.perState).catch((error: Error) => console.warn(`[queue per state] unpublish: ${error.message}`));
			}
		});

		test('orders whose status and deposit events interleave across both webhook processes in normal traffic (two deposits each at once): the recipe ran its business step once per order state, none lost', async () => {
			await settle();
			const webhookId = randomUUID();
			const path = `${webhookId}/webhook`;
			// The recipe as shipped, every trigger option at its default (confirmation with the API on).
			await cluster.main.importWorkflow(recipeAs(IDS.interleaved, webhookId));
			await cluster.main.publish(IDS.interleaved);
			await cluster.waitForWebhook(path);
			try {
				const endpoint = await waitFor('its endpoint', async () => (await liveEndpoints()).find((e) => e.url === cluster.webhookUrl(path)));
				const deliveries = async () => (await stage.operator.api('GET', `/webhooks/deliveries?endpointId=${endpoint.id}&limit=1000`)).deliveries as any[];
				const nginxFrom = cluster.nginx.log().length;
				const created: any[] = [];
				for (let i = 0; i < 6; i++) created.push(await createOrder(60 + i));
				// Each order's creation event has run before its deposits: its AWAITING_FUNDS state is read as such
				// (with confirmation, an event read later reports the order as it is then).
				await waitFor('the creation events delivered', async () => {
					const log = await deliveries();
					return (log.length >= created.length && log.every((d) => d.status === 'DELIVERED')) || undefined;
				});
				// Then, with both webhook processes up and no delivery held back, two deposits per order at once: each
				// deposit's steps (confirmed on-chain, confirmed: the first a deposit event, the second the FUNDED
				// change, seconds apart at most), as the service sends them, over both processes. With confirmation a
				// deposit event read after the order was funded reports it FUNDED too.
				await Promise.all(
					created.map(async (o) => {
						const half = Math.round(o.amountUsd * 50) / 100;
						await stage.operator.deposit(o.id, half);
						await stage.operator.deposit(o.id, Math.round((o.amountUsd - half) * 100) / 100);
					}),
				);
				await waitFor(
					'every order funded',
					async () => {
						const now = await Promise.all(created.map((o) => stage.operator.api('GET', `/payment-orders/${o.id}`)));
						return now.every((o: any) => o.status === 'FUNDED') || undefined;
					},
					180_000,
				);
				// Every delivery delivered (a 409 is retried by the service; flush makes its next attempt now).
				await waitFor(
					'every delivery of these orders delivered',
					async () => {
						await stage.operator.call('POST', 'webhooks/flush');
						return (await deliveries()).every((d) => d.status === 'DELIVERED') || undefined;
					},
					240_000,
				);
				await settled(cluster, IDS.interleaved);

				const log = await deliveries();
				// The events per order, from what the service sent (each event once, whatever its attempts).
				const attempts = ((await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[]).filter((a) => a.url === cluster.webhookUrl(path));
				const orderOf = new Map(attempts.map((a) => [a.headers['x-service-webhook-id'], String(JSON.parse(a.body).data.payment_order.id)]));
				const eventsPerOrder = countBy([...orderOf.values()]);
				const executions = cluster.store.list(IDS.interleaved).filter((e) => e.data.resultData.runData[TRIGGER]);
				const items = executions.map((e) => ({ e, item: nodeItems(e.data, TRIGGER)[0] as any }));
				const stepsPerKey = countBy(
					items.filter(({ e }) => e.data.resultData.runData[BUSINESS] && e.status === 'success').map(({ item }) => String(item.orderStateKey)),
				);
				// Nothing lost: each order's two states ran; nothing doubled: every state ran once.
				for (const o of created) {
					expect([o.id, stepsPerKey[`${o.id}:AWAITING_FUNDS`], stepsPerKey[`${o.id}:FUNDED`]]).toEqual([o.id, 1, 1]);
				}
				for (const [key, runs] of Object.entries(stepsPerKey)) expect([key, runs]).toEqual([key, 1]);
				expect(executions.filter((e) => e.status !== 'success')).toEqual([]);
				// The events of one order reached both webhook processes, during the deposits.
				const routed = cluster.nginx
					.log()
					.slice(nginxFrom)
					.filter((r) => r.path.includes(webhookId) && r.backend >= 0);
				const acrossBoth = created.filter((o) => new Set(routed.filter((r) => orderOf.get(r.eventId) === o.id).map((r) => r.backend)).size > 1).length;
				expect(acrossBoth).toBeGreaterThan(0);
				const emittedFunded = items.filter(({ item }) => item.orderStateKey.endsWith(':FUNDED'));
				const split = created.filter((o) => {
					const funded = emittedFunded.filter(({ item }) => item.paymentOrder.id === o.id).map(({ item }) => String(item.eventId));
					return new Set(routed.filter((r) => funded.includes(r.eventId!)).map((r) => r.backend)).size > 1;
				}).length;
				console.log(
					`[queue interleaved] ${created.length} orders, ${orderOf.size} events (${JSON.stringify(Object.values(eventsPerOrder))} per order; ${acrossBoth} orders with events on both processes), ${log.length} deliveries, ${routed.length} requests through nginx ` +
						`(answers ${JSON.stringify(countBy(routed.map((r) => r.status)))}, per process ${[0, 1].map((b) => routed.filter((r) => r.backend === b).length).join('/')}); ` +
						`the trigger emitted ${items.length} items, ${emittedFunded.length} of them FUNDED (${split} orders with a FUNDED item on each process); ` +
						`business step per order state ${JSON.stringify(countBy(Object.values(stepsPerKey)))}: lost 0, doubled 0`,
				);
			} finally {
				await cluster.main.unpublish(IDS.interleaved).catch((error: Error) => console.warn(`[queue interleaved] unpublish: ${error.message}`));
			}
		});

		test(`stress (${STRESS_EVENTS} events, 30% delivered again, 10% failing on the first attempt), acknowledging when finished: none lost, none run twice`, async () => {
			const receiver = await new BusinessReceiver().start(await freePort());
			try {
				const webhookId = randomUUID();
				await cluster.main.importWorkflow(
					stressWorkflow(IDS.stress, webhookId, 'whenFinished', receiver.url, {
						id: sandboxCredential(stage.sandbox).id,
						name: sandboxCredential(stage.sandbox).name,
					}),
				);
				await cluster.main.publish(IDS.stress);
				await cluster.waitForWebhook(`${webhookId}/webhook`);
				const secret = await waitFor("the stress trigger's secret", () => {
					try {
						return stressSecret(cluster, IDS.stress, stage.sandbox.apiKey);
					} catch {
						return undefined;
					}
				});
				const from = cluster.nginx.log().length;
				const figures = await runStress(cluster, IDS.stress, receiver, {
					url: `${cluster.nginx.url}/webhook/${webhookId}/webhook`,
					secret,
					events: STRESS_EVENTS,
					repeatShare: 0.3,
					failShare: 0.1,
					concurrency: 10,
				});
				const routed = cluster.nginx
					.log()
					.slice(from)
					.filter((r) => r.path.includes(webhookId));
				const perBackend = [0, 1].map((b) => routed.filter((r) => r.backend === b).length);
				console.log(`[queue stress] ${JSON.stringify({ ...figures, perBackend })}`);
				// Both webhook processes took deliveries (40 random event ids on one process: 2^-39).
				expect(perBackend.every((n) => n > 0)).toBe(true);
				// Every copy of an event went to one process.
				for (const id of new Set(routed.map((r) => r.eventId))) expect(new Set(routed.filter((r) => r.eventId === id).map((r) => r.backend)).size).toBe(1);
				expect(figures.failingFirst).toBeGreaterThan(0);
				// Each failed first run was answered non-2xx (500, or to a caller that had hung up) and retried.
				expect(figures.retriedAfterFailure).toBe(figures.failingFirst);
				expect(figures.undelivered).toBe(0);
				expect({ lost: figures.lost, doubled: figures.doubled, lostInN8n: figures.lostInN8n, doubledInN8n: figures.doubledInN8n }).toEqual({
					lost: 0,
					doubled: 0,
					lostInN8n: 0,
					doubledInN8n: 0,
				});
			} finally {
				await receiver.close();
				// Its endpoint would otherwise get every later order's event, and its business step a closed receiver.
				await cluster.main.unpublish(IDS.stress).catch((error: Error) => console.warn(`[queue stress] unpublish: ${error.message}`));
			}
		});

		/**
		 * No event lost while n8n is down, in queue mode: the main process and both webhook processes stopped (workers,
		 * PostgreSQL, Redis and nginx stay up), 30 events meanwhile, then everything started again.
		 * The queue suite's sandbox keeps the service's own timing (timeScale 1: the 10 s attempt
		 * timeout matters to the tests above), so the half-day retry schedule is run through with the
		 * operator's flush, which makes every pending delivery's next attempt now: a compressed time
		 * scale would also compress the retries of a replay whose run outlasts 10 s into a burst of
		 * 409s, ending it FAILED while its run goes on. The sandbox clock is not moved (orders expire by it).
		 * The recovery is n8n's own start: the trigger has a trigger(), so the main process re-activates
		 * it (docs/trigger.md) and its checkExists re-enables and catches up. Example 6 (the scheduled
		 * Recover) is published for the second restart: it runs on a worker beside that, and finds nothing.
		 */
		describe('an outage of the main and webhook processes', () => {
			const ON_ITS_WAY = new Set(['PENDING', 'DISPATCHED']);
			const REPLAY_PATH = /^\/api\/v1\/webhooks\/deliveries\/([^/]+)\/replay$/;
			let endpointId = '';
			let healthPublished = false;
			/** The endpoint's events before the last outage (all delivered): count() is about the events after. */
			let eventsBefore = new Set<string>();

			const endpoint = () => stage.operator.api('GET', `/webhooks/endpoints/${endpointId}`);
			const endpointDeliveries = async (): Promise<any[]> =>
				(await stage.operator.api('GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=1000`)).deliveries;
			const envelope = (d: any) => `evt_${d.eventId}_payment_order`;
			const deliveriesSettled = async () => (await endpointDeliveries()).every((d) => !ON_ITS_WAY.has(d.status));
			/** Successful business steps per event id, counted in n8n's executions (PostgreSQL). */
			const businessRuns = () => {
				const counts = new Map<string, number>();
				for (const r of runs()) for (const id of r.business) counts.set(id, (counts.get(id) ?? 0) + 1);
				return counts;
			};
			/**
			 * The endpoint's delivery log against n8n's executions. events and lost: the events since the
			 * last outage began, lost when its business step never succeeded; doubled: every event in the
			 * log whose business step succeeded more than once.
			 */
			const count = async () => {
				const events = [...new Set((await endpointDeliveries()).map(envelope))];
				const business = businessRuns();
				const since = events.filter((id) => !eventsBefore.has(id));
				return {
					events: since.length,
					lost: since.filter((id) => !business.has(id)).length,
					doubled: events.filter((id) => (business.get(id) ?? 0) > 1).length,
				};
			};
			const healthRuns = () => cluster.main.finishedExecutions(IDS.health);
			const recoverItems = (e: ExecutionRecord) =>
				(e.data.resultData.runData.Recover ? nodeItems(e.data, 'Recover') : []).filter((i) => i.endpointId === endpointId);
			const outbox = async () => ((await stage.operator.call('GET', 'outbox?channel=trigger-health')).messages as any[]).map((m) => m.body);
			/** What the service was asked since a mark: re-enables of the endpoint, and replays (of any delivery). */
			const requestsSince = async (mark: number) => {
				const all = await stage.operator.requests(mark);
				return {
					// (The recovery lease's PATCHes of the description are not re-enables.)
					reEnables: all.filter((r) => r.method === 'PATCH' && r.path === `/api/v1/webhooks/endpoints/${endpointId}` && r.body?.status !== undefined),
					replays: all.filter((r) => r.method === 'POST' && REPLAY_PATH.test(r.path)),
				};
			};
			/** Stops the webhook processes and the main process; workers, PostgreSQL, Redis, nginx and the front door stay up. */
			const stopFront = async () => {
				await Promise.all(cluster.webhooks.map((w) => w.stop()));
				await cluster.main.stop();
			};
			/** The webhook processes first (two at a time, as at boot), then the main process, which fires the schedules. */
			const startFront = async () => {
				await Promise.all(cluster.webhooks.map((w) => w.start()));
				await cluster.main.start({ timeoutMs: 300_000 });
				await cluster.waitForWebhook(TRIGGER_PATH);
			};
			/** Makes every pending delivery's next attempt now (the operator's flush) until none of this endpoint's is pending. */
			const exhaustRetries = async () => {
				for (let flushes = 0; flushes < 80; flushes++) {
					if (await deliveriesSettled()) return flushes;
					await stage.operator.call('POST', 'webhooks/flush');
				}
				throw new Error(`deliveries still pending after 80 flushes\n${await diagnosis()}`);
			};
			/** Waits until every event so far was delivered and its run ended; they are then what count() leaves out. */
			const allDelivered = async () => {
				await waitFor('every delivery settled', deliveriesSettled, 180_000);
				await settle();
				const log = await endpointDeliveries();
				eventsBefore = new Set(log.map(envelope));
				expect([...eventsBefore].filter((id) => !log.some((d) => envelope(d) === id && d.status === 'DELIVERED'))).toEqual([]);
			};
			/**
			 * With the main and webhook processes stopped: 15 orders whose deliveries exhaust their retries
			 * (FAILED; the 10th failure disables the endpoint), then 15 more, SKIPPED at once.
			 */
			const outageEvents = async () => {
				for (let i = 0; i < 15; i++) await createOrder(20 + i);
				const flushes = await exhaustRetries();
				expect((await endpoint()).status).toBe('DISABLED');
				for (let i = 0; i < 15; i++) await createOrder(40 + i);
				await waitFor('every delivery settled', deliveriesSettled);
				const deliveries = (await endpointDeliveries()).filter((d) => !eventsBefore.has(envelope(d)));
				const ids = new Set(deliveries.map(envelope));
				const failed = deliveries.filter((d) => d.status === 'FAILED').length;
				const skipped = deliveries.filter((d) => d.status === 'SKIPPED').length;
				expect(ids.size).toBe(30);
				expect(deliveries).toHaveLength(30);
				expect(failed).toBeGreaterThanOrEqual(10);
				expect(skipped).toBeGreaterThanOrEqual(1);
				expect(failed + skipped).toBe(30);
				expect(await count()).toEqual({ events: 30, lost: 30, doubled: 0 });
				return { deliveries, ids, failed, skipped, flushes };
			};
			/**
			 * After the restart and the recovery: every outage event's business step ran exactly once, the
			 * endpoint is ENABLED, the service got one re-enable and one replay per outage event, and the
			 * replays reached the webhook process each event hashes to through nginx, answered 200 there.
			 */
			const recoveredOnce = async (outage: Awaited<ReturnType<typeof outageEvents>>, mark: number, nginxFrom: number) => {
				await waitFor('30 business steps', () => [...outage.ids].every((id) => businessRuns().has(id)) || undefined, 240_000);
				// A run outlasting the service's 10 s is retried: answered 409 while in flight, 200 after.
				await waitFor('every delivery settled', deliveriesSettled, 180_000);
				await settle();
				expect((await endpoint()).status).toBe('ENABLED');
				expect([...outage.ids].map((id) => businessRuns().get(id))).toEqual([...outage.ids].map(() => 1));
				expect(await count()).toEqual({ events: 30, lost: 0, doubled: 0 });

				const { reEnables, replays } = await requestsSince(mark);
				expect(reEnables.map((r) => [r.body, r.status])).toEqual([[{ status: 'ENABLED' }, 200]]);
				const eventOf = new Map(outage.deliveries.map((d) => [d.id as string, envelope(d)]));
				expect(replays.map((r) => eventOf.get(REPLAY_PATH.exec(r.path)![1]) ?? `not an outage delivery: ${r.path}`).sort()).toEqual([...outage.ids].sort());

				const routed = cluster.nginx
					.log()
					.slice(nginxFrom)
					.filter((r) => outage.ids.has(r.eventId!));
				// Right after the restart nginx still holds both processes as failed (the outage's 502s): it lets one
				// request through to each, and answers the others 502 itself, without a process (backend -1), until
				// one succeeds, which under When Finished takes a whole run. The service retries those.
				const refusedByNginx = routed.filter((r) => r.backend < 0);
				for (const r of refusedByNginx) expect(r.status).toBe(502);
				// While one process is still out of nginx's books (its trial request not finished), the
				// consistent hash sends that process's events to the other one (nginx's documented fallback):
				// such an event can meet both processes, and the business step's claim keeps it once (above).
				// Once both have answered (a 502 is nginx failing to reach one), every copy of an event reaches one
				// process: that is the hash's claim.
				const answeredBy = (b: number) => Math.min(...routed.filter((r) => r.backend === b && r.status !== 502).map((r) => r.endedMs));
				// Both processes answered something other than 502 (else bothIn would be Infinity and the check below vacuous).
				expect([answeredBy(0), answeredBy(1)].every(Number.isFinite)).toBe(true);
				const bothIn = Math.max(answeredBy(0), answeredBy(1));
				let moved = 0;
				for (const id of outage.ids) {
					const copies = routed.filter((r) => r.eventId === id && r.backend >= 0);
					expect(copies.map((r) => r.status)).toContain(200);
					expect(new Set(copies.filter((r) => r.startedMs > bothIn).map((r) => r.backend)).size).toBeLessThanOrEqual(1);
					if (new Set(copies.map((r) => r.backend)).size > 1) moved++;
				}
				const perBackend = [0, 1].map((b) => new Set(routed.filter((r) => r.backend === b).map((r) => r.eventId)).size);
				// 30 random event ids all hashing to one process: 2^-29.
				expect(perBackend.every((n) => n > 0)).toBe(true);
				return (
					`${replays.length} replays through nginx: ${routed.length} requests (${refusedByNginx.length} answered 502 by nginx itself, no process up in its books yet), ` +
					`events per webhook process ${perBackend.join('/')}, ${moved} events met both processes while one was not yet back in nginx's books, ` +
					`answers ${JSON.stringify(countBy(routed.map((r) => r.status)))}`
				);
			};
			/** A new event after the recovery runs once; nothing of the outage ran twice meanwhile. */
			const newEventRunsOnce = async () => {
				const order = await createOrder(90);
				await waitFor('the event after the recovery', () => runs().some((r) => r.orderIds.includes(order.id) && r.business.length > 0) || undefined);
				await waitFor('every delivery settled', deliveriesSettled);
				await settle();
				expect(runs().filter((r) => r.orderIds.includes(order.id) && r.business.length > 0)).toHaveLength(1);
				expect(await count()).toEqual({ events: 31, lost: 0, doubled: 0 });
			};

			let recoverNowPublished = false;
			afterAll(async () => {
				if (healthPublished) await cluster.main.unpublish(IDS.health);
				if (recoverNowPublished) await cluster.main.unpublish(IDS.recoverNow);
			});

			/** The trigger's record of its last recovery (static data, written by checkExists or trigger() on the main process). */
			const lastRecovery = (): Record<string, any> | undefined =>
				Object.values(cluster.store.staticData(IDS.trigger) ?? {}).find((node: any) => node?.lastRecovery)?.lastRecovery;
			/** Example 6 as shipped but for its schedule (every 20 s, not 15 min), with this sandbox's outbox. */
			const importHealth = async () => {
				const health = withOutbox(loadExample('6-keep-my-trigger-healthy.json'), stage.sandbox.mainUrl);
				health.id = IDS.health;
				const schedule = findNode(health, 'Every 15 minutes');
				expect(schedule.parameters).toEqual({ rule: { interval: [{ field: 'minutes', minutesInterval: 15 }] } });
				schedule.parameters = { rule: { interval: [{ field: 'seconds', secondsInterval: 20 }] } };
				await cluster.main.importWorkflow(health);
			};

			test('30 events while they are down (FAILED, endpoint auto-disabled, SKIPPED); restarted with no recovery workflow, the main process recovers once at its start: each event ran once, replayed through nginx; ENABLED; a new event runs once', async () => {
				const live = await liveEndpoints();
				const mine = live.find((e) => e.url === cluster.webhookUrl(TRIGGER_PATH));
				expect(mine).toBeDefined();
				endpointId = mine.id;
				// This endpoint alone (the stress workflow, when it ran, was unpublished; an endpoint its
				// unpublishing has not deleted yet goes now).
				for (const e of live) if (e.id !== endpointId) await stage.operator.api('DELETE', `/webhooks/endpoints/${e.id}`);
				const first = await createOrder(5);
				await waitFor('the event before the outage', () => runs().some((r) => r.orderIds.includes(first.id) && r.business.length > 0) || undefined);
				await allDelivered();

				await stopFront();
				const outage = await outageEvents();
				const mark = await stage.operator.mark();
				const nginxFrom = cluster.nginx.log().length;
				const executionsBefore = maxExecutionId();
				const started = Date.now();
				await startFront();
				// Nothing but n8n's own start: it re-activates the trigger (it has a trigger()), and the
				// main process's checkExists re-enables the endpoint and replays what it missed.
				const record = await waitFor('the recovery at start', () => {
					const r = lastRecovery();
					return r && Date.parse(r.at) >= started - 1000 && (r.replayed > 0 || r.error) ? r : undefined;
				});
				expect(record).toMatchObject({ replayed: 30, eventsMissed: 30, more: false, replayErrors: 0 });
				const routing = await recoveredOnce(outage, mark, nginxFrom);
				const seconds = (Date.now() - started) / 1000;
				// No workflow did it: since the restart only the trigger's workflow ran.
				expect(cluster.store.list().filter((e) => e.id > executionsBefore && e.workflowId !== IDS.trigger)).toEqual([]);

				await newEventRunsOnce();
				console.log(
					`[queue outage] 30 events while the main and webhook processes were down (${outage.flushes} flushes): ${outage.failed} FAILED, ${outage.skipped} SKIPPED; ` +
						`recovered by the main process at its start (${record.by === 'trigger' ? "trigger()'s fallback" : 'checkExists'}, no workflow): 1 re-enable, ${routing}; ` +
						`${seconds.toFixed(0)} s from the restart to every run ended; then a new event; lost 0, doubled 0 of 31 (and of the ${eventsBefore.size} before)`,
				);
			});

			test('a restart of the main and webhook processes where nothing was lost, with example 6 published too: the recovery at start and example 6 on a worker replay nothing, no event runs twice', async () => {
				await importHealth();
				await cluster.main.publish(IDS.health);
				healthPublished = true;
				await waitFor('every delivery settled', deliveriesSettled);
				await settle();
				const totals = await count();
				expect(totals).toEqual({ events: 31, lost: 0, doubled: 0 });
				const executions = cluster.store.list(IDS.trigger).length;
				const mark = await stage.operator.mark();

				await stopFront();
				// The main process is down, so no schedule fires: let a run queued before the stop end.
				await settled(cluster, IDS.health);
				const healthBefore = Math.max(0, ...cluster.store.list(IDS.health).map((e) => e.id));
				const started = Date.now();
				await startFront();
				const record = await waitFor('the recovery at start', () => {
					const r = lastRecovery();
					return r && Date.parse(r.at) >= started - 1000 ? r : undefined;
				});
				expect(record).toMatchObject({ replayed: 0, eventsMissed: 0 });
				const next = await waitFor('a run of example 6 after the restart', () => healthRuns().find((e) => e.id > healthBefore), 180_000);
				expect(recoverItems(next)).toEqual([expect.objectContaining({ statusBefore: 'ENABLED', reEnabled: false, eventsMissed: 0, replayed: 0 })]);
				expect(cluster.workerOf(next.id)).toBeDefined();
				await sleep(3_000);
				await settle();
				expect(await requestsSince(mark)).toEqual({ reEnables: [], replays: [] });
				expect(cluster.store.list(IDS.trigger)).toHaveLength(executions);
				expect(await count()).toEqual(totals);
				// Example 6 reports only when something was done.
				expect(await outbox()).toEqual([]);
				console.log(
					`[queue outage] restart with nothing lost: recovery at start replayed 0, example 6 run ${next.id} replayed 0; ${totals.events} events, lost 0, doubled 0`,
				);
			});

			test("Recover (example 6 on a worker) beside the main process's catch-up at its start after an outage: one replay per missed event, Recover finds the catch-up's lease", async () => {
				// Example 6 as shipped but started by a webhook instead of its schedule: its Recover runs on a
				// worker at the moment this test picks (the schedule of the test before is unpublished).
				if (healthPublished) await cluster.main.unpublish(IDS.health);
				healthPublished = false;
				const recoverPath = `queue-recover-${run}`;
				const recoverNow = JSON.parse(
					JSON.stringify(loadExample('6-keep-my-trigger-healthy.json')).split('http://127.0.0.1:4010').join(stage.sandbox.mainUrl.replace(/\/+$/, '')),
				) as WorkflowInput;
				recoverNow.id = IDS.recoverNow;
				const schedule = findNode(recoverNow, 'Every 15 minutes');
				Object.assign(schedule, { ...webhookNode(recoverPath), name: schedule.name });
				expect(findNode(recoverNow, 'Recover').parameters).toMatchObject({ operation: 'recover', scope: 'thisN8n' });
				await cluster.main.importWorkflow(recoverNow);
				await cluster.main.publish(IDS.recoverNow);
				recoverNowPublished = true;
				await cluster.waitForWebhook(recoverPath);

				const live = await liveEndpoints();
				endpointId = String(live.find((e) => e.url === cluster.webhookUrl(TRIGGER_PATH))?.id ?? '');
				expect(endpointId).toBeTruthy();
				for (const e of live) if (e.id !== endpointId) await stage.operator.api('DELETE', `/webhooks/endpoints/${e.id}`);
				await allDelivered();

				await stopFront();
				const outage = await outageEvents();
				const mark = await stage.operator.mark();
				const nginxFrom = cluster.nginx.log().length;
				// Each replay takes 2 s at the service: the catch-up's 30 replays last a minute, which Recover runs inside.
				await stage.operator.fault({ method: 'POST', path: '^/api/v1/webhooks/deliveries/[^/]+/replay$', count: 1000, delayMs: 2_000 });
				const started = Date.now();
				const front = startFront();
				let recoverRun: ExecutionRecord | undefined;
				try {
					// The catch-up (main process, at its start) re-enabled the endpoint and took its lease.
					await waitFor(
						"the catch-up's lease",
						async () => /\[recovering [0-9a-f]+ until [^\]]+\]$/.test(String((await endpoint()).description ?? '')) || undefined,
						300_000,
					);
					const before = maxExecutionId();
					// Right after the restart nginx may still answer 502 itself (no process reached) for a moment.
					await waitFor('Recover started', async () => (await post(recoverPath, {}).catch(() => 0)) === 200 || undefined);
					[recoverRun] = await finishedAfter(IDS.recoverNow, before, 1, 240_000);
					await front;
				} finally {
					await front.catch(() => undefined);
					await stage.operator.clearFaults();
				}
				const record = await waitFor('the recovery at start', () => {
					const r = lastRecovery();
					return r && Date.parse(r.at) >= started - 1000 && (r.replayed > 0 || r.error) ? r : undefined;
				});
				expect(record).toMatchObject({ replayed: 30, eventsMissed: 30, more: false, replayErrors: 0 });
				// Recover ran on a worker while events were still missing, found the lease held and replayed nothing.
				expect(cluster.workerOf(recoverRun!.id)).toBeDefined();
				const [recovered] = recoverItems(recoverRun!);
				expect(recovered).toMatchObject({ statusBefore: 'ENABLED', reEnabled: false, replayed: 0, busy: expect.stringContaining('another recovery') });
				expect(recovered.eventsMissed).toBeGreaterThan(0);
				// One re-enable, one replay per missed event, each event's business step once (recoveredOnce).
				const routing = await recoveredOnce(outage, mark, nginxFrom);
				await newEventRunsOnce();
				console.log(
					`[queue outage] catch-up and Recover at once: the catch-up replayed ${record.replayed} of ${record.eventsMissed} missed; Recover (execution ${recoverRun!.id}, on a worker) ` +
						`saw ${recovered.eventsMissed} still missing and the lease held, replayed 0; ${routing}; lost 0, doubled 0`,
				);
			});
		});
	});
});
