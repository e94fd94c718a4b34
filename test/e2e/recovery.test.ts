/**
 * What a person does after a payout went wrong, in a real n8n 2.40.7 against the sandbox:
 * (a) the answer of a committed order is lost on every try (a proxy between n8n and the sandbox
 * forwards the POST, lets the sandbox commit, then drops the connection): the error says the service
 * may have the order and that only Retry is safe, and Retry makes no second order; (b) n8n is killed
 * (SIGKILL) in the middle of a batch of 20 with Business Keys, and Example 5 (Recover a crashed batch)
 * pays exactly the missing ones; (c) Example 1 run twice on the same day after one of its orders was
 * funded: nothing new, and the funded order is not listed under "fund these"; (d) the answers of a
 * node's first execute() are lost and Settings → Retry On Fail runs it again: the second try gets the
 * order the first one made, `created: true` and `replayed: true` (Derived and Business Key). One n8n
 * for the file; every check counts the orders in the sandbox.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { findNode, loadExample, withOutbox } from '../../harness/examples';
import { nodeItems } from '../../harness/executions';
import { N8nInstance, sleep, type WorkflowInput } from '../../harness/n8nProcess';
import { N8nRest } from '../../harness/n8nRest';
import { freePort } from '../../harness/ports';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { action, graph } from '../../harness/workflows';

jest.setTimeout(300_000);

/**
 * An HTTP proxy in front of the sandbox's main API. While `dropPayments` is on, a POST /payment is
 * forwarded and answered by the sandbox (the order is committed), and then the connection to n8n is
 * destroyed instead of passing the answer on: the answer is lost, every time. With `dropFirstPerKey`
 * = N, only the first N answers for each idempotency key are lost, and later ones pass.
 */
class LossyProxy {
	dropPayments = false;
	dropFirstPerKey = 0;
	dropped = 0;
	private readonly seen = new Map<string, number>();
	private constructor(
		private readonly server: Server,
		readonly url: string,
	) {}

	static async start(upstream: string): Promise<LossyProxy> {
		const self: { proxy?: LossyProxy } = {};
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', async () => {
				const headers: Record<string, string> = {};
				for (const [name, value] of Object.entries(req.headers)) {
					if (typeof value === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
				}
				const body = Buffer.concat(chunks);
				try {
					const answer = await fetch(upstream + req.url, { method: req.method, headers, body: body.length > 0 ? body : undefined });
					const payload = Buffer.from(await answer.arrayBuffer());
					if (req.method === 'POST' && req.url!.split('?')[0] === '/api/v1/payment' && self.proxy!.drops(body)) {
						self.proxy!.dropped++;
						req.socket.destroy();
						return;
					}
					// The sandbox's mark passes: the credential says Local Sandbox (see lossyCredential).
					const sandbox = answer.headers.get('x-clearinghouse-sandbox');
					res.writeHead(answer.status, {
						'content-type': answer.headers.get('content-type') ?? 'application/json',
						...(sandbox ? { 'x-clearinghouse-sandbox': sandbox } : {}),
					});
					res.end(payload);
				} catch {
					req.socket.destroy();
				}
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		self.proxy = new LossyProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
		return self.proxy;
	}

	/** Whether to lose the answer of this POST /payment (counted per idempotency key). */
	private drops(body: Buffer): boolean {
		if (this.dropPayments) return true;
		const key = String((JSON.parse(body.toString('utf8')) as { idempotencyKey?: unknown }).idempotencyKey);
		const seen = this.seen.get(key) ?? 0;
		this.seen.set(key, seen + 1);
		return seen < this.dropFirstPerKey;
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}
}

describe('recovering from lost answers, crashes and re-runs, in a real n8n', () => {
	let stage: SandboxStage;
	let proxy: LossyProxy;
	let n8n: N8nInstance;
	let rest: N8nRest;
	const run = randomBytes(3).toString('hex');
	const lossyCredential = { id: 'chLossyProxy0001', name: 'Clearinghouse through a lossy proxy' };
	const lossyPath = `lossy-${run}`;
	const retryPath = `lossy-retry-${run}`;
	let batch: WorkflowInput;
	let recover: WorkflowInput;
	let example1: WorkflowInput;

	/** The sandbox's orders whose memo starts with `prefix`, counted by memo. */
	const orders = (prefix: string) => stage.operator.ordersByMemo(prefix);
	const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
	const paymentPosts = (since: number) => stage.operator.paymentPosts(since);
	const outbox = async (channel: string) => ((await stage.operator.call('GET', `outbox?channel=${channel}`)).messages as any[]).map((m) => m.body);
	/** An example as shipped, its Where messages go set to this test's sandbox (not the default port 4010). */
	const shipped = (file: string): WorkflowInput => withOutbox(loadExample(file), stage.sandbox.mainUrl);

	/** The payee list of Examples 1 and 5 replaced by `rows`, as a user edits it: the Payees node's JSON. */
	function withPayees(workflow: WorkflowInput, id: string, rows: Array<Record<string, string>>): WorkflowInput {
		const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowInput;
		copy.id = id;
		copy.name = `${workflow.name} (${id})`;
		(findNode(copy, 'Payees').parameters as { jsonOutput: string }).jsonOutput = JSON.stringify({ payees: rows }, null, 2);
		return copy;
	}

	beforeAll(async () => {
		stage = await startSandboxStage({ timeScale: 1 });
		proxy = await LossyProxy.start(stage.sandbox.mainUrl.replace(/\/+$/, ''));
		const { alice, bobEth } = stage;

		// (a) Webhook → Pay one item (Derived key), through the lossy proxy.
		const lossy = graph(
			'recoverLossy00001',
			'lossy answers',
			[
				{
					name: 'Hook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: lossyPath, options: {} },
				},
				action('Pay', 'paymentOrder', 'create', {
					mode: 'standard',
					fromUserId: alice.id,
					toAddress: bobEth,
					toChain: 'ethereum',
					asset: 'USDC',
					amountUsd: '={{ $json.body.amount }}',
					memo: '={{ $json.body.memo }}',
					idempotencyKeyMode: 'derived',
					expiry: 'inMinutes',
					expiresInMinutes: 60,
					options: {},
				}),
			],
			[['Hook', 'Pay']],
			lossyCredential,
		);

		// (d) Webhook → Pay (Derived) → Pay (Business Key), both with Retry On Fail,
		// through the lossy proxy.
		const payParams = (memo: string, key: Record<string, unknown>) => ({
			...key,
			mode: 'standard',
			fromUserId: alice.id,
			toAddress: bobEth,
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: "={{ $('Hook').item.json.body.amount }}",
			memo,
			expiry: 'inMinutes',
			expiresInMinutes: 60,
			options: {},
		});
		const retryOnFail = { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 };
		const lossyRetry = graph(
			'recoverLossyRetry',
			'lossy answers, Retry On Fail',
			[
				{
					name: 'Hook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: retryPath, options: {} },
				},
				action(
					'Pay (Derived)',
					'paymentOrder',
					'create',
					payParams("={{ $('Hook').item.json.body.memo + '-derived' }}", { idempotencyKeyMode: 'derived' }),
					retryOnFail,
				),
				action(
					'Pay (Business Key)',
					'paymentOrder',
					'create',
					payParams("={{ $('Hook').item.json.body.memo + '-business' }}", {
						idempotencyKeyMode: 'custom',
						idempotencyKey: "={{ $('Hook').item.json.body.memo + '-business' }}",
					}),
					retryOnFail,
				),
			],
			[
				['Hook', 'Pay (Derived)'],
				['Pay (Derived)', 'Pay (Business Key)'],
			],
			lossyCredential,
		);

		// (b) Example 1 and Example 5 over the same 20 payees.
		const payees = Array.from({ length: 20 }, (_, n) => ({
			payee: `Bob #${n + 1}`,
			chain: 'ethereum',
			address: bobEth,
			asset: 'USDC',
			amountUsd: `${n + 1}.25`,
			reference: `CR-${run}-${String(n + 1).padStart(2, '0')}`,
		}));
		batch = withPayees(shipped('1-scheduled-batch-payouts.json'), 'recoverBatch00001', payees);
		recover = withPayees(shipped('5-recover-a-crashed-batch.json'), 'recoverFix000001', payees);
		example1 = shipped('1-scheduled-batch-payouts.json');

		n8n = await N8nInstance.create();
		await n8n.importCredential(sandboxCredential(stage.sandbox), {
			...sandboxCredential(stage.sandbox, lossyCredential.id, lossyCredential.name),
			// Local Sandbox: this file measures lost answers and Retry with Derived keys, which a Production
			// credential now refuses in webhook runs before sending (test/nodes/action/guarantees/redelivery.test.ts).
			data: { apiKey: stage.sandbox.apiKey, baseUrl: proxy.url, rewardsUrl: stage.sandbox.rewardsUrl, environment: 'sandbox' },
		});
		await n8n.importWorkflows([{ ...lossy, pinData: {} }, { ...lossyRetry, pinData: {} }, batch, recover, example1]);
		await n8n.start({ timeoutMs: 240_000 });
		rest = new N8nRest(n8n.baseUrl);
		await rest.setupOwner('owner@recovery.test', 'Recovery-Suite-Passw0rd');
		for (const [id, path] of [
			[lossy.id, lossyPath],
			[lossyRetry.id, retryPath],
		]) {
			await rest.publish(id);
			await n8n.waitForWebhook(path, true, 60_000);
		}
	}, 480_000);

	afterAll(() => stopAll(n8n, proxy, stage?.sandbox));

	/** POSTs the body to the workflow's production webhook (answered 200) and returns the execution it started, and how many finished before. */
	async function runByHook(workflowId: string, path: string, body: object) {
		const before = n8n.finishedExecutions(workflowId).length;
		const response = await fetch(n8n.webhookUrl(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		expect(response.status).toBe(200);
		const all = await n8n.waitForExecutions(workflowId, before + 1, 120_000);
		return { execution: all[all.length - 1], before };
	}

	beforeEach(async () => {
		await stage.operator.clearFaults();
		if (proxy) {
			proxy.dropPayments = false;
			proxy.dropFirstPerKey = 0;
		}
	});

	test('(a) the answer of a committed order is lost on every try: the error says the service may have it and only Retry is safe; Retry makes no second order', async () => {
		const memo = `lossy-${run}`;
		proxy.dropPayments = true;
		const mark = await stage.operator.mark();
		const { execution: failed, before } = await runByHook('recoverLossy00001', lossyPath, { amount: '17.5', memo });
		expect(failed.status).toBe('error');
		const error = failed.data.resultData.error as { message?: string; description?: string };
		expect(error.message).toBe(
			'The answer was lost: the service may have made this payment order. Only Retry of this execution (or a run with the same Business Key) is safe',
		);
		expect(error.description).toMatch(/^ECONNRESET \(4 tries, each with the idempotency key n8n-[0-9a-f]{48}\)/);
		expect(error.description).toContain('Running the workflow anew with a Derived key or a new Business Key may pay twice');
		expect(error.description).toContain('Payment Order → Find by Keys');
		expect(error.description).not.toMatch(/check the Base URL/i);
		// The sandbox committed the first try and answered the three others from the same key.
		const posts = await paymentPosts(mark);
		expect(posts.map((r) => r.status)).toEqual([201, 201, 201, 201]);
		expect(new Set(posts.map((r) => r.body.idempotencyKey)).size).toBe(1);
		expect(proxy.dropped).toBe(4);
		expect(await orders(memo)).toEqual({ [memo]: 1 });

		// The network is back; the person does what the error says: Retry from the executions list.
		proxy.dropPayments = false;
		const retryMark = await stage.operator.mark();
		await rest.retryExecution(failed.id, false);
		const after = await n8n.waitForExecutions('recoverLossy00001', before + 2, 120_000);
		const retried = after[after.length - 1];
		expect(retried.mode).toBe('retry');
		expect(retried.status).toBe('success');
		const [paid] = nodeItems(retried.data, 'Pay') as any[];
		expect(paid.idempotencyKey).toBe(posts[0].body.idempotencyKey);
		expect((await paymentPosts(retryMark)).map((r) => r.body.idempotencyKey)).toEqual([posts[0].body.idempotencyKey]);
		expect(await orders(memo)).toEqual({ [memo]: 1 });
	});

	test("(d) lost answers with Retry On Fail on: n8n's second try gets the order the first one made, created: true and replayed: true, one order per node", async () => {
		const memo = `lossy-retry-${run}`;
		// The first execute() of each node loses all 4 transport tries' answers (the first one committed);
		// n8n's Retry On Fail then runs execute() again and its answer passes.
		proxy.dropFirstPerKey = 4;
		const dropped = proxy.dropped;
		const mark = await stage.operator.mark();
		const { execution } = await runByHook('recoverLossyRetry', retryPath, { amount: '23.5', memo });
		expect(execution.status).toBe('success');
		const [derived] = nodeItems(execution.data, 'Pay (Derived)') as any[];
		const [business] = nodeItems(execution.data, 'Pay (Business Key)') as any[];
		expect(derived).toMatchObject({ created: true, replayed: true, memo: `${memo}-derived` });
		expect(String(derived.idempotencyKey)).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(business).toMatchObject({ created: true, replayed: true, memo: `${memo}-business`, idempotencyKey: `${memo}-business` });
		// Each node: 4 tries lost in its first execute(), 1 answered in the second; one key, one order.
		const posts = await paymentPosts(mark);
		for (const key of [derived.idempotencyKey, business.idempotencyKey]) {
			expect(posts.filter((r) => r.body.idempotencyKey === key).map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
		}
		expect(posts).toHaveLength(10);
		expect(proxy.dropped - dropped).toBe(8);
		expect(await orders(memo)).toEqual({ [`${memo}-derived`]: 1, [`${memo}-business`]: 1 });
	});

	test('(b) n8n killed (SIGKILL) in the middle of a batch of 20 with Business Keys: Example 5 finds what exists and pays only the rest, 20 orders in all', async () => {
		const prefix = `CR-${run}-`;
		// Each order takes 400 ms at the sandbox, so the kill lands mid-batch.
		await stage.operator.fault({ method: 'POST', path: '^/api/v1/payment$', count: 20, delayMs: 400 });
		const mark = await stage.operator.mark();
		const execute = await n8n.spawnProcess(['execute', `--id=${batch.id}`, '--rawOutput'], {
			name: 'n8n-execute-killed',
			env: { N8N_RUNNERS_BROKER_PORT: String(await freePort()) },
		});
		const deadline = Date.now() + 180_000;
		while ((await paymentPosts(mark)).filter((r) => r.status === 201).length < 7) {
			if (!execute.running) throw new Error(`the batch ended before the kill:\n${execute.tail}`);
			if (Date.now() > deadline) throw new Error(`the batch did not reach 7 orders:\n${execute.tail}`);
			await sleep(50);
		}
		await execute.stop('SIGKILL');
		await stage.operator.clearFaults();
		// Requests that were in flight at the kill finish at the sandbox (it read their bodies first).
		await sleep(1_000);
		const paidBefore = await orders(prefix);
		const madeBefore = total(paidBefore);
		expect(madeBefore).toBeGreaterThanOrEqual(7);
		expect(madeBefore).toBeLessThan(20);
		expect(Object.values(paidBefore).every((n) => n === 1)).toBe(true);

		const recoverMark = await stage.operator.mark();
		const result = await n8n.execute(recover.id);
		if (result.code !== 0 || !result.run) throw new Error(`example 5 failed\n${result.stdout.slice(-3000)}`);
		const found = nodeItems(result.run.data, 'Find existing orders') as any[];
		expect(found).toHaveLength(20);
		expect(
			found
				.filter((f) => f.found)
				.map((f) => f.memo)
				.sort(),
		).toEqual(Object.keys(paidBefore).sort());
		const [summary] = nodeItems(result.run.data, 'Summary') as any[];
		// The summary's table (Summarize by status and createdThisRun): the orders found and those paid now, all to fund.
		const ordersIn = (made: boolean) => summary.byStatus.filter((g: any) => g.createdThisRun === made).reduce((n: number, g: any) => n + g.orders, 0);
		expect({ payees: summary.payees, alreadyPaid: ordersIn(false), paidNow: ordersIn(true) }).toEqual({
			payees: 20,
			alreadyPaid: madeBefore,
			paidNow: 20 - madeBefore,
		});
		expect(summary.byStatus.map((g: any) => g.status)).toEqual(['AWAITING_FUNDS', 'AWAITING_FUNDS']);
		expect(summary.byStatus.flatMap((g: any) => g.list)).toHaveLength(20);
		// No payee refused: the error branch never ran.
		expect(result.run.data.resultData.runData['Failed payees']).toBeUndefined();
		// Only the missing orders were sent, each once.
		const posts = await paymentPosts(recoverMark);
		expect(posts.map((r) => r.body.memo).sort()).toEqual(
			Array.from({ length: 20 }, (_, n) => `${prefix}${String(n + 1).padStart(2, '0')}`)
				.filter((memo) => !(memo in paidBefore))
				.sort(),
		);
		const after = await orders(prefix);
		expect(total(after)).toBe(20);
		expect(Object.values(after).every((n) => n === 1)).toBe(true);
		expect((await outbox('payouts')).pop()).toEqual(summary);
	});

	test('(c) Example 1 run twice the same day after one order was funded: no second order, and the funded one is not under "fund these"', async () => {
		const run1 = await n8n.execute(example1.id);
		if (run1.code !== 0 || !run1.run) throw new Error(`example 1 failed\n${run1.stdout.slice(-3000)}`);
		const [first] = nodeItems(run1.run.data, 'Summary') as any[];
		expect(first).toMatchObject({ failed: 1, byStatus: [{ status: 'AWAITING_FUNDS', createdThisRun: true, orders: 3 }] });
		const funded = first.byStatus[0].list.find((o: any) => o.reference === 'INV-1001');
		await stage.operator.deposit(funded.paymentOrderId, funded.amountUsd);
		const deadline = Date.now() + 60_000;
		while ((await stage.operator.api('GET', `/payment-orders/${funded.paymentOrderId}`)).status !== 'FUNDED') {
			if (Date.now() > deadline) throw new Error('INV-1001 was not FUNDED within 60 s');
			await sleep(300);
		}

		const mark = await stage.operator.mark();
		const run2 = await n8n.execute(example1.id);
		if (run2.code !== 0 || !run2.run) throw new Error(`example 1 (again) failed\n${run2.stdout.slice(-3000)}`);
		const [second] = nodeItems(run2.run.data, 'Summary') as any[];
		// Nothing made by this run; the funded order under FUNDED, the two others still to fund, with their total.
		const group = (status: string) => second.byStatus.find((g: any) => g.status === status);
		expect(second.failed).toBe(1);
		expect(second.byStatus).toHaveLength(2);
		expect(second.byStatus.every((g: any) => g.createdThisRun === false)).toBe(true);
		expect(group('FUNDED').list.map((o: any) => [o.reference, o.paymentOrderId])).toEqual([['INV-1001', funded.paymentOrderId]]);
		expect(
			group('AWAITING_FUNDS')
				.list.map((o: any) => o.reference)
				.sort(),
		).toEqual(['INV-1002', 'INV-1003']);
		expect(group('AWAITING_FUNDS').totalUsd).toBe(352.25);
		expect((await outbox('payouts')).pop()).toEqual(second);
		// The same three orders: the re-run's requests were answered from their keys.
		expect((await paymentPosts(mark)).map((r) => r.body.idempotencyKey).sort()).toEqual([
			'payout-INV-1001',
			'payout-INV-1002',
			'payout-INV-1003',
			'payout-INV-1004',
		]);
		expect(await orders('INV-100')).toEqual({ 'INV-1001': 1, 'INV-1002': 1, 'INV-1003': 1 });
		expect((findNode(example1, 'Create payment orders').parameters as Record<string, unknown>).idempotencyKey).toBe("={{ 'payout-' + $json.reference }}");
	});
});
