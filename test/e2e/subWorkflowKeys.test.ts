/**
 * Allow Derived Keys in Editor and Sub-Workflow Runs, in a real n8n 2.40.7: a sub-workflow's Create
 * follows the run at the top of its chain, whose start n8n hands the child in its execution context.
 * Called from the editor, the option lets the Derived key through; called from a webhook's run (a
 * caller that retries its request), it does not, so two deliveries pay nothing rather than twice.
 * The rule at node level: test/nodes/action/guarantees/redelivery.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import { executionError, nodeItems, type ExecutionRecord } from '../../harness/executions';
import { N8nInstance, type WorkflowInput } from '../../harness/n8nProcess';
import { N8nRest } from '../../harness/n8nRest';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { action, executeWorkflowNode, executeWorkflowTriggerNode, graph, type NodeSpec } from '../../harness/workflows';

jest.setTimeout(300_000);

describe('a sub-workflow paying with Derived keys and the editor option on, in a real n8n', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let rest: N8nRest;
	const run = randomBytes(3).toString('hex');
	// Production at the sandbox's loopback URL: judged as real money (a loopback URL is no exemption).
	const production = { id: 'chProductionCred1', name: 'Clearinghouse (production)' };
	const ids = { child: 'subKeysChild00001', editor: 'subKeysEditor0001', hook: 'subKeysHook000001' };
	const hookPath = `sub-keys-${run}`;

	/** Execute Workflow → Pay: Create with a Derived key, Allow Derived Keys in Editor and Sub-Workflow Runs on. */
	function child(): WorkflowInput {
		const pay = action('Pay', 'paymentOrder', 'create', {
			mode: 'standard',
			fromUserId: stage.alice.id,
			toAddress: stage.bobEth,
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: '1',
			memo: '={{ $json.memo }}',
			idempotencyKeyMode: 'derived',
			allowDerivedInNewRuns: true,
		});
		const nodes: NodeSpec[] = [executeWorkflowTriggerNode('Called'), pay];
		return { ...graph(ids.child, ids.child, nodes, [['Called', 'Pay']], production), pinData: {} };
	}

	/** `start` → Memo (Code) → Run Payout (Execute Workflow: the child, as published). */
	function parent(id: string, start: NodeSpec, memo: string): WorkflowInput {
		const nodes: NodeSpec[] = [
			start,
			{ name: 'Memo', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: `return [{ json: { memo: ${memo} } }];` } },
			executeWorkflowNode('Run Payout', ids.child),
		];
		return {
			...graph(id, id, nodes, [
				[start.name, 'Memo'],
				['Memo', 'Run Payout'],
			]),
			pinData: {},
		};
	}

	const lastChild = (): ExecutionRecord => {
		const all = n8n.finishedExecutions(ids.child);
		return all[all.length - 1];
	};

	beforeAll(async () => {
		stage = await startSandboxStage();
		n8n = await N8nInstance.create();
		await n8n.importCredential({
			...sandboxCredential(stage.sandbox, production.id, production.name),
			data: { apiKey: stage.sandbox.apiKey, baseUrl: stage.sandbox.mainUrl, rewardsUrl: stage.sandbox.rewardsUrl, environment: 'production' },
		});
		await n8n.importWorkflows([
			child(),
			parent(ids.editor, { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 }, `'editor-${run}'`),
			parent(
				ids.hook,
				{
					name: 'Hook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: hookPath, options: {} },
				},
				'$input.first().json.body.memo',
			),
		]);
		await n8n.start();
		rest = new N8nRest(n8n.baseUrl);
		await rest.setupOwner('owner@subkeys.test', 'SubKeys-Suite-Passw0rd');
		// A parent runs the child's published version (n8n 2.x); the webhook is live once its workflow is published.
		await rest.publish(ids.child);
		await rest.publish(ids.hook);
		await n8n.waitForWebhook(hookPath, true, 60_000);
	});

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test("called from the editor's Execute workflow: the option lets the Derived key through, one order", async () => {
		const before = n8n.finishedExecutions(ids.editor).length;
		await rest.call('POST', `/workflows/${ids.editor}/run`, { triggerToStartFrom: { name: 'Start' } });
		const [done] = (await n8n.waitForExecutions(ids.editor, before + 1, 120_000)).slice(-1);
		expect({ status: done.status, error: executionError(done)?.message, child: executionError(lastChild())?.message }).toEqual({
			status: 'success',
			error: undefined,
			child: undefined,
		});
		expect(nodeItems(lastChild().data, 'Pay')[0]).toMatchObject({ created: true, memo: `editor-${run}` });
		expect(await stage.operator.ordersByMemo(`editor-${run}`)).toEqual({ [`editor-${run}`]: 1 });
	});

	test('called from a webhook run, the same call delivered twice: refused in both child runs before anything is sent, no order', async () => {
		const memo = `hook-${run}`;
		for (let delivery = 1; delivery <= 2; delivery++) {
			const before = n8n.finishedExecutions(ids.child).length;
			const response = await fetch(n8n.webhookUrl(hookPath), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ memo }),
			});
			expect(response.status).toBe(200);
			const [childRun] = (await n8n.waitForExecutions(ids.child, before + 1, 120_000)).slice(-1);
			expect(childRun.status).toBe('error');
			expect(executionError(childRun)?.message).toContain(
				'Derived idempotency keys are refused in a run started as a sub-workflow of a run started by "Hook" (n8n-nodes-base.webhook)',
			);
		}
		expect(await stage.operator.ordersByMemo(memo)).toEqual({});
	});
});
