/**
 * Re-runs a PERSON starts, in a real n8n 2.40.7 (`n8n start`, the editor's REST API), one
 * instance for the file. Nodes as a new node has them (Idempotency Key → Business Key by
 * default). Each test counts the orders in the sandbox by memo and reads n8n's execution records.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';

import { executionError, nodeItems, type ExecutionRecord } from '../../harness/executions';
import { N8nInstance, type WorkflowInput } from '../../harness/n8nProcess';
import { N8nRest } from '../../harness/n8nRest';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { action, executeWorkflowNode, executeWorkflowTriggerNode, graph, type NodeSpec } from '../../harness/workflows';
import { payEachItem } from './support';

jest.setTimeout(300_000);

/** A non-loopback address of this machine, for a listener that would see any request sent. */
function lanAddress(): string | undefined {
	for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
	return undefined;
}

/** A wallet no account of the sandbox registered: an order to it is refused by the service alone. */
const UNREGISTERED = '0x000000000000000000000000000000000000dead';

describe('re-runs a person starts, in a real n8n', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let rest: N8nRest;
	let listener: Server | undefined;
	let listenerHits = 0;
	let remoteBaseUrl = '';
	const run = randomBytes(3).toString('hex');
	const credential = { id: 'chSandboxCred001', name: 'Clearinghouse sandbox' };
	const remote = { id: 'chRemoteCred0001', name: 'Clearinghouse (not this computer)' };

	/** Pay as a new node: Business Key (default) from `reference`, Expires In 60 minutes (default). */
	function pay(extra: Record<string, unknown> = {}, nodeExtra: Record<string, unknown> = {}): NodeSpec {
		return payEachItem(stage, { memo: '={{ $json.reference }}', idempotencyKey: '={{ $json.reference }}', options: { concurrency: 1 }, ...extra }, nodeExtra);
	}

	/**
	 * A Code node emitting one item per reference; `bad` items pay a wallet no account registered, which only the
	 * service can refuse (400): an item the node can check itself (an unknown chain) would stop the whole batch
	 * before anything is sent.
	 */
	function itemsCode(prefix: string, count: number, bad: number[]): string {
		return `return Array.from({ length: ${count} }, (_, n) => ({ json: { reference: '${prefix}-' + (n + 1), amount: String(n + 1), chain: 'ethereum', address: ${JSON.stringify(bad)}.includes(n + 1) ? '${UNREGISTERED}' : '${stage.bobEth}' } }));`;
	}

	/** Manual Trigger → Items → Pay, as built in the editor. */
	function editorWorkflow(id: string, code: string, payNode: NodeSpec, cred = credential): WorkflowInput {
		const nodes: NodeSpec[] = [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 },
			{ name: 'Items', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: code } },
			payNode,
		];
		return {
			...graph(
				id,
				id,
				nodes,
				[
					['Start', 'Items'],
					['Items', 'Pay'],
				],
				cred,
			),
			pinData: {},
		};
	}

	/** The editor's "Execute workflow" (POST /rest/workflows/:id/run from the Manual Trigger): the finished execution. */
	async function executeWorkflow(id: string): Promise<ExecutionRecord> {
		const before = n8n.finishedExecutions(id).length;
		await rest.call('POST', `/workflows/${id}/run`, { triggerToStartFrom: { name: 'Start' } });
		const all = await n8n.waitForExecutions(id, before + 1, 120_000);
		return all[all.length - 1];
	}

	/** The executions list's Retry: the finished retry. */
	const retry = (execution: ExecutionRecord, loadWorkflow: boolean) => rest.retried(n8n, execution, loadWorkflow);
	const setCode = (code: string) => (nodes: any[]) => nodes.map((n) => (n.name === 'Items' ? { ...n, parameters: { ...n.parameters, jsCode: code } } : n));

	/** The sandbox's orders whose memo starts with `prefix-`: memo → count. */
	const orders = (prefix: string) => stage.operator.ordersByMemo(`${prefix}-`);
	const once = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}-${n}`, 1]));
	const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, n) => from + n);

	const ids = {
		editor: 'rerunEditor000001',
		batch: 'rerunBatch0000001',
		parent: 'rerunParent000001',
		child: 'rerunChild0000001',
		pasted: 'rerunPasted000001',
		remote: 'rerunRemote000001',
		find: 'rerunFind00000001',
	};

	beforeAll(async () => {
		stage = await startSandboxStage();

		// A listener on a non-loopback address of this machine: the "remote" Base URL. It must see no request.
		const address = lanAddress();
		if (address) {
			listener = createServer((_req, res) => {
				listenerHits++;
				res.writeHead(500).end();
			});
			await new Promise<void>((resolve) => listener!.listen(0, address, resolve));
			remoteBaseUrl = `http://${address}:${(listener.address() as any).port}`;
		}

		const child: WorkflowInput = {
			...graph(
				ids.child,
				ids.child,
				[
					executeWorkflowTriggerNode('Called'),
					{
						name: 'Items',
						type: 'n8n-nodes-base.code',
						typeVersion: 2,
						parameters: {
							jsCode: `return [{ json: { reference: 'sub-${run}-1', amount: '1', chain: 'ethereum', address: '${stage.bobEth}' } }, { json: { reference: 'sub-${run}-2', amount: '2', chain: 'solana', address: '${stage.bobSol}' } }];`,
						},
					},
					pay(),
				],
				[
					['Called', 'Items'],
					['Items', 'Pay'],
				],
				credential,
			),
			pinData: {},
		};
		const parent: WorkflowInput = {
			...graph(
				ids.parent,
				ids.parent,
				[{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 }, executeWorkflowNode('Run Payouts', ids.child)],
				[['Start', 'Run Payouts']],
			),
			pinData: {},
		};
		n8n = await N8nInstance.create();
		await n8n.importCredential(sandboxCredential(stage.sandbox), {
			...sandboxCredential(stage.sandbox, remote.id, remote.name),
			data: {
				apiKey: 'not-sent',
				baseUrl: remoteBaseUrl || 'https://api.clearinghouse.example',
				rewardsUrl: remoteBaseUrl || 'https://api.clearinghouse.example',
			},
		});
		await n8n.importWorkflows([
			editorWorkflow(ids.editor, itemsCode(`editor-${run}`, 3, [3]), pay()),
			editorWorkflow(ids.batch, itemsCode(`batch-${run}`, 20, [8]), pay()),
			editorWorkflow(ids.pasted, itemsCode(`pasted-${run}`, 3, [3]), pay({ idempotencyKeyMode: 'derived' })),
			editorWorkflow(ids.remote, itemsCode(`remote-${run}`, 1, []), pay({ idempotencyKeyMode: 'derived' }), remote),
			// Which of the batch's 20 keys (and a 21st never paid) have an order: Payment Order → Find by Keys.
			editorWorkflow(ids.find, itemsCode(`batch-${run}`, 21, []), action('Pay', 'paymentOrder', 'findByKeys', {})),
			child,
			parent,
		]);
		await n8n.start();
		rest = new N8nRest(n8n.baseUrl);
		await rest.setupOwner('owner@rerun.test', 'Rerun-Suite-Passw0rd');
		// The parent's Retry runs the child's published version (n8n 2.x): publish it.
		await rest.publish(ids.child);
	});

	afterAll(async () => {
		await stopAll(n8n, stage?.sandbox);
		await new Promise((resolve) => (listener ? listener.close(resolve) : resolve(undefined)));
	});

	test('editor: Execute workflow, item 3 fails, fix it, Execute workflow again: 3 orders, the first two found, not made', async () => {
		const prefix = `editor-${run}`;
		const first = await executeWorkflow(ids.editor);
		expect(first.mode).toBe('manual');
		expect(first.status).toBe('error');
		expect(await orders(prefix)).toEqual(once(prefix, [1, 2]));
		await rest.saveNodes(ids.editor, setCode(itemsCode(prefix, 3, [])));
		const second = await executeWorkflow(ids.editor);
		expect(second.status).toBe('success');
		expect(await orders(prefix)).toEqual(once(prefix, [1, 2, 3]));
		const out = nodeItems(second.data, 'Pay');
		expect(out.map((o) => o.created)).toEqual([false, false, true]);
		expect(out.map((o) => o.replayed)).toEqual([true, true, false]);
	});

	test('a Business Key batch of 20 that failed at item 8, run again with the default expiry: items 8-20 paid, nothing twice', async () => {
		const prefix = `batch-${run}`;
		const first = await executeWorkflow(ids.batch);
		expect(first.status).toBe('error');
		expect(await orders(prefix)).toEqual(once(prefix, range(1, 7)));
		await rest.saveNodes(ids.batch, setCode(itemsCode(prefix, 20, [])));
		// A person's re-run comes later: at least a second, so Expires In counts to another expiresAt (whole seconds).
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const mark = await stage.operator.mark();
		const second = await executeWorkflow(ids.batch);
		expect(second.status).toBe('success');
		expect(await orders(prefix)).toEqual(once(prefix, range(1, 20)));
		const out = nodeItems(second.data, 'Pay');
		expect(out.map((o) => o.created)).toEqual(range(1, 20).map((n) => n >= 8));
		// Items 1-7 met the 409 (their expiry counted from the first run) and were found by key; 8-20 were made.
		const posts = (await stage.operator.requests(mark)).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		expect(posts.map((r) => r.status)).toEqual([...range(1, 7).map(() => 409), ...range(8, 20).map(() => 201)]);
	});

	test('Find by Keys after the batch: 20 found with their status, the 21st not found, one listing for all items', async () => {
		const prefix = `batch-${run}`;
		const mark = await stage.operator.mark();
		const execution = await executeWorkflow(ids.find);
		expect(execution.status).toBe('success');
		const out = nodeItems(execution.data, 'Pay');
		expect(out.map((o) => o.found)).toEqual(range(1, 21).map((n) => n <= 20));
		expect(out.slice(0, 20).map((o) => [o.idempotencyKey, o.status])).toEqual(range(1, 20).map((n) => [`${prefix}-${n}`, 'AWAITING_FUNDS']));
		const reads = (await stage.operator.requests(mark)).filter((r) => r.path.startsWith('/api/v1/'));
		expect(reads.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/payment-orders']);
	});

	test('a sub-workflow pays, fails at item 2; fix it; Retry the parent: 2 orders, the first found', async () => {
		const prefix = `sub-${run}`;
		// Item 2 pays bob's solana wallet, not yet active: the service refuses it (400).
		await stage.operator.call('POST', 'wallets/activate', { address: stage.bobSol, chain: 'solana', status: 'PENDING' });
		const first = await executeWorkflow(ids.parent);
		expect(first.status).toBe('error');
		expect(await orders(prefix)).toEqual(once(prefix, [1]));
		// The fix: the wallet is activated (the child is left as published, so the retry runs the same child).
		await stage.operator.call('POST', 'wallets/activate', { address: stage.bobSol, chain: 'solana', status: 'ACTIVE' });
		const retried = await retry(first, false);
		const childRuns = n8n.finishedExecutions(ids.child);
		const lastChild = childRuns[childRuns.length - 1];
		expect({ mode: retried.mode, status: retried.status, error: executionError(retried)?.message, child: executionError(lastChild)?.message }).toEqual({
			mode: 'retry',
			status: 'success',
			error: undefined,
			child: undefined,
		});
		expect(await orders(prefix)).toEqual(once(prefix, [1, 2]));
		const child = n8n.finishedExecutions(ids.child);
		const out = nodeItems(child[child.length - 1].data, 'Pay');
		expect(out.map((o) => [o.memo, o.created])).toEqual([
			[`${prefix}-1`, false],
			[`${prefix}-2`, true],
		]);
	});

	test('Derived keys: the node replaced by a pasted copy (same name, new id), then Retry with the currently saved workflow: 3 orders', async () => {
		const prefix = `pasted-${run}`;
		const first = await executeWorkflow(ids.pasted);
		expect(first.status).toBe('error');
		expect(await orders(prefix)).toEqual(once(prefix, [1, 2]));
		// The person deletes Pay and pastes a corrected copy: a new node id, the same name.
		await rest.saveNodes(ids.pasted, (nodes) =>
			nodes.map((n) =>
				n.name === 'Pay'
					? {
							...n,
							id: randomUUID(),
							parameters: { ...n.parameters, toAddress: `={{ $json.address === '${UNREGISTERED}' ? '${stage.bobEth}' : $json.address }}` },
						}
					: n,
			),
		);
		const retried = await retry(first, true);
		expect(retried.status).toBe('success');
		expect(await orders(prefix)).toEqual(once(prefix, [1, 2, 3]));
		expect(nodeItems(retried.data, 'Pay').map((o) => o.replayed)).toEqual([true, true, false]);
	});

	test('Derived keys in an editor run against a Base URL that is not this computer: refused before sending, naming the safe step', async () => {
		if (!remoteBaseUrl) console.warn('no non-loopback IPv4 address on this machine: the listener check is skipped, the refusal is still checked');
		const execution = await executeWorkflow(ids.remote);
		expect(execution.status).toBe('error');
		expect(executionError(execution)?.message).toBe('Nothing was sent for this item: Derived idempotency keys are refused in a run started in the editor');
		expect(executionError(execution)?.description).toMatch(/Idempotency Key → Business Key/);
		expect(listenerHits).toBe(0);
	});
});
