/**
 * Derived keys in runs that can start again by themselves, inside n8n-core's real contexts against
 * the sandbox with a Production credential (a loopback Base URL counts as production): a webhook
 * call (the Clearinghouse Trigger's event, redelivered when its run fails; a Webhook node's caller
 * retrying), a trigger other than a schedule, an AI agent's tool call. None pays twice; Allow Derived
 * Keys in Editor and Sub-Workflow Runs lifts none of them. And the path n8n does not mark: an agent
 * reaching Create through the Call n8n Workflow Tool (a sub-workflow run) is not a tool run.
 * The real-n8n proof of the redelivery: test/e2e/trigger.test.ts.
 */
import { createRunExecutionData, type INodeParameters, type IRunExecutionData } from 'n8n-workflow';

import { runNode } from '../../../../harness/n8nContexts';
import { walletOf } from '../../../../harness/sandboxClient';
import { json, node, orderCount, payment, useEnv } from '../support';

const env = useEnv();

/** The Production credential at the sandbox: its runs are judged as against real money. */
const production = () => ({ apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl, rewardsUrl: env.sb.rewardsUrl, environment: 'production' as const });

/** The Clearinghouse Trigger's item for one event, as every delivery of that event hands it over. */
const triggerItem = () => ({
	type: 'payment_order',
	eventId: 'evt_0a1b2c3d4e5f6a7b_payment_order',
	orderStateKey: 'po_redelivered:FUNDED',
	paymentOrder: { id: 'po_redelivered', status: 'FUNDED' },
});

/** One execution of Create in `mode`, as n8n starts one for each delivery: a new execution id, new run data. */
let executions = 0;
const execution = (parameters: INodeParameters, mode: 'webhook' | 'trigger' | 'integrated', runExecutionData?: IRunExecutionData) =>
	runNode(node, {
		parameters,
		credentials: production(),
		mode,
		executionId: String(++executions),
		items: [{ json: triggerItem() }],
		runExecutionData: runExecutionData ?? createRunExecutionData(),
	});

/** Run data as n8n 2.x starts an execution from `trigger` (n8n-core establishExecutionContext: the execution's context names it). */
const startedBy = (type: string, name: string) =>
	createRunExecutionData({
		executionData: { runtimeData: { version: 1, establishedAt: Date.now(), source: 'trigger', triggerNode: { name, type } } },
	} as never);

describe('a redelivered webhook event pays once, whatever the key mode', () => {
	test('Derived: both deliveries are refused before anything is sent, naming the Business Key to map; no order (today: 2 orders)', async () => {
		for (let delivery = 1; delivery <= 2; delivery++) {
			await expect(execution(payment(env), 'webhook')).rejects.toMatchObject({
				message: expect.stringContaining('Derived idempotency keys are refused in a run started by a webhook call'),
				description: expect.stringMatching(
					/a new execution with new Derived keys.*Business Key.*\{\{ \$json\.orderStateKey \}\}.*\{\{ \$json\.eventId \}\}.*Webhook node/,
				),
			});
		}
		expect(await orderCount(env)).toBe(0);
		expect(await env.requests({ withSupportedAssets: true })).toEqual([]);
	});

	test('Allow Derived Keys in Editor and Sub-Workflow Runs does not lift it (a redelivery is no run a person repeats)', async () => {
		await expect(execution(payment(env, { allowDerivedInNewRuns: true }), 'webhook')).rejects.toThrow(/refused in a run started by a webhook call/);
		expect(await orderCount(env)).toBe(0);
	});

	test('the Business Key the refusal names: two deliveries of the event, one order', async () => {
		const keyed = payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: '={{ $json.orderStateKey }}' });
		const [first] = json((await execution(keyed, 'webhook'))[0]);
		const [again] = json((await execution(keyed, 'webhook'))[0]);
		expect(first).toMatchObject({ idempotencyKey: 'po_redelivered:FUNDED', created: true });
		expect(again).toMatchObject({ id: first.id, created: false, replayed: true });
		expect(await orderCount(env)).toBe(1);
	});
});

describe('trigger runs: only a Schedule Trigger start keeps Derived keys', () => {
	test('a message-queue trigger (it hands over an unacknowledged message again) is refused, naming it, also with the editor option on', async () => {
		const run = execution(payment(env, { allowDerivedInNewRuns: true }), 'trigger', startedBy('n8n-nodes-base.rabbitmqTrigger', 'RabbitMQ Trigger'));
		await expect(run).rejects.toMatchObject({
			message: expect.stringContaining('refused in a run started by the trigger "RabbitMQ Trigger" (n8n-nodes-base.rabbitmqTrigger)'),
			description: expect.stringContaining('Business Key'),
		});
		expect(await orderCount(env)).toBe(0);
	});

	test('a trigger run whose start n8n does not name (n8n 1.x has no execution context) is refused: fail closed', async () => {
		await expect(execution(payment(env), 'trigger')).rejects.toThrow(/refused in a run started by a trigger n8n did not name/);
		expect(await orderCount(env)).toBe(0);
	});

	test('a Schedule Trigger start (a firing never comes again) sends its Derived key', async () => {
		const [[out]] = await execution(payment(env), 'trigger', startedBy('n8n-nodes-base.scheduleTrigger', 'Schedule Trigger'));
		expect(out.json).toMatchObject({ created: true });
		expect(String(out.json.idempotencyKey)).toMatch(/^n8n-[0-9a-f]{48}$/);
	});
});

describe("an AI agent's tool call keeps its refusal", () => {
	test('Allow Derived Keys in Editor and Sub-Workflow Runs does not lift it: refused, nothing sent (today: an order per call)', async () => {
		const run = runNode(node, {
			parameters: payment(env, { allowDerivedInNewRuns: true, spendLimits: { maxAmountPerOrder: '500', allowedRecipients: walletOf(env.bob, 'ethereum') } }),
			credentials: production(),
			mode: 'manual',
			asTool: true,
		});
		await expect(run).rejects.toMatchObject({
			message: expect.stringContaining("Derived idempotency keys are refused in a run made as an AI agent's tool call"),
			description: expect.stringContaining('Allow Derived Keys in Editor and Sub-Workflow Runs does not'),
		});
		expect(await orderCount(env)).toBe(0);
	});
});

describe("an agent paying through n8n's Call n8n Workflow Tool (Create in the sub-workflow)", () => {
	/** What the Workflow Tool hands the sub-workflow: the model's arguments as the Execute Workflow Trigger's item. */
	const toolArguments = (amountUsd: string) => ({ invoiceNumber: 'INV-2026-0042', toAddress: walletOf(env.bob, 'ethereum'), amountUsd });
	const subWorkflowCreate = (spendLimits?: INodeParameters) =>
		payment(env, {
			toAddress: '={{ $json.toAddress }}',
			amountUsd: '={{ $json.amountUsd }}',
			idempotencyKeyMode: 'custom',
			idempotencyKey: '={{ $json.invoiceNumber }}',
			...(spendLimits ? { spendLimits } : {}),
		});
	const call = (parameters: INodeParameters, amountUsd: string) =>
		runNode(node, { parameters, credentials: production(), mode: 'integrated', items: [{ json: toolArguments(amountUsd) }] });

	test('n8n 2.40.7 does not mark it: it is a sub-workflow run, so no spend limit is required and a model-written amount is paid', async () => {
		const [[out]] = await call(subWorkflowCreate(), '5000');
		expect(out.json).toMatchObject({ created: true, idempotencyKey: 'INV-2026-0042' });
		expect(Number(out.json.amountUsd)).toBe(5000);
	});

	test('with the limits the docs say to set in that Create (fixed values), the same call is refused before anything is sent', async () => {
		await env.mark();
		const limited = subWorkflowCreate({ maxAmountPerOrder: '1000', allowedRecipients: walletOf(env.bob, 'ethereum') });
		await expect(call(limited, '5000')).rejects.toThrow(/Max Amount per Order/);
		expect(await orderCount(env)).toBe(0);
		const [[out]] = await call(limited, '120.5');
		expect(out.json).toMatchObject({ created: true, idempotencyKey: 'INV-2026-0042' });
	});
});

/** Run data of a sub-workflow as n8n 2.40.7 starts one: the caller's execution context, whose trigger names the run at the top. */
const calledBy = (type: string, name: string) =>
	createRunExecutionData({
		executionData: { runtimeData: { version: 1, establishedAt: Date.now(), source: 'integrated', triggerNode: { name, type }, parentExecutionId: '7' } },
	} as never);

describe('a sub-workflow follows the run that called it', () => {
	test("called by a webhook's run (its caller redelivers): Derived refused also with Allow Derived Keys in Editor and Sub-Workflow Runs on, nothing sent (before: an order per delivery)", async () => {
		for (let delivery = 1; delivery <= 2; delivery++) {
			const run = execution(payment(env, { allowDerivedInNewRuns: true }), 'integrated', calledBy('CUSTOM.clearinghouseTrigger', 'Clearinghouse Trigger'));
			await expect(run).rejects.toMatchObject({
				message: expect.stringContaining(
					'refused in a run started as a sub-workflow of a run started by "Clearinghouse Trigger" (CUSTOM.clearinghouseTrigger), which can start again by itself',
				),
				description: expect.stringMatching(/Business Key.*\{\{ \$json\.orderStateKey \}\}.*does not\)/),
			});
		}
		expect(await orderCount(env)).toBe(0);
		expect(await env.requests({ withSupportedAssets: true })).toEqual([]);
	});

	test('called by a run whose start n8n does not name: refused with the option on (fail closed)', async () => {
		await expect(execution(payment(env, { allowDerivedInNewRuns: true }), 'integrated')).rejects.toThrow(
			/refused in a run started as a sub-workflow of a run whose start n8n did not name/,
		);
		expect(await orderCount(env)).toBe(0);
	});

	test.each([
		['n8n-nodes-base.manualTrigger', 'When clicking ‘Execute workflow’'],
		['n8n-nodes-base.scheduleTrigger', 'Schedule Trigger'],
	])('called by a run started by %s: the option decides, as in the editor', async (type, name) => {
		await expect(execution(payment(env), 'integrated', calledBy(type, name))).rejects.toMatchObject({
			message: expect.stringContaining('refused in a run started as a sub-workflow (Execute Workflow)'),
			description: expect.stringContaining('turn on Allow Derived Keys in Editor and Sub-Workflow Runs'),
		});
		const [[out]] = await execution(payment(env, { allowDerivedInNewRuns: true }), 'integrated', calledBy(type, name));
		expect(out.json).toMatchObject({ created: true });
		expect(await orderCount(env)).toBe(1);
	});
});
