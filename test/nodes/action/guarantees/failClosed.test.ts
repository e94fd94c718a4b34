/**
 * Issue 34: every guard fails closed, inside n8n-core's real contexts against the sandbox. A switch
 * that is not a clear on or off stops the run; a tool run's money fields are the model's however they
 * are written; Derived keys are refused in every mode a person, a model or n8n repeats; Max Total per
 * Run counts what is actually sent. Each test counts what reached the sandbox.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../../../../harness/n8nContexts';
import { walletOf } from '../../../../harness/sandboxClient';
import { json, node, orderCount, payment, useEnv } from '../support';

const env = useEnv();

const writes = async () => (await env.requests()).filter((r) => r.method !== 'GET');
/** A Production credential off this machine: a refusal sends nothing, anything else tries to connect. */
const production = { apiKey: 'k', baseUrl: 'https://api.clearinghouse.example' };

describe('Dry Run read fail-closed', () => {
	test.each([
		['the text "true"', '={{ "true" }}', {}],
		['the text "TRUE"', '={{ "TRUE" }}', {}],
		['the number 1', '={{ 1 }}', {}],
		['the text "1"', '={{ "1" }}', {}],
		['$json holding "true" (a $vars or $env value is text too)', '={{ $json.dryRun }}', { dryRun: 'true' }],
	])('%s is on: no write is sent, the item says what would have been', async (_what, dryRun, item) => {
		const before = await orderCount(env);
		const out = json(await env.run(payment(env, { options: { dryRun } }), { items: [{ json: item }] }));
		expect(out[0]).toMatchObject({ dryRun: true, sent: false });
		expect(await writes()).toEqual([]);
		expect(await orderCount(env)).toBe(before);
	});

	test.each([
		['the text "false"', '={{ "false" }}', {}, 'the text "false"'],
		['the text "yes"', '={{ "yes" }}', {}, 'the text "yes"'],
		['the number 0', '={{ 0 }}', {}, 'number 0'],
		['empty text', '={{ "" }}', {}, 'the text ""'],
		['an expression that gives nothing', '={{ $json.dryRun }}', {}, 'nothing (the expression gave no value)'],
		['null', '={{ null }}', {}, 'object null'],
	])('%s is refused before anything is sent, naming Dry Run and the value', async (_what, dryRun, item, shown) => {
		await expect(env.run(payment(env, { options: { dryRun } }), { items: [{ json: item }] })).rejects.toMatchObject({
			message: `Dry Run must be true or false, and only a real false turns it off (got ${shown}). Nothing was sent. Write it as a true/false expression, e.g. {{ $vars.DRY_RUN === 'true' }}`,
		});
		expect(await env.requests()).toEqual([]);
	});

	test('a real false, an expression giving false, and leaving it unset pay', async () => {
		for (const options of [{ dryRun: false }, { dryRun: '={{ "on" === "off" }}' }, {}]) {
			const [out] = json(await env.run(payment(env, { options })));
			expect(out.created).toBe(true);
		}
		expect((await writes()).length).toBe(3);
	});

	test('Check Account Limits First: "false" text is refused, "true" text reads the limits first', async () => {
		await expect(env.run(payment(env, { options: { checkLimits: '={{ "false" }}' } }))).rejects.toThrow(
			/^Check Account Limits First must be true or false, and only a real false turns it off \(got the text "false"\)/,
		);
		expect(await env.requests()).toEqual([]);
		await env.run(payment(env, { options: { checkLimits: '={{ "true" }}' } }));
		expect((await env.requests()).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/account/limits', 'POST /api/v1/payment']);
	});

	test('Allow Derived Keys in Editor and Sub-Workflow Runs: "yes" is refused (by its validateType in n8n); "false" keeps the refusal', async () => {
		await expect(runNode(node, { parameters: payment(env, { allowDerivedInNewRuns: '={{ "yes" }}' }), credentials: production })).rejects.toThrow(
			"Invalid input for 'Allow Derived Keys in Editor and Sub-Workflow Runs'",
		);
		await expect(runNode(node, { parameters: payment(env, { allowDerivedInNewRuns: '={{ "false" }}' }), credentials: production })).rejects.toThrow(
			/Derived idempotency keys are refused in a run started in the editor/,
		);
	});
});

describe('Derived keys refused in every mode a person, a model or n8n repeats', () => {
	test.each([
		['cli', 'started from the command line (n8n execute)'],
		['chat', 'started by a chat message'],
		['evaluation', 'started by an evaluation'],
		['agent', "started by n8n's agent"],
		['error', 'started as an error workflow'],
		['internal', 'started internally by n8n'],
		['aModeOfTomorrow', 'of a kind this node does not know (n8n execution mode "aModeOfTomorrow")'],
	])('mode %s: refused before anything is sent', async (mode, said) => {
		await expect(runNode(node, { parameters: payment(env), credentials: production, mode: mode as never })).rejects.toThrow(
			`Derived idempotency keys are refused in a run ${said}`,
		);
	});

	test("an AI agent's tool call, whatever mode started the agent's execution", async () => {
		const limited = payment(env, { spendLimits: { maxAmountPerOrder: '500', allowedRecipients: walletOf(env.bob, 'ethereum') } });
		for (const mode of ['trigger', 'webhook'] as const) {
			await expect(runNode(node, { parameters: limited, credentials: production, mode, asTool: true })).rejects.toThrow(
				"Derived idempotency keys are refused in a run made as an AI agent's tool call",
			);
		}
	});

	test('trigger and webhook runs still send Derived keys (each is a new event)', async () => {
		for (const mode of ['trigger', 'webhook'] as const) {
			const [out] = json(await env.run(payment(env), { mode, executionId: `m-${mode}` }));
			expect(out.created).toBe(true);
		}
	});
});

describe("a tool run is a model run: the agent's tool call is the input item", () => {
	const bob = () => walletOf(env.bob, 'ethereum');
	/** The model's tool call, as n8n 2.40.7 hands it to the tool node (its input item). */
	const toolCall = () => ({
		fromUserId: env.alice.id,
		toAddress: bob(),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: '49999.50',
		invoiceNumber: 'INV-agent-1',
	});
	const asTool = (parameters: INodeParameters) => env.run(parameters, { items: [{ json: toolCall() }], asTool: true, mode: 'trigger' });
	const mapAutomatically = (extra: INodeParameters = {}) =>
		payment(env, { dataMode: 'autoMapInputData', idempotencyKeyMode: 'custom', businessKeyField: 'invoiceNumber', ...extra });
	const definedBelow = (extra: INodeParameters = {}) =>
		payment(env, {
			amountUsd: '={{ $json.amountUsd }}',
			toAddress: '={{ $json.toAddress }}',
			idempotencyKeyMode: 'custom',
			idempotencyKey: '={{ $json.invoiceNumber }}',
			...extra,
		});

	test.each([
		['Map Automatically', mapAutomatically],
		['Define Below with {{ $json.amountUsd }}', definedBelow],
		['Define Below with fixed values', (extra: INodeParameters = {}) => payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: 'INV-fixed', ...extra })],
	])('%s without limits pays nothing, naming the missing limit', async (_how, parameters) => {
		await expect(asTool(parameters())).rejects.toThrow(
			/^This node runs as an AI agent's tool, so Amount \(USD\) comes from the model .* but Spend Limits → Max Amount per Order \(USD\) is not set/,
		);
		await expect(asTool(parameters({ spendLimits: { maxAmountPerOrder: '100' } }))).rejects.toThrow(/Spend Limits → Allowed Recipients is not set/);
		expect(await env.requests()).toEqual([]);
	});

	test('with both limits set it pays within them and refuses beyond them', async () => {
		const limits = () => ({ spendLimits: { maxAmountPerOrder: '100', allowedRecipients: bob() } });
		await expect(asTool(mapAutomatically(limits()))).rejects.toThrow(/Max Amount per Order \(USD\): the order asks for 49999.5 USD, over the limit of 100 USD/);
		expect(await writes()).toEqual([]);
		const within = await env.run(mapAutomatically(limits()), { items: [{ json: { ...toolCall(), amountUsd: '12.5' } }], asTool: true, mode: 'trigger' });
		expect(json(within)[0]).toMatchObject({ created: true, amountUsd: 12.5 });
	});

	test('a limit or Dry Run read from the tool call is refused: the model would choose it', async () => {
		const limits = { maxAmountPerOrder: '={{ $json.amountUsd }}', allowedRecipients: bob() };
		await expect(asTool(mapAutomatically({ spendLimits: limits }))).rejects.toThrow(/^Spend Limits may not read the AI agent's tool call/);
		const dry = { spendLimits: { maxAmountPerOrder: '100', allowedRecipients: bob() }, options: { dryRun: '={{ $json.dryRun }}' } };
		await expect(asTool(mapAutomatically(dry))).rejects.toThrow(/^Dry Run may not read the AI agent's tool call/);
		expect(await env.requests()).toEqual([]);
	});

	test("Receive Ruleset → Create: Recipient Address is never the model's ($fromAI anywhere, the tool call in a tool run)", async () => {
		const ruleset = (toAddress: string) => ({
			resource: 'receiveRuleset',
			operation: 'create',
			idempotencyKeyMode: 'custom',
			idempotencyKey: 'RS-agent-1',
			deliveredAsset: 'USDC',
			deliveredChain: 'ethereum',
			toAddress,
		});
		await expect(env.run(ruleset("={{ $fromAI('toAddress') }}"), { mode: 'trigger' })).rejects.toThrow(/^Recipient Address may not be left to an AI model/);
		await expect(asTool(ruleset('={{ $json.toAddress }}'))).rejects.toThrow(/^Recipient Address may not read the AI agent's tool call/);
		expect(await env.requests()).toEqual([]);
		const [made] = json(await asTool(ruleset(bob())));
		expect(made.toAddress).toBe(bob());
	});
});

describe('Max Total per Run counts what is actually sent', () => {
	test('an amount that reads 1 before the run and 600 when sent is refused under a limit of 10', async () => {
		let reads = 0;
		// An input whose amount changes between the batch check and the send (an expression over a
		// changing source, $now, a random value): the first read gives 1, every later one 600.
		const item = {
			get amount() {
				reads++;
				return reads === 1 ? '1' : '600';
			},
		};
		const parameters = payment(env, { amountUsd: '={{ $json.amount }}', spendLimits: { maxTotalPerRun: '10' } });
		await expect(env.run(parameters, { items: [{ json: item as never }], mode: 'trigger' })).rejects.toThrow(
			"Spend limit Max Total per Run (USD): this order's 600 USD would bring what this run sends to 600 USD, over the limit of 10 USD",
		);
		expect(reads).toBeGreaterThan(1);
		expect(await writes()).toEqual([]);
	});

	test('a batch within the limit pays; the order that would cross it is refused and the earlier ones are said', async () => {
		const items = ['4', '4', '4'].map((amount) => ({ json: { amount } }));
		const parameters = payment(env, { amountUsd: '={{ $json.amount }}', spendLimits: { maxTotalPerRun: '10' }, options: { concurrency: 1 } });
		// The batch check before any item refuses 12 > 10 already: nothing is sent.
		await expect(env.run(parameters, { items, mode: 'trigger' })).rejects.toThrow(/the 3 orders of this run ask for 12 USD in total/);
		expect(await writes()).toEqual([]);
		const two = json(await env.run(parameters, { items: items.slice(0, 2), mode: 'trigger' }));
		expect(two.map((o) => o.created)).toEqual([true, true]);
	});
});
