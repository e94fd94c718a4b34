/**
 * Every error that proposes a fix, followed as a person would: the error is provoked over real HTTP
 * (against the sandbox, or the sandbox behind a Front that loses answers, drops its mark or speaks of
 * a status this node does not know), the field or setting the advice names is changed, and the run
 * succeeds. The refusals of Chain, Asset, who pays whom and the limits are followed in serviceErrors.test.ts,
 * dead and earlier-period orders in foundOrder.test.ts, the trigger's and Recover's in test/nodes/trigger.
 */
import type { INodeParameters } from 'n8n-workflow';
import { createRunExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { userOf, walletOf } from '../../../../harness/sandboxClient';
import { instantQuote, node, orderCount, payment, useEnv, type NodeEnv } from '../support';
import { Front } from '../../../../harness/front';
import { loadOptions, runNode, type TestCredentials } from '../../../../harness/n8nContexts';
import { Receiver } from '../../../../harness/receiver';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();
let front: Front;
beforeEach(async () => {
	front = await new Front(env.sb.mainUrl).start();
});
afterEach(async () => await front.close());

const sandboxAt = (baseUrl: string): TestCredentials => ({ apiKey: env.sb.apiKey, baseUrl, rewardsUrl: env.sb.rewardsUrl, environment: 'sandbox' });

async function failure(run: Promise<unknown>): Promise<NodeApiError | NodeOperationError> {
	try {
		await run;
	} catch (error) {
		return error as NodeApiError;
	}
	throw new Error('expected the node to fail');
}

/** A standard order of alice to bob with a Business Key. */
const keyed = (env: NodeEnv, key: string, extra: INodeParameters = {}): INodeParameters =>
	payment(env, { idempotencyKeyMode: 'custom', idempotencyKey: key, ...extra });

describe('the transport: what it proposes works', () => {
	test('"did not answer as the sandbox": setting Environment to Production for that URL pays; so does a Base URL that reaches the sandbox itself', async () => {
		front.treat = () => ({ dropHeaders: ['x-clearinghouse-sandbox'] });
		const error = await failure(runNode(node, { parameters: keyed(env, 'PROOF-1'), credentials: sandboxAt(front.url) }));
		expect(error.message).toContain(`but ${front.url} did not answer as the sandbox`);
		expect(error.description).toContain('If this URL is the real service, set the credential\'s Environment to "Production (real money)"');
		expect(await orderCount(env)).toBe(0);

		// "If this URL is the real service": Production (http:// is allowed on this machine only).
		const production = { ...sandboxAt(front.url), environment: 'production' as const };
		const [[paid]] = await runNode(node, { parameters: keyed(env, 'PROOF-1'), credentials: production });
		expect(paid.json).toMatchObject({ created: true, status: 'AWAITING_FUNDS' });
		// "If it is the sandbox, check that the Base URL reaches it and not something in front of it."
		const [[again]] = await runNode(node, { parameters: keyed(env, 'PROOF-2'), credentials: sandboxAt(env.sb.mainUrl) });
		expect(again.json).toMatchObject({ created: true, status: 'AWAITING_FUNDS' });
		expect(await orderCount(env)).toBe(2);
	});

	test('"Could not connect": the Base URL corrected to where the service runs pays, and nothing was sent before', async () => {
		const gone = await new Receiver().start();
		const closedUrl = gone.url;
		await gone.close();
		const error = await failure(runNode(node, { parameters: keyed(env, 'CONN-1'), credentials: sandboxAt(closedUrl) }));
		// The first request of Create is a read (the supported chains and assets): nothing was written either way.
		expect(error.message).toMatch(/^Could not connect to the Clearinghouse API/);
		expect(error.description).toContain(
			'Check the Base URL / Rewards URL of the credential and that the service (or the local sandbox) is running, then run it again.',
		);
		expect(await orderCount(env)).toBe(0);
		const [[paid]] = await runNode(node, { parameters: keyed(env, 'CONN-1'), credentials: sandboxAt(env.sb.mainUrl) });
		expect(paid.json).toMatchObject({ created: true, status: 'AWAITING_FUNDS' });
		expect(await orderCount(env)).toBe(1);
	});

	test('"The answer was lost" with a Business Key: running again with the same Business Key returns the order made, and pays nothing twice', async () => {
		front.treat = ({ method, path }) => (method === 'POST' && path === '/api/v1/payment' ? { loseAnswer: true } : undefined);
		const error = await failure(runNode(node, { parameters: keyed(env, 'LOST-1'), credentials: sandboxAt(front.url), mode: 'webhook' }));
		expect(error.message).toMatch(
			/^The answer was lost: the service may have made .*Only Retry of this execution \(or a run with the same Business Key\) is safe$/,
		);
		expect(await orderCount(env)).toBe(1); // the service made it; its answer never came back
		front.treat = () => undefined;
		const [[found]] = await runNode(node, { parameters: keyed(env, 'LOST-1'), credentials: sandboxAt(front.url), mode: 'webhook', executionId: '2' });
		expect(found.json).toMatchObject({ status: 'AWAITING_FUNDS', idempotencyKey: 'LOST-1' });
		expect(await orderCount(env)).toBe(1);
	});

	test('"The answer was lost" with a Derived key: Retry of this execution returns the order made, and pays nothing twice', async () => {
		front.treat = ({ method, path }) => (method === 'POST' && path === '/api/v1/payment' ? { loseAnswer: true } : undefined);
		const data = createRunExecutionData();
		const credentials = sandboxAt(front.url);
		const error = await failure(runNode(node, { parameters: payment(env), credentials, mode: 'webhook', executionId: '1', runExecutionData: data }));
		expect(error.message).toContain('Only Retry of this execution');
		expect(error.description).toContain('Retry this execution from the executions list');
		expect(await orderCount(env)).toBe(1);
		front.treat = () => undefined;
		// n8n's Retry: a new execution id, mode "retry", the failed execution's run data.
		const [[found]] = await runNode(node, { parameters: payment(env), credentials, mode: 'retry', executionId: '2', runExecutionData: data });
		expect(found.json.status).toBe('AWAITING_FUNDS');
		expect(await orderCount(env)).toBe(1);
	});
});

describe('Create: what it proposes works', () => {
	test('an order found by its key in a status the node does not know: Payment Order → Get shows it, and a new Business Key pays', async () => {
		const [[made]] = await runNode(node, { parameters: keyed(env, 'ODD-1'), credentials: sandboxAt(front.url) });
		const id = String(made.json.id);
		// A service newer than this node: the order stands in a status the spec does not list.
		const renamed = (body: any): any => {
			if (Array.isArray(body)) return body.map(renamed);
			if (!body || typeof body !== 'object') return body;
			const out = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, renamed(v)]));
			return out.id === id && typeof out.status === 'string' ? { ...out, status: 'ON_HOLD' } : out;
		};
		front.treat = () => ({ rewrite: renamed });
		const error = await failure(runNode(node, { parameters: keyed(env, 'ODD-1'), credentials: sandboxAt(front.url) }));
		expect(error.message).toContain(`belongs to payment order ${id}`);
		expect(error.message).toContain('whose status ON_HOLD this node does not know');
		expect(error.description).toContain('Check the order (Payment Order → Get) before paying again; a new Business Key pays anew.');
		// Followed: Get shows the order and its status...
		const [[got]] = await runNode(node, {
			parameters: { resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: id } },
			credentials: sandboxAt(front.url),
		});
		expect(got.json).toMatchObject({ id, status: 'ON_HOLD' });
		// ...and a new Business Key pays anew.
		const [[paid]] = await runNode(node, { parameters: keyed(env, 'ODD-1-2'), credentials: sandboxAt(front.url) });
		expect(paid.json).toMatchObject({ created: true, status: 'AWAITING_FUNDS' });
		expect(await orderCount(env)).toBe(2);
	});

	test('"Quote ID is required for instant orders": a quote made with Quote → Create, its quoteId in Quote ID, pays', async () => {
		const error = await failure(env.run(payment(env, { mode: 'instant', amountUsd: '50', quoteId: '' })));
		expect(error.message).toBe('Quote ID is required for instant orders');
		expect(error.description).toContain('Create a quote first with Quote → Create and map its quoteId into Quote ID');
		const [order] = await env.run(payment(env, { mode: 'instant', amountUsd: '50', quoteId: await instantQuote(env) }));
		expect(order.json).toMatchObject({ mode: 'instant', created: true });
	});

	test('"Expires At is not accepted for instant orders": Expires set to "In a Number of Minutes" pays', async () => {
		const quoteId = await instantQuote(env);
		const instant = { mode: '={{ "instant" }}', amountUsd: '50', additionalFields: { quoteId } };
		const error = await failure(env.run(payment(env, { ...instant, expiry: 'at', expiresAt: '2030-01-01T00:00:00Z' })));
		expect(error.message).toContain('Expires At is not accepted for instant orders');
		expect(error.description).toContain('Set Expires to "In a Number of Minutes"');
		const [order] = await env.run(payment(env, { ...instant, expiry: 'inMinutes' }));
		expect(order.json).toMatchObject({ mode: 'instant', created: true });
	});

	test('"Subaccount ID is not accepted for instant orders": the subaccount given to Quote → Create instead pays from that subaccount', async () => {
		const carol = userOf(env.state, 'carol');
		const subaccountId = env.state.subaccounts[0].id;
		const toCarol = { fromUserId: carol.id, toAddress: walletOf(carol, 'ethereum'), amountUsd: '50' };
		const error = await failure(env.run(payment(env, { ...toCarol, mode: '={{ "instant" }}', additionalFields: { quoteId: 'q-1', subaccountId } })));
		expect(error.message).toBe('Subaccount ID is not accepted for instant orders');
		expect(error.description).toContain('Give the subaccount to Create Quote instead');
		const quoteId = await instantQuote(env, { subaccountId }, walletOf(carol, 'ethereum'));
		const [order] = await env.run(payment(env, { ...toCarol, mode: 'instant', quoteId }));
		expect(order.json).toMatchObject({ mode: 'instant', created: true });
		const [got] = await env.run({
			resource: 'paymentOrder',
			operation: 'get',
			paymentOrderId: { mode: 'id', value: String(order.json.id) },
			options: { subaccountId },
		});
		// Read in the subaccount's scope: the order is the subaccount's.
		expect(got.json.id).toBe(order.json.id);
	});
});

describe('Webhook Endpoint → Recover: what it proposes works', () => {
	test('"this n8n\'s webhook address could not be read": All Endpoints of the Account recovers without it', async () => {
		const webhookUrl = 'http://127.0.0.1:5690/';
		const ours = await env.client.api('POST', '/webhooks/endpoints', {
			url: `${webhookUrl}webhook/3f1c/webhook`,
			description: 'ours',
			eventTypes: ['payment_order'],
		});
		const recover = (scope: string, webhookWaitingBaseUrl: string) =>
			env.run({ resource: 'webhookEndpoint', operation: 'recover', scope, maxReplays: 10 }, { additionalData: { webhookWaitingBaseUrl } });
		// n8n's resume URL is <WEBHOOK_URL><waiting path>/<execution id>: with an empty waiting path
		// (N8N_ENDPOINT_WEBHOOK_WAIT="") the address cannot be told from it. (WEBHOOK_URL has no part in this:
		// n8n always has one, localhost:5678 when it is not set, so the message does not send people there.)
		const error = await failure(recover('thisN8n', 'http://127.0.0.1:5690'));
		expect(error.message).toBe(
			"Endpoints: this n8n's webhook address could not be read from its resume URL. Choose All Endpoints of the Account or One Endpoint",
		);
		const all = await recover('all', 'http://127.0.0.1:5690');
		expect(all.map((item) => item.json.endpointId)).toEqual([ours.id]);
		const one = await env.run(
			{ resource: 'webhookEndpoint', operation: 'recover', scope: 'one', endpointId: { mode: 'id', value: ours.id }, maxReplays: 10 },
			{ additionalData: { webhookWaitingBaseUrl: 'http://127.0.0.1:5690' } },
		);
		expect(one.map((item) => item.json.endpointId)).toEqual([ours.id]);
		// With n8n's usual waiting path the same scope finds this n8n's endpoint.
		const found = await recover('thisN8n', `${webhookUrl}webhook-waiting`);
		expect(found.map((item) => item.json.endpointId)).toEqual([ours.id]);
	});
});

describe('the Chain and Asset dropdowns: what their reason proposes works', () => {
	const create = { resource: 'paymentOrder', operation: 'create' };
	const listed = async (credentials: TestCredentials) => ({
		chains: ((await loadOptions(node, 'getChains', { parameters: create, credentials })) as Array<{ value: string }>).map((o) => o.value),
		assets: ((await loadOptions(node, 'getAssets', { parameters: create, credentials })) as Array<{ value: string }>).map((o) => o.value),
	});
	const reason = async (credentials: TestCredentials, method: string): Promise<string> =>
		(await failure(loadOptions(node, method, { parameters: create, credentials }))).message;
	const pairs = () => env.state.supportedAssets as Array<{ chain: string; symbol: string }>;

	test('401 "paste this account\'s API key": the key the reason names, pasted in the credential, loads both lists', async () => {
		const wrong = { ...sandboxAt(env.sb.mainUrl), apiKey: 'sk_live_pasted_from_elsewhere' };
		for (const method of ['getChains', 'getAssets']) {
			const message = await reason(wrong, method);
			expect(message).toContain('did not accept the API Key of the credential "Clearinghouse sandbox" (401)');
			expect(message).toContain("Open the credential, paste this account's API key");
		}
		// Followed as written: the key the reason gives for the local sandbox goes into the credential.
		const named = /its demo key is (\S+?)\)/.exec(await reason(wrong, 'getChains'))?.[1];
		expect(named).toBeDefined();
		const { chains, assets } = await listed({ ...wrong, apiKey: String(named) });
		expect(chains).toEqual([...new Set(pairs().map((p) => p.chain))].sort());
		expect(assets).toEqual([...new Set(pairs().map((p) => p.symbol))].sort());
	});

	test('404 "Set the Base URL … to the API origin": a Base URL pasted with the API path, set to the origin, loads both lists', async () => {
		// A person copies a URL with a path into Base URL (/api/v1 alone the node strips; /api it cannot know).
		const pasted = sandboxAt(`${env.sb.mainUrl.replace(/\/+$/, '')}/api`);
		for (const method of ['getChains', 'getAssets']) {
			const message = await reason(pasted, method);
			expect(message).toContain('answers as the Clearinghouse API (404), so this list cannot load.');
			expect(message).toContain('Set the Base URL of the credential "Clearinghouse sandbox" to the API origin');
		}
		// Followed: the origin (scheme, host and port) of the URL pasted.
		const { chains, assets } = await listed(sandboxAt(new URL(pasted.baseUrl!).origin));
		expect(chains).toEqual([...new Set(pairs().map((p) => p.chain))].sort());
		expect(assets).toEqual([...new Set(pairs().map((p) => p.symbol))].sort());
	});
});

describe('a write without an idempotency key that failed (500/503): "Check with Get before sending it again" works', () => {
	const hint = 'The service failed and may or may not have acted on this request. Check with Get before sending it again.';
	const cancel = (id: string) => ({ resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { mode: 'id', value: id }, reason: 'not needed' });
	const order = async (key: string) => String((await env.run(keyed(env, key)))[0].json.id);
	// A cancel is deferred (202): Get shows it taken by cancelRequestedAt, the status follows later.
	const cancelRequested = async (id: string) =>
		(await env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: id } }))[0].json.cancelRequestedAt ?? null;

	test('503 after the service took the cancel: Get shows it taken, so it need not be sent again', async () => {
		const id = await order('CXL-ACTED-1');
		front.treat = ({ method, path }) => (method === 'POST' && path.endsWith('/cancel') ? { status: 503 } : undefined);
		const error = await failure(runNode(node, { parameters: cancel(id), credentials: sandboxAt(front.url) }));
		expect((error as NodeApiError).httpCode).toBe('503');
		expect(`${error.message} ${error.description ?? ''}`).toContain(hint);
		// Followed: Get shows the service acted.
		expect(await cancelRequested(id)).toEqual(expect.any(String));
	});

	test('503 before the service acted: Get shows no cancel taken, and sending it again cancels', async () => {
		const id = await order('CXL-NOT-ACTED-1');
		await env.op('POST', '/sandbox/faults', { method: 'POST', path: '/cancel$', status: 503, count: 1 });
		const error = await failure(env.run(cancel(id)));
		expect(`${error.message} ${error.description ?? ''}`).toContain(hint);
		// Followed: Get shows it did not act, so the cancel is sent again, and is taken.
		expect(await cancelRequested(id)).toBeNull();
		const [done] = await env.run(cancel(id));
		expect(done.json).toMatchObject({ paymentOrderId: id, accepted: true });
		expect(await cancelRequested(id)).toEqual(expect.any(String));
	});
});

describe('a reused key outside Create and Receive Ruleset: what it proposes works', () => {
	const definition = (amount: string) =>
		JSON.stringify({
			measure: { type: 'daily_balance', metricKey: 'balance_usd' },
			condition: { type: 'always' },
			payout: { type: 'fixed', amount },
			limits: [{ type: 'cap_per_period', amount: '50.00' }],
		});
	const rule = (key: string, amount: string): INodeParameters => ({
		resource: 'rewardRule',
		operation: 'create',
		name: 'Balance bonus',
		definition: definition(amount),
		idempotencyKeyMode: 'custom',
		idempotencyKey: key,
	});

	test('Reward Rule → Create, its payout changed under the same Business Key: Get Many shows the rule made, and a new Business Key makes the new one', async () => {
		const [made] = await env.run(rule('RULE-1', '5.00'), { executionId: '301' });
		// The person changes the payout and runs the workflow anew with the same Business Key.
		const error = await failure(env.run(rule('RULE-1', '6.00'), { executionId: '302' }));
		expect(error.message).toBe("This item's reward rule already exists with other values: check it before writing again");
		expect(error.description).toContain('Check the existing reward rule (Reward Rule → Get Many). To make a new one on purpose, use a new Business Key.');
		// A new run was what the person did: it did not make a new rule, so the advice does not offer it for a Business Key.
		expect(error.description).not.toContain('run the workflow anew');
		// Followed: Get Many shows the rule the key made, with its first payout...
		const rules = await env.run({ resource: 'rewardRule', operation: 'getMany', returnAll: true });
		const existing = rules.filter((r) => r.json.id === made.json.id);
		expect(existing).toHaveLength(1);
		expect(JSON.stringify(existing[0].json)).toContain('"5.00"');
		// ...and a new Business Key makes the new one.
		const [second] = await env.run(rule('RULE-2', '6.00'), { executionId: '303' });
		expect(second.json.id).toEqual(expect.any(String));
		expect(second.json.id).not.toBe(made.json.id);
	});
});

describe('a reused key of Set Return Details: what it proposes works', () => {
	test('other return details under the same Business Key: Get shows the details sent, and a new Business Key replaces them', async () => {
		const id = String((await env.run(keyed(env, 'RD-ORDER-1')))[0].json.id);
		const details = (key: string, chain: string): INodeParameters => ({
			resource: 'paymentOrder',
			operation: 'setReturnDetails',
			paymentOrderId: { mode: 'id', value: id },
			userId: env.alice.id,
			wallets: { wallet: [{ chain, address: walletOf(env.alice, chain) }] },
			idempotencyKeyMode: 'custom',
			idempotencyKey: key,
		});
		await env.run(details('RD-1', 'ethereum'), { executionId: '401' });
		// The person changes the return wallet and runs the workflow anew with the same Business Key.
		const error = await failure(env.run(details('RD-1', 'base'), { executionId: '402' }));
		expect(error.message).toBe(
			"This item's return details were already sent with this key with other values or another expected revision: check the order's return details before writing again",
		);
		// The read it names is the one the test follows below (return details have no Get Many).
		expect(error.description).toContain(
			'Check the existing return details (Payment Order → Get, its return details). To make a new one on purpose, use a new Business Key.',
		);
		const returnsOf = async () =>
			JSON.stringify((await env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: id } }))[0].json.returns);
		// Followed: the order's return details are the ones the key sent...
		expect(await returnsOf()).toContain(walletOf(env.alice, 'ethereum'));
		expect(await returnsOf()).not.toContain(walletOf(env.alice, 'base'));
		expect(walletOf(env.alice, 'base')).not.toBe(walletOf(env.alice, 'ethereum'));
		// ...and a new Business Key replaces them.
		await env.run(details('RD-2', 'base'), { executionId: '403' });
		expect(await returnsOf()).toContain(walletOf(env.alice, 'base'));
	});
});

describe('a tool run\'s spend limits: "Set the limit in the node" / "Set it in the node" followed pays within them', () => {
	/** The model's tool call, as n8n 2.40.7 hands it to the tool node (its input item). */
	const toolCall = () => ({
		fromUserId: env.alice.id,
		toAddress: walletOf(env.bob, 'ethereum'),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: '12.5',
		reference: 'INV-agent-1',
	});
	const asTool = (spendLimits: INodeParameters) =>
		env.run(payment(env, { dataMode: 'autoMapInputData', idempotencyKeyMode: 'custom', idempotencyKey: 'AGENT-1', spendLimits }), {
			items: [{ json: toolCall() }],
			asTool: true,
			mode: 'trigger',
		});
	/** The Spend Limits field a message names, as a person finds it in the node: its label to its parameter. */
	const FIELDS: Record<string, string> = { 'Max Amount per Order (USD)': 'maxAmountPerOrder', 'Allowed Recipients': 'allowedRecipients' };
	const VALUES: Record<string, () => string> = { maxAmountPerOrder: () => '100', allowedRecipients: () => walletOf(env.bob, 'ethereum') };

	test('each missing limit the refusal names, set in the node, is the next step; with them set the tool run pays', async () => {
		const limits: INodeParameters = {};
		for (let step = 0; step < 2; step++) {
			const error = await failure(asTool(limits));
			expect(error.message).toMatch(/Set the limit in the node$/);
			const label = /but Spend Limits → (.+?) is not set/.exec(error.message)?.[1] ?? '';
			const field = FIELDS[label];
			expect(field).toBeDefined();
			limits[field] = VALUES[field]();
		}
		expect(await orderCount(env)).toBe(0);
		const [paid] = await asTool(limits);
		expect(paid.json).toMatchObject({ created: true, amountUsd: 12.5 });
	});

	test('a limit read from the tool call, set in the node instead, pays', async () => {
		const bob = walletOf(env.bob, 'ethereum');
		const error = await failure(asTool({ maxAmountPerOrder: '={{ $json.amountUsd }}', allowedRecipients: bob }));
		expect(error.message).toMatch(/^Spend Limits may not read the AI agent's tool call .*Set it in the node$/);
		expect(await orderCount(env)).toBe(0);
		const [paid] = await asTool({ maxAmountPerOrder: '100', allowedRecipients: bob });
		expect(paid.json).toMatchObject({ created: true, amountUsd: 12.5 });
	});
});
