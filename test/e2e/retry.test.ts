/**
 * Derived idempotency keys under n8n's own re-runs, in a real n8n 2.40.7 (`n8n start`, REST API):
 * the executions list's Retry (original and currently saved workflow, and a retry of a retry),
 * Retry On Fail, Loop Over Items, and the case where the key lineage cannot be kept. Workflows are
 * started by production webhooks (one instance for the whole suite); every check counts the orders
 * in the sandbox and reads n8n's own execution records.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import { N8nRest } from '../../harness/n8nRest';
import { executionError, nodeItems, type ExecutionRecord } from '../../harness/executions';
import { N8nInstance, type WorkflowInput } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { graph, type NodeSpec } from '../../harness/workflows';
import { payEachItem } from './support';

jest.setTimeout(300_000);

interface Payment {
	amount: number;
	memo: string;
	chain?: string;
	address?: string;
	concurrency?: number;
	expiry?: 'inMinutes' | 'at';
}

describe("Derived keys under n8n's Retry, in a real n8n", () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let rest: N8nRest;
	const run = randomBytes(3).toString('hex');
	const credential = { id: 'chSandboxCred001', name: 'Clearinghouse sandbox' };
	const workflows: Record<string, WorkflowInput> = {};

	/** Webhook → Items (Code, from the body) → [middle] → Pay (Create Payment Order, Derived key). */
	function payWorkflow(id: string, pay: Record<string, unknown> = {}, payExtra: Record<string, unknown> = {}, loop = false): WorkflowInput {
		const nodes: NodeSpec[] = [
			{
				name: 'Hook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path: `${id}-${run}`, options: {} },
			},
			{
				name: 'Items',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: { jsCode: 'return $input.first().json.body.items.map((json) => ({ json }));' },
			},
			payEachItem(
				stage,
				{
					memo: '={{ $json.memo }}',
					idempotencyKeyMode: 'derived',
					expiry: '={{ $json.expiry }}',
					expiresInMinutes: 60,
					expiresAt: '={{ $now.plus({ hours: 2 }).toISO() }}',
					options: { concurrency: '={{ $json.concurrency }}' },
					...pay,
				},
				payExtra,
			),
		];
		const edges: Array<[string, string] | [string, string, number]> = [['Hook', 'Items']];
		if (loop) {
			nodes.push({ name: 'Loop', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, parameters: { batchSize: 1, options: {} } });
			edges.push(['Items', 'Loop'], ['Loop', 'Pay', 1], ['Pay', 'Loop']);
		} else {
			edges.push(['Items', 'Pay']);
		}
		// pinData {} as the editor saves it: a partial run (Execute step) fails on a null one.
		return { ...graph(id, id, nodes, edges, credential), pinData: {} };
	}

	/** A Code node that fills n8n's execution custom data (at most 10 entries) before Pay. */
	function fullCustomDataWorkflow(id: string): WorkflowInput {
		const workflow = payWorkflow(id);
		const items = workflow.nodes.find((n) => n.name === 'Items')!;
		(items.parameters as any).jsCode = "for (let n = 0; n < 10; n++) $execution.customData.set('user_key_' + n, 'v');\n" + (items.parameters as any).jsCode;
		return workflow;
	}

	const hookPath = (id: string) => String((workflows[id].nodes[0].parameters as any).path);

	/** POSTs the items to the workflow's webhook and waits for the execution it starts to finish. */
	async function trigger(id: string, items: Payment[]): Promise<ExecutionRecord> {
		const before = n8n.finishedExecutions(id).length;
		const body = {
			items: items.map((p) => ({ chain: 'ethereum', address: stage.bobEth, concurrency: 1, expiry: 'inMinutes', ...p })),
		};
		const response = await fetch(n8n.webhookUrl(hookPath(id)), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		expect(response.status).toBe(200);
		const all = await n8n.waitForExecutions(id, before + 1, 120_000);
		return all[all.length - 1];
	}

	/** n8n's Retry (executions list); resolves with the retry's execution record once it finished. */
	const retry = (execution: ExecutionRecord, loadWorkflow: boolean) => rest.retried(n8n, execution, loadWorkflow);

	/** Changes the saved workflow's Pay parameters (what "currently saved workflow" then uses). */
	const saveWorkflow = (id: string, pay: Record<string, unknown>) =>
		rest.saveNodes(id, (nodes) => nodes.map((n) => (n.name === 'Pay' ? { ...n, parameters: { ...n.parameters, ...pay } } : n)));

	/** The sandbox's orders whose memo starts with `prefix`, by memo. */
	const orders = (prefix: string) => stage.operator.ordersByMemo(prefix);
	const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
	const paymentPosts = (since: number) => stage.operator.paymentPosts(since);
	const setBobSolana = (status: 'PENDING' | 'ACTIVE') => stage.operator.call('POST', 'wallets/activate', { address: stage.bobSol, chain: 'solana', status });
	const five = (memo: string, concurrency: number): Payment[] =>
		[1, 2, 3, 4, 5].map((n) => ({ amount: n + 0.25, memo: `${memo}-${n}`, concurrency, ...(n === 4 ? { chain: 'solana', address: stage.bobSol } : {}) }));

	beforeAll(async () => {
		stage = await startSandboxStage();
		for (const workflow of [
			payWorkflow('retryBatch0000001'),
			payWorkflow('retrySaved0000001'),
			payWorkflow('retryChanged00001'),
			payWorkflow('retryLoop00000001', {}, {}, true),
			payWorkflow('retryOnFail000001', {}, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }),
			fullCustomDataWorkflow('retryFull00000001'),
		]) {
			workflows[workflow.id] = workflow;
		}
		n8n = await N8nInstance.create();
		await n8n.importCredential(sandboxCredential(stage.sandbox));
		await n8n.importWorkflows(Object.values(workflows));
		await n8n.start();
		rest = new N8nRest(n8n.baseUrl);
		await rest.setupOwner('owner@retry.test', 'Retry-Suite-Passw0rd');
		// Published through the REST API (as the editor does): one CLI process per workflow costs far more here.
		for (const id of Object.keys(workflows)) await rest.publish(id);
		for (const id of Object.keys(workflows)) await n8n.waitForWebhook(hookPath(id), true, 60_000);
	});

	afterAll(() => stopAll(n8n, stage?.sandbox));

	beforeEach(async () => {
		await stage.operator.clearFaults();
		await setBobSolana('ACTIVE');
	});

	test.each([1, 5])(
		'a batch of 5 that fails at item 4 (Concurrency %i), then Retry with the original workflow, and a retry of that retry: every intended order once, the existing ones marked',
		async (concurrency) => {
			const memo = `batch-c${concurrency}-${run}`;
			await setBobSolana('PENDING'); // item 4's recipient is not active yet: 400
			const first = await trigger('retryBatch0000001', five(memo, concurrency));
			expect(first.status).toBe('error');
			const madeFirst = concurrency === 1 ? [1, 2, 3] : [1, 2, 3, 5];
			expect(await orders(memo)).toEqual(Object.fromEntries(madeFirst.map((n) => [`${memo}-${n}`, 1])));

			// Retry while item 4 still fails: nothing new, nothing twice.
			const second = await retry(first, false);
			expect(second.status).toBe('error');
			expect(await orders(memo)).toEqual(Object.fromEntries(madeFirst.map((n) => [`${memo}-${n}`, 1])));

			// The recipient is activated; a retry of the retry completes the batch.
			await setBobSolana('ACTIVE');
			const third = await retry(second, false);
			expect(third.status).toBe('success');
			expect(await orders(memo)).toEqual(Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`${memo}-${n}`, 1])));
			const out = nodeItems(third.data, 'Pay');
			// created: made in this execution's lineage (the failed execution made the first ones); replayed: found, not made now.
			expect(out.map((o) => o.created)).toEqual([true, true, true, true, true]);
			expect(out.map((o) => o.replayed)).toEqual([1, 2, 3, 4, 5].map((n) => madeFirst.includes(n)));
		},
	);

	// The failing item is one only the service can refuse (its recipient not active yet): an item the node can check
	// (an unknown chain) now stops the whole batch before anything is sent.
	test('a partial failure retried: 3 items, item 3 to a recipient the service refuses, Retry: 2 orders, not 4', async () => {
		const memo = `partial-${run}`;
		await setBobSolana('PENDING');
		const items: Payment[] = [
			{ amount: 1.25, memo: `${memo}-1` },
			{ amount: 2.5, memo: `${memo}-2` },
			{ amount: 3.75, memo: `${memo}-3`, chain: 'solana', address: stage.bobSol },
		];
		const first = await trigger('retryBatch0000001', items);
		expect(first.status).toBe('error');
		const second = await retry(first, false);
		expect(second.status).toBe('error');
		expect(await orders(memo)).toEqual({ [`${memo}-1`]: 1, [`${memo}-2`]: 1 });
	});

	test('Retry with the currently saved workflow after the failing item was fixed: 5 orders, the fixed item created once', async () => {
		const memo = `saved-${run}`;
		// Item 4 pays bob's Solana wallet, not active (the service refuses it); the fix sends it to his Ethereum one.
		await setBobSolana('PENDING');
		const first = await trigger('retrySaved0000001', five(memo, 1));
		expect(first.status).toBe('error');
		expect(total(await orders(memo))).toBe(3);
		await saveWorkflow('retrySaved0000001', {
			toChain: "={{ $json.chain === 'solana' ? 'ethereum' : $json.chain }}",
			toAddress: `={{ $json.chain === 'solana' ? '${stage.bobEth}' : $json.address }}`,
		});
		const retried = await retry(first, true);
		expect(retried.status).toBe('success');
		expect(await orders(memo)).toEqual(Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`${memo}-${n}`, 1])));
		expect(nodeItems(retried.data, 'Pay').map((o) => o.created)).toEqual([true, true, true, true, true]);
		expect(nodeItems(retried.data, 'Pay').map((o) => o.replayed)).toEqual([true, true, true, false, false]);
	});

	test('Retry with the currently saved workflow after a paid amount was changed: a clear 409, no new order', async () => {
		const memo = `changed-${run}`;
		await setBobSolana('PENDING');
		const first = await trigger('retryChanged00001', five(memo, 1));
		expect(first.status).toBe('error');
		const before = await orders(memo);
		expect(total(before)).toBe(3);
		await saveWorkflow('retryChanged00001', { amountUsd: "={{ $json.memo.endsWith('-1') ? $json.amount + 1 : $json.amount }}" });
		await setBobSolana('ACTIVE');
		const mark = await stage.operator.mark();
		const retried = await retry(first, true);
		expect(retried.status).toBe('error');
		// The row named as a person sees it (from 1, its memo), with n8n's own zero-based number once.
		expect(executionError(retried)?.message).toBe(
			`Row 1 of 5 (${memo}-1), n8n item 0: This item's payment order already exists with other values: check it before paying again`,
		);
		const posts = await paymentPosts(mark);
		expect(posts.map((r) => r.status)).toEqual([409]);
		expect(await orders(memo)).toEqual(before);
	});

	test('Loop Over Items: two identical payments in two runs make 2 orders; a failure in a later run, then Retry: one order per intended payment', async () => {
		const memo = `loop-${run}`;
		await setBobSolana('PENDING');
		const items: Payment[] = [
			{ amount: 7, memo: `${memo}-same` },
			{ amount: 7, memo: `${memo}-same` },
			{ amount: 8, memo: `${memo}-sol`, chain: 'solana', address: stage.bobSol },
		];
		const first = await trigger('retryLoop00000001', items);
		expect(first.status).toBe('error');
		expect(await orders(memo)).toEqual({ [`${memo}-same`]: 2 });
		const runs = first.data.resultData.runData.Pay;
		expect(runs.filter((r) => !r.error)).toHaveLength(2);
		await setBobSolana('ACTIVE');
		const retried = await retry(first, false);
		expect(retried.status).toBe('success');
		expect(await orders(memo)).toEqual({ [`${memo}-same`]: 2, [`${memo}-sol`]: 1 });
	});

	test('Retry On Fail with Expires At = $now + 2 hours, when the first four POSTs commit and answer 500: one order, one request body', async () => {
		const memo = `now-${run}`;
		await stage.operator.fault({ method: 'POST', path: '^/api/v1/payment$', count: 4, commitThen500: true });
		const mark = await stage.operator.mark();
		const execution = await trigger('retryOnFail000001', [{ amount: 9, memo, expiry: 'at' }]);
		expect(execution.status).toBe('success');
		const posts = await paymentPosts(mark);
		expect(posts.map((r) => r.status)).toEqual([500, 500, 500, 500, 201]);
		expect(new Set(posts.map((r) => JSON.stringify(r.body))).size).toBe(1);
		expect(await orders(memo)).toEqual({ [memo]: 1 });
		// The first try of this execution made it: created in this lineage, answered as a replay.
		expect(nodeItems(execution.data, 'Pay')[0]).toMatchObject({ created: true, replayed: true });
	});

	test('Retry On Fail inside a retried execution, with commit-then-500 answers: one order per item', async () => {
		const memo = `rof-${run}`;
		await setBobSolana('PENDING');
		const first = await trigger('retryOnFail000001', [
			{ amount: 10, memo: `${memo}-1` },
			{ amount: 11, memo: `${memo}-2`, chain: 'solana', address: stage.bobSol },
		]);
		expect(first.status).toBe('error');
		expect(await orders(memo)).toEqual({ [`${memo}-1`]: 1 });
		await setBobSolana('ACTIVE');
		await stage.operator.fault({ method: 'POST', path: '^/api/v1/payment$', count: 4, commitThen500: true });
		const retried = await retry(first, false);
		expect(retried.status).toBe('success');
		expect(await orders(memo)).toEqual({ [`${memo}-1`]: 1, [`${memo}-2`]: 1 });
	});

	test('when n8n cannot keep the key lineage (custom data full), the item fails before any request, and so does its Retry', async () => {
		const memo = `full-${run}`;
		const mark = await stage.operator.mark();
		const first = await trigger('retryFull00000001', [{ amount: 12, memo }]);
		expect(first.status).toBe('error');
		expect(executionError(first)?.message).toMatch(/^Nothing was sent for this item/);
		expect(executionError(first)?.description).toMatch(/at most 10 entries/);
		const retried = await retry(first, false);
		expect(retried.status).toBe('error');
		expect(executionError(retried)?.description).toMatch(/this is a retry of an execution that holds no key lineage|at most 10 entries/);
		expect(await paymentPosts(mark)).toEqual([]);
		expect(await orders(memo)).toEqual({});
	});

	test("the editor's Execute step over an execution's data is a new execution: new Derived keys (by design)", async () => {
		const memo = `step-${run}`;
		const first = await trigger('retryBatch0000001', [{ amount: 14, memo }]);
		expect(first.status).toBe('success');
		const before = n8n.finishedExecutions('retryBatch0000001').length;
		// What the editor sends for "Execute step" on Pay: the run data of the nodes before it.
		const { Hook, Items } = first.data.resultData.runData;
		await rest.call('POST', '/workflows/retryBatch0000001/run', { runData: { Hook, Items }, destinationNode: { nodeName: 'Pay', mode: 'inclusive' } });
		const all = await n8n.waitForExecutions('retryBatch0000001', before + 1, 120_000);
		const manual = all[all.length - 1];
		expect(manual.mode).toBe('manual');
		expect(manual.status).toBe('success');
		expect(nodeItems(manual.data, 'Pay')[0].idempotencyKey).not.toBe(nodeItems(first.data, 'Pay')[0].idempotencyKey);
		expect(await orders(memo)).toEqual({ [memo]: 2 });
	});

	test('a new webhook call with the same items is a new execution: new Derived keys (by design)', async () => {
		const memo = `again-${run}`;
		const a = await trigger('retryBatch0000001', [{ amount: 13, memo }]);
		const b = await trigger('retryBatch0000001', [{ amount: 13, memo }]);
		expect(nodeItems(b.data, 'Pay')[0].idempotencyKey).not.toBe(nodeItems(a.data, 'Pay')[0].idempotencyKey);
		expect(await orders(memo)).toEqual({ [memo]: 2 });
	});
});
