/**
 * Options → Dry Run: for EVERY operation of the router that offers it, a dry run sends no write
 * (the sandbox's request log holds only GETs) and outputs the request it would have sent, without
 * the key. The operations without it are shown to be reads: a normal run sends only GETs.
 */
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { resources } from '../../../../nodes/Clearinghouse/actions/router';
import { walletOf } from '../../../../harness/sandboxClient';
import { createOrder, json, node, orderCount, payment, useEnv } from '../support';

// A fresh sandbox for each test: the counter-check without Dry Run really writes (deletes, cancels).
const env = useEnv();
let ids: { order: string; endpoint: string; delivery: string; ruleset: string; disabledEndpoint: string };
const url = 'https://127.0.0.1:9/hooks';

beforeEach(async () => {
	const endpoint = await env.client.api('POST', '/webhooks/endpoints', { url, events: ['payment_order'] });
	// A pending secret, so that Promote Secret without Dry Run has something to promote.
	await env.client.api('POST', `/webhooks/endpoints/${endpoint.id}/rotate-secret`, {});
	// An endpoint that skipped the order's event while disabled, so that Recover without Dry Run has
	// something to write (replay it; Recover re-enables only endpoints the service disabled itself).
	const disabled = await env.client.api('POST', '/webhooks/endpoints', { url: `${url}/disabled`, events: ['payment_order'] });
	await env.client.api('PATCH', `/webhooks/endpoints/${disabled.id}`, { status: 'DISABLED' });
	const order = await createOrder(env);
	await env.client.api('PATCH', `/webhooks/endpoints/${disabled.id}`, { status: 'ENABLED' });
	const ruleset = await env.client.api('POST', '/rulesets', {
		deliveredAsset: 'USDC',
		deliveredChain: 'base',
		toAddress: walletOf(env.bob, 'base'),
		name: 'dry run ruleset',
		idempotencyKey: 'dry-run-ruleset',
	});
	await env.op('POST', '/webhooks/flush');
	const deliveries = await env.client.api('GET', `/webhooks/deliveries?endpointId=${endpoint.id}`);
	ids = { order, endpoint: endpoint.id, delivery: deliveries.deliveries[0].id, ruleset: ruleset.id, disabledEndpoint: disabled.id };
	await env.mark();
});

const rl = (value: string) => ({ mode: 'id', value });

/** Parameters under which each operation succeeds against the sandbox. A new operation must be added here. */
const cases: Record<string, () => INodeParameters> = {
	'account.checkBatch': () => ({ amountUsd: '1' }),
	'account.getLimits': () => ({}),
	'depositAddress.getMany': () => ({}),
	'paymentOrder.cancel': () => ({ paymentOrderId: rl(ids.order), reason: 'dry run' }),
	'paymentOrder.create': () => payment(env),
	'paymentOrder.findByKeys': () => ({ businessKey: 'dry-run-no-such-key' }),
	'paymentOrder.get': () => ({ paymentOrderId: rl(ids.order) }),
	'paymentOrder.getMany': () => ({ returnAll: false, limit: 5 }),
	'paymentOrder.setReturnDetails': () => ({
		paymentOrderId: rl(ids.order),
		userId: env.alice.id,
		wallets: { wallet: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] },
		idempotencyKey: 'dry-run-return-details',
	}),
	'paymentOrder.submitTransactions': () => ({ paymentOrderId: rl(ids.order), transactions: { transaction: [{ hash: '0xdryrun', chain: 'ethereum' }] } }),
	'quote.create': () => ({ toChain: 'ethereum', asset: 'USDC', amountUsd: '25', additionalFields: { toAddress: walletOf(env.bob, 'ethereum') } }),
	'receiveRuleset.create': () => ({
		deliveredAsset: 'USDC',
		deliveredChain: 'base',
		toAddress: walletOf(env.bob, 'base'),
		additionalFields: { name: 'dry' },
		idempotencyKey: 'dry-run-ruleset-2',
	}),
	'receiveRuleset.rename': () => ({ rulesetId: ids.ruleset, name: 'dry run renamed' }),
	'rewardRule.create': () => ({ name: 'dry run rule', description: 'never made', idempotencyKey: 'dry-run-rule' }),
	'rewardRule.getMany': () => ({ status: 'active', returnAll: true }),
	'rewardRule.getRuleBlocks': () => ({}),
	'supportedAsset.getMany': () => ({}),
	'user.createOrUpdate': () => ({ label: 'dry-run-dave', wallets: { wallet: [{ chain: 'ethereum', address: '0x1111111111111111111111111111111111111111' }] } }),
	'webhookDelivery.get': () => ({ deliveryId: ids.delivery }),
	'webhookDelivery.getMany': () => ({ returnAll: true }),
	'webhookDelivery.replay': () => ({ deliveryId: ids.delivery }),
	'webhookEndpoint.create': () => ({ url, description: 'dry run endpoint' }),
	'webhookEndpoint.delete': () => ({ endpointId: rl(ids.endpoint) }),
	'webhookEndpoint.get': () => ({ endpointId: rl(ids.endpoint) }),
	'webhookEndpoint.getMany': () => ({ returnAll: true }),
	'webhookEndpoint.recover': () => ({ scope: 'one', endpointId: rl(ids.disabledEndpoint) }),
	'webhookEndpoint.promoteSecret': () => ({ endpointId: rl(ids.endpoint) }),
	'webhookEndpoint.rotateSecret': () => ({ endpointId: rl(ids.endpoint), rotation: 'graceful' }),
	'webhookEndpoint.sendTestEvent': () => ({ endpointId: rl(ids.endpoint) }),
	'webhookEndpoint.update': () => ({ endpointId: rl(ids.endpoint), updateFields: { description: 'dry run update' } }),
};

const operations = Object.entries(resources).flatMap(([resource, { operations: ops }]) =>
	Object.entries(ops)
		.filter(([, module]) => typeof (module as { execute?: unknown })?.execute === 'function')
		.map(([operation, module]) => ({ name: `${resource}.${operation}`, resource, operation, module: module as { description: INodeProperties[] } })),
);

/** Whether the operation's Options collection offers Dry Run. */
const offersDryRun = (description: INodeProperties[]) =>
	description.some((field) => field.name === 'options' && (field.options as INodeProperties[]).some((option) => option.name === 'dryRun'));

/** A sandbox snapshot of what a write would change. */
const snapshot = async () => {
	const state = await env.client.state();
	return JSON.stringify({ counts: state.counts, endpoints: state.webhookEndpoints ?? null, users: state.users.length });
};

test('the table names every operation of the router, and nothing else', () => {
	expect(Object.keys(cases).sort()).toEqual(operations.map((o) => o.name).sort());
	// Every write offers Dry Run (the tests below prove which are writes).
	expect(operations.filter((o) => offersDryRun(o.module.description)).length).toBe(17);
});

describe.each(operations)('$name', ({ name, resource, operation, module }) => {
	if (offersDryRun(module.description)) {
		test('with Dry Run on: no write leaves the node, the output shows the unsent write without the key', async () => {
			const before = await snapshot();
			await env.mark();
			const parameters = { resource, operation, ...cases[name](), options: { dryRun: true } } as INodeParameters;
			const out = await env.run(parameters);
			const requests = await env.requests();
			expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
			expect(out).toHaveLength(1);
			const item = out[0].json as IDataObject;
			expect(item).toMatchObject({ dryRun: true, sent: false, operation: name });
			const request = item.request as IDataObject;
			expect(request.method).not.toBe('GET');
			expect([`${env.sb.mainUrl}/api/v1${String(request.path)}`, `${env.sb.rewardsUrl}/api/v1${String(request.path)}`]).toContain(request.url);
			expect(JSON.stringify(out)).not.toContain(env.sb.apiKey);
			expect(await snapshot()).toBe(before);
			// The same parameters without Dry Run do write: the test above could have failed.
			await env.mark();
			await env.run({ ...parameters, options: {} });
			expect((await env.requests()).some((r) => r.method === request.method)).toBe(true);
		});
	} else {
		test('is a read: a normal run sends only GETs', async () => {
			await env.mark();
			await env.run({ resource, operation, ...cases[name]() } as INodeParameters);
			const requests = await env.requests({ withSupportedAssets: true });
			expect(requests.length).toBeGreaterThan(0);
			expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
		});
	}
});

describe('Payment Order → Create, dry run', () => {
	test("the account limits are read once per run, with the order's subaccount query, and shared by Check Account Limits First", async () => {
		const sub = env.state.subaccounts[0].id;
		await env.mark();
		const items = [{ json: { amount: '10' } }, { json: { amount: '20.5' } }];
		const params = payment(env, { amountUsd: '={{ $json.amount }}', additionalFields: { subaccountId: sub }, options: { dryRun: true, checkLimits: true } });
		expect(await env.run(params, { items })).toHaveLength(2);
		const reads = (await env.requests()).filter((r) => r.path === '/api/v1/account/limits');
		expect(reads.map((r) => r.query)).toEqual([{ subaccountId: sub }]);
	});

	test('a batch: every item shows its exact body and what the read-only checks found; nothing is created', async () => {
		const orders = await orderCount(env);
		await env.mark();
		const items = [{ json: { amount: '10' } }, { json: { amount: '20.5' } }];
		const out = await env.run(
			payment(env, {
				amountUsd: '={{ $json.amount }}',
				spendLimits: { maxAmountPerOrder: '100', maxTotalPerRun: '50' },
				options: { dryRun: true, concurrency: 2 },
			}),
			{ items },
		);
		expect(await orderCount(env)).toBe(orders);
		const requests = await env.requests({ withSupportedAssets: true });
		expect(requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /api/v1/account/limits', 'GET /api/v1/supported-assets']);
		const [a, b] = json(out);
		expect((a.request as IDataObject).body).toMatchObject({
			amountUsd: 10,
			toAddress: walletOf(env.bob, 'ethereum'),
			idempotencyKey: expect.stringMatching(/^n8n-/),
		});
		expect((b.request as IDataObject).body).toMatchObject({ amountUsd: 20.5 });
		expect(a.request).toMatchObject({ method: 'POST', path: '/payment' });
		expect(a.checks).toEqual(
			expect.arrayContaining([
				'Spend limit passed: 10 USD is within Max Amount per Order (USD) 100',
				"Spend limit passed: the run's total 30.5 USD is within Max Total per Run 50",
				'Supported assets: USDC on ethereum is supported',
				expect.stringMatching(
					/^Account limits: this order and the whole run \(30\.5 USD\) fit what remains \([\d.]+ USD per order \(maxTxUsd\), [\d.]+ USD in this netting window \(maxValuePerEpochUsd\)/,
				),
			]),
		);
	});

	test('a dry run says when the run has more orders than the account has left, though each order fits', async () => {
		// beforeEach made one order in this window: 2 of the 3 are left.
		await env.op('POST', '/sandbox/account', { limits: { maxTxUsd: 15, maxCountPerEpoch: 3 } });
		const items = [{ json: { amount: '10' } }, { json: { amount: '12' } }, { json: { amount: '1' } }];
		const out = await env.run(payment(env, { amountUsd: '={{ $json.amount }}', options: { dryRun: true } }), { items });
		const checks = json(out)[0].checks as string[];
		// The run's total (23 USD) is over maxTxUsd, which limits each order, not a run: not named.
		expect(checks.filter((check) => check.startsWith('Account limits:'))).toEqual([
			'Account limits: this order fits, but the whole run (3 orders, 23 USD) would not: 3 orders but only 2 left in this netting window (maxCountPerEpoch remaining 2)',
		]);
		expect((await env.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
	});

	test('a dry run stops at an account limit it cannot read exactly, naming it', async () => {
		await env.op('POST', '/sandbox/account', { limits: { maxValuePerDayUsd: 1000.00001 } });
		await expect(env.run(payment(env, { options: { dryRun: true } }))).rejects.toThrow(
			/^The account limit maxValuePerDayUsd could not be read exactly \(its limit is 1000\.00001, not a number of at most 4 decimal places\)/,
		);
		expect((await env.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
	});

	test('a dry run still refuses what a real run would refuse, and says why', async () => {
		await env.mark();
		const items = [{ json: { chain: 'ethereum' } }, { json: { chain: 'nochain' } }];
		const out = await env.run(
			payment(env, { toChain: '={{ $json.chain }}', spendLimits: { maxAmountPerOrder: '100' }, amountUsd: '150', options: { dryRun: true } }),
			{
				items,
				continueOnFail: true,
			},
		);
		expect(json(out).map((i) => i.error)).toEqual([
			'Spend limit Max Amount per Order (USD): the order asks for 150 USD, over the limit of 100 USD',
			'Spend limit Max Amount per Order (USD): the order asks for 150 USD, over the limit of 100 USD',
		]);
		const ok = await env.run(payment(env, { toChain: '={{ $json.chain }}', options: { dryRun: true } }), { items, continueOnFail: true });
		expect(ok[0].json.dryRun).toBe(true);
		// The check a real run makes before sending, in the same words.
		expect(ok[1].json.error).toMatch(/^Chain "nochain" is not supported\. Valid chains: Base \(base\), Ethereum \(ethereum\), Solana \(solana\)$/);
		expect((await env.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
	});

	test('Dry Run set per item: items that disagree are refused before anything is sent, whichever comes first (issue 46)', async () => {
		const perItem = payment(env, { amountUsd: '={{ $json.amount }}', options: { dryRun: '={{ $json.dry }}' } });
		const rows = (...dry: boolean[]) => dry.map((d, n) => ({ json: { amount: String(10 + n), dry: d } }));
		const orders = await orderCount(env);
		await env.mark();
		// Before: read from row 1 alone, this batch paid rows 2 and 3, row 2 included, which said true.
		await expect(env.run(perItem, { items: rows(false, true, false) })).rejects.toMatchObject({
			message: 'Dry Run must be the same for every item of a run: row 1 (n8n item 0) says off (false), row 2 (n8n item 1) says on (true). Nothing was sent',
			description: expect.stringContaining('an If node on the same expression before them'),
		});
		await expect(env.run(perItem, { items: rows(true, true, false), continueOnFail: true })).rejects.toThrow(
			'row 1 (n8n item 0) says on (true), row 3 (n8n item 2) says off (false)',
		);
		expect(await env.requests({ withSupportedAssets: true })).toEqual([]);
		expect(await orderCount(env)).toBe(orders);
		// Agreeing items: a dry run of all, or a real run of all.
		expect(json(await env.run(perItem, { items: rows(true, true) })).map((o) => o.dryRun)).toEqual([true, true]);
		expect(await orderCount(env)).toBe(orders);
		expect(json(await env.run(perItem, { items: rows(false, false) })).map((o) => o.created)).toEqual([true, true]);
		expect(await orderCount(env)).toBe(orders + 2);
	});

	test('Dry Run may not be left to an AI model', async () => {
		await env.mark();
		await expect(env.run(payment(env, { options: { dryRun: "={{ $fromAI('dryRun', 'dry run?', 'boolean') }}" } }))).rejects.toThrow(
			'Dry Run may not be left to an AI model ($fromAI): set it in the node',
		);
		expect(await env.requests()).toEqual([]);
	});
});

test('the node under test is the Clearinghouse action node', () => {
	expect(node.description.name).toBe('clearinghouse');
});
