/** Every resource but Payment Order, over real HTTP against the sandbox (main and rewards APIs). */
import { listSearch, loadOptions } from '../../support/n8nContexts';
import { json, node, payment, startEnv, walletOf, type Env } from './env';

let env: Env;
beforeAll(async () => {
	env = await startEnv();
});
afterAll(async () => {
	await env.sb.close();
});
beforeEach(async () => {
	await env.reset();
});

const creds = () => ({ apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl, rewardsUrl: env.sb.rewardsUrl });

describe('Supported Asset and dropdowns', () => {
	test('Get Many: one item per pair', async () => {
		const out = await env.run({ resource: 'supportedAsset', operation: 'getMany' });
		expect(json(out)).toEqual(env.state.supportedAssets);
		expect(out.every((o) => (o.pairedItem as any).item === 0)).toBe(true);
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'GET', path: '/api/v1/supported-assets' });
	});

	test('chain and asset dropdowns come from GET /supported-assets', async () => {
		const setup = { parameters: { resource: 'paymentOrder', operation: 'create' }, credentials: creds() };
		const chains = (await loadOptions(node, 'getChains', setup)) as any[];
		const assets = (await loadOptions(node, 'getAssets', setup)) as any[];
		const pairs = env.state.supportedAssets as Array<{ chain: string; symbol: string }>;
		expect(chains.map((c) => c.value)).toEqual([...new Set(pairs.map((p) => p.chain))].sort());
		expect(chains.map((c) => c.name)).toEqual(['Base', 'Ethereum', 'Solana']);
		expect(assets.map((a) => a.value)).toEqual([...new Set(pairs.map((p) => p.symbol))].sort());
	});

	test('the asset list follows the chosen chain (toChain, or deliveredChain for a ruleset)', async () => {
		await env.op('POST', '/reset', {});
		const pairs = env.state.supportedAssets as Array<{ chain: string; symbol: string }>;
		const on = (chain: string) => pairs.filter((p) => p.chain === chain).map((p) => p.symbol).sort();
		const assetsFor = async (parameters: Record<string, string>) =>
			((await loadOptions(node, 'getAssets', { parameters, credentials: creds() })) as any[]).map((a) => a.value);
		expect(await assetsFor({ resource: 'paymentOrder', operation: 'create', toChain: 'solana' })).toEqual(on('solana'));
		expect(await assetsFor({ resource: 'receiveRuleset', operation: 'create', deliveredChain: 'base' })).toEqual(on('base'));
		expect(await assetsFor({ resource: 'paymentOrder', operation: 'create', toChain: '={{ $json.chain }}' })).toEqual([...new Set(pairs.map((p) => p.symbol))].sort());
		const field = node.description.properties.find((p) => p.name === 'deliveredAsset');
		expect(field?.typeOptions).toEqual({ loadOptionsMethod: 'getAssets', loadOptionsDependsOn: ['deliveredChain'] });
	});
});

describe('User', () => {
	const base = (extra = {}) => ({
		resource: 'user',
		operation: 'createOrUpdate',
		label: 'dave',
		wallets: { wallet: [{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }] },
		...extra,
	});

	test('creates a user; return wallets omitted by default', async () => {
		const [item] = await env.run(base());
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: '/api/v1/add-user-record' });
		expect(req.body).toEqual({
			label: 'dave',
			wallets: [{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }],
		});
		expect(item.json).toMatchObject({ label: 'dave', wallets: [{ chain: 'ethereum', status: 'PENDING' }] });
		expect(typeof item.json.id).toBe('string');
	});

	test('replace sends the list; an empty list clears; subaccount goes in the body', async () => {
		const returnWallets = { wallet: [{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }] };
		await env.run(base({ returnWalletsMode: 'replace', returnWallets }));
		await env.run(base({ returnWalletsMode: 'replace', returnWallets: {} }));
		const sub = env.state.subaccounts[0].id;
		await env.run(base({ additionalFields: { subaccountId: sub } }));
		const reqs = await env.requests();
		expect(reqs[0].body.returnWallets).toEqual([{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }]);
		expect(reqs[1].body.returnWallets).toEqual([]);
		expect(reqs[2].body).toMatchObject({ subaccountId: sub });
		expect(reqs[2].body).not.toHaveProperty('returnWallets');
	});

	test('refuses two return wallets on one chain, and no wallets, before sending', async () => {
		const returnWallets = { wallet: [{ chain: 'base', address: '0x1' }, { chain: 'base', address: '0x2' }] };
		await expect(env.run(base({ returnWalletsMode: 'replace', returnWallets }))).rejects.toThrow(
			'Return Wallets allows one wallet per chain',
		);
		await expect(env.run(base({ wallets: {} }))).rejects.toThrow('Wallets: add at least one wallet');
		expect(await env.requests()).toEqual([]);
	});

	test('the upsert is repeated by the transport after a 500 (safe by nature)', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: 'add-user-record', count: 1, commitThen500: true });
		const [item] = await env.run(base());
		expect((await env.requests()).map((r) => r.status)).toEqual([500, 200]);
		expect(item.json.label).toBe('dave');
	});
});

describe('Quote, Deposit Address, Account', () => {
	test('Quote Create: body, amount checked, not retried', async () => {
		const params = {
			resource: 'quote',
			operation: 'create',
			toChain: 'base',
			asset: 'USDC',
			amountUsd: '10.25',
			additionalFields: { name: 'payroll', subaccountId: env.state.subaccounts[0].id },
		};
		const [item] = await env.run(params);
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: '/api/v1/quotes' });
		expect(req.body).toEqual({
			toChain: 'base', asset: 'USDC', amountUsd: 10.25, name: 'payroll', subaccountId: env.state.subaccounts[0].id,
		});
		expect(item.json).toMatchObject({ serviceable: true, amountUsd: 10.25 });
		await env.mark();
		await expect(env.run({ ...params, amountUsd: '0.00001' })).rejects.toThrow(/Amount \(USD\) must have at most 4 decimal places/);
		await expect(env.run({ ...params, additionalFields: { name: 'n'.repeat(65) } })).rejects.toThrow(/Name must be 1-64/);
		expect(await env.requests()).toEqual([]);
		await env.op('POST', '/faults', { method: 'POST', path: '/quotes$', count: 1, commitThen500: true });
		await expect(env.run(params)).rejects.toMatchObject({ httpCode: '500' });
		expect((await env.requests()).map((r) => r.status)).toEqual([500]);
	});

	test('Deposit Address Get Many: one item per address; subaccount in the query', async () => {
		const out = await env.run({ resource: 'depositAddress', operation: 'getMany' });
		expect(json(out)).toEqual(env.state.depositAddresses);
		await env.mark();
		const sub = env.state.subaccounts.find((s: any) => s.provisioned) ?? env.state.subaccounts[0];
		await env.run({ resource: 'depositAddress', operation: 'getMany', options: { subaccountId: sub.id } }, { continueOnFail: true });
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'GET', path: '/api/v1/deposit-addresses', query: { subaccountId: sub.id } });
	});

	test('Account Get Limits: one item; subaccount in the query', async () => {
		const [item] = await env.run({ resource: 'account', operation: 'getLimits' });
		expect(item.json).toMatchObject({ accountId: env.state.accountId, maxTxUsd: { limit: env.state.limits.maxTxUsd, used: 0 } });
		await env.mark();
		const sub = env.state.subaccounts[0].id;
		await env.run({ resource: 'account', operation: 'getLimits', options: { subaccountId: sub } });
		expect((await env.requests())[0].query).toEqual({ subaccountId: sub });
	});
});

describe('Receive Ruleset', () => {
	const create = (extra = {}) => ({
		resource: 'receiveRuleset',
		operation: 'create',
		deliveredAsset: 'USDC',
		deliveredChain: 'ethereum',
		toAddress: walletOf(env.bob, 'ethereum'),
		additionalFields: { name: '  Payroll in  ', mode: 'INSTANT', metadata: '{"team":"ops"}' },
		...extra,
	});

	test('Create sends an idempotencyKey body field; a retry after commit-then-500 makes one ruleset', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: '/rulesets$', count: 1, commitThen500: true });
		const [item] = await env.run(create());
		const reqs = await env.requests();
		expect(reqs.map((r) => r.status)).toEqual([500, 201]);
		expect(reqs[0].body).toEqual({
			deliveredAsset: 'USDC',
			deliveredChain: 'ethereum',
			toAddress: walletOf(env.bob, 'ethereum'),
			mode: 'INSTANT',
			name: 'Payroll in',
			metadata: { team: 'ops' },
			idempotencyKey: item.json.idempotencyKey,
		});
		expect(reqs[1].body.idempotencyKey).toBe(reqs[0].body.idempotencyKey);
		expect(item.json).toMatchObject({ name: 'Payroll in', status: 'ACTIVE' });
		const state = await env.op('GET', '/state');
		expect(state.counts).toBeDefined();
	});

	test('Rename: PATCH with the trimmed name; bad names refused before sending', async () => {
		const [created] = await env.run(create());
		await env.mark();
		const [renamed] = await env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: ' Payroll out ' });
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'PATCH', path: `/api/v1/rulesets/${created.json.id}`, body: { name: 'Payroll out' } });
		expect(renamed.json.name).toBe('Payroll out');
		await env.mark();
		await expect(
			env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: 'x'.repeat(121) }),
		).rejects.toThrow(/Name must be 1-120/);
		await expect(
			env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: '   ' }),
		).rejects.toThrow('Name is required');
		expect(await env.requests()).toEqual([]);
	});
});

describe('Webhook Endpoint and Delivery', () => {
	const url = 'https://127.0.0.1:9/hooks';
	async function createEndpoint(): Promise<any> {
		const [item] = await env.run({
			resource: 'webhookEndpoint', operation: 'create', url, description: 'payouts', eventTypes: ['payment_order'],
		});
		await env.mark();
		return item.json;
	}
	const byId = (id: string) => ({ mode: 'id', value: id });

	test('Create returns the secret once; Get, Get Many and Update never show it', async () => {
		const created = await createEndpoint();
		expect(created.secret).toMatch(/^whsec_/);
		const [got] = await env.run({ resource: 'webhookEndpoint', operation: 'get', endpointId: byId(created.id) });
		const many = await env.run({ resource: 'webhookEndpoint', operation: 'getMany', returnAll: true });
		const [updated] = await env.run({
			resource: 'webhookEndpoint', operation: 'update', endpointId: byId(created.id),
			updateFields: { status: 'DISABLED', description: 'paused' },
		});
		for (const record of [got.json, ...json(many), updated.json]) {
			expect(record).not.toHaveProperty('secret');
			expect(JSON.stringify(record)).not.toContain(created.secret);
		}
		expect(updated.json).toMatchObject({ status: 'DISABLED', description: 'paused' });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/v1/webhooks/endpoints/${created.id}`,
			'GET /api/v1/webhooks/endpoints',
			`PATCH /api/v1/webhooks/endpoints/${created.id}`,
		]);
		expect(reqs[2].body).toEqual({ status: 'DISABLED', description: 'paused' });
	});

	test('Create refuses a non-https URL before sending', async () => {
		await expect(
			env.run({ resource: 'webhookEndpoint', operation: 'create', url: 'http://example.com/x' }),
		).rejects.toThrow('URL must start with https://');
		expect(await env.requests()).toEqual([]);
	});

	test('Rotate (graceful and immediate), Promote, Test, Delete', async () => {
		const created = await createEndpoint();
		const [graceful] = await env.run({ resource: 'webhookEndpoint', operation: 'rotateSecret', endpointId: byId(created.id) });
		expect(graceful.json).toMatchObject({ id: created.id, rotation: 'graceful', secretNext: expect.stringMatching(/^whsec_/) });
		const [promoted] = await env.run({ resource: 'webhookEndpoint', operation: 'promoteSecret', endpointId: byId(created.id) });
		expect(promoted.json).toMatchObject({ id: created.id, promoted: true });
		expect(promoted.json).not.toHaveProperty('secret');
		const [immediate] = await env.run({
			resource: 'webhookEndpoint', operation: 'rotateSecret', endpointId: byId(created.id), rotation: 'immediate',
		});
		expect(immediate.json.rotation).toBe('immediate');
		const [tested] = await env.run({ resource: 'webhookEndpoint', operation: 'sendTestEvent', endpointId: byId(created.id) });
		expect(tested.json).toMatchObject({ endpointId: created.id, delivered: false });
		const [deleted] = await env.run({ resource: 'webhookEndpoint', operation: 'delete', endpointId: byId(created.id) });
		expect(deleted.json).toMatchObject({ id: created.id, deleted: true });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)}`)).toEqual([
			`POST /api/v1/webhooks/endpoints/${created.id}/rotate-secret {}`,
			`POST /api/v1/webhooks/endpoints/${created.id}/rotate-secret/promote {}`,
			`POST /api/v1/webhooks/endpoints/${created.id}/rotate-secret {"immediate":"true"}`,
			`POST /api/v1/webhooks/endpoints/${created.id}/test {}`,
			`DELETE /api/v1/webhooks/endpoints/${created.id} {}`,
		]);
	});

	test('the endpoint list search filters by URL', async () => {
		const created = await createEndpoint();
		const setup = { parameters: { resource: 'webhookEndpoint', operation: 'get' }, credentials: creds() };
		const all = (await listSearch(node, 'searchWebhookEndpoints', setup)) as any;
		expect(all.results.map((r: any) => r.value)).toEqual([created.id]);
		const none = (await listSearch(node, 'searchWebhookEndpoints', setup, 'nothing-like-this')) as any;
		expect(none.results).toEqual([]);
	});

	test('Deliveries: Get Many across pages with filters, Get, Replay', async () => {
		const endpoint = await createEndpoint();
		const items = [1, 2, 3].map((n) => ({ json: { amount: String(n) } }));
		await env.run(payment(env, { amountUsd: '={{ $json.amount }}' }), { items });
		await env.op('POST', '/webhooks/flush');
		await env.mark();
		const all = await env.run({
			resource: 'webhookDelivery', operation: 'getMany', returnAll: true,
			filters: { endpointId: endpoint.id, type: 'payment_order' },
		});
		expect(all.length).toBeGreaterThanOrEqual(3);
		const limited = await env.run({ resource: 'webhookDelivery', operation: 'getMany', returnAll: false, limit: 2 });
		expect(json(limited).map((d) => d.id)).toEqual(json(all).slice(0, 2).map((d) => d.id));
		const reqs = await env.requests();
		expect(reqs[0].query).toMatchObject({ endpointId: endpoint.id, type: 'payment_order', limit: '1000', offset: '0' });
		const id = all[0].json.id as string;
		await env.mark();
		const [one] = await env.run({ resource: 'webhookDelivery', operation: 'get', deliveryId: id });
		expect(one.json.id).toBe(id);
		const [replayed] = await env.run({ resource: 'webhookDelivery', operation: 'replay', deliveryId: id });
		expect(replayed.json.replayedDeliveryId).toBe(id);
		expect(replayed.json.id).not.toBe(id);
		expect((await env.requests()).map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/v1/webhooks/deliveries/${id}`,
			`POST /api/v1/webhooks/deliveries/${id}/replay`,
		]);
	});
});

describe('Reward Rule (rewards API on its own base URL)', () => {
	const definition = {
		measure: { type: 'daily_balance', metricKey: 'balance_usd' },
		condition: { type: 'always' },
		payout: { type: 'fixed', amount: '5.00' },
		limits: [{ type: 'cap_per_period', amount: '50.00' }],
	};

	test('Create sends Idempotency-Key to the rewards host; a retried POST makes one rule', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: '/rewards/rules$', count: 1, commitThen500: true });
		const [item] = await env.run({
			resource: 'rewardRule', operation: 'create', name: 'Balance bonus', description: 'daily', definition: JSON.stringify(definition),
		});
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.api} ${r.method} ${r.path} ${r.status}`)).toEqual([
			'rewards POST /api/v1/rewards/rules 500',
			'rewards POST /api/v1/rewards/rules 201',
		]);
		expect(reqs[0].headers['idempotency-key']).toBe(item.json.idempotencyKey);
		expect(reqs[1].headers['idempotency-key']).toBe(item.json.idempotencyKey);
		expect(reqs[0].body).toEqual({ name: 'Balance bonus', description: 'daily', definition });
		expect(item.json).toMatchObject({ name: 'Balance bonus', version: 1, status: 'active' });
		await env.mark();
		const rules = await env.run({ resource: 'rewardRule', operation: 'getMany', status: 'active', returnAll: true });
		expect(json(rules).map((r) => r.name)).toEqual(['Balance bonus']);
		const [req] = await env.requests();
		expect(req).toMatchObject({ api: 'rewards', method: 'GET', path: '/api/v1/rewards/rules', query: { status: 'active' } });
	});

	test('a broken definition: invalid JSON is refused locally; a 422 names the path', async () => {
		await expect(
			env.run({ resource: 'rewardRule', operation: 'create', name: 'x', definition: '{not json' }),
		).rejects.toThrow('Definition must be valid JSON');
		expect(await env.requests()).toEqual([]);
		await expect(
			env.run({
				resource: 'rewardRule', operation: 'create', name: 'x',
				definition: JSON.stringify({ ...definition, payout: { type: 'fixed', amount: 'lots' } }),
			}),
		).rejects.toMatchObject({ httpCode: '422', message: expect.stringContaining('definition.payout.amount') });
	});

	test('Get Rule Blocks: the catalog as one item', async () => {
		const out = await env.run({ resource: 'rewardRule', operation: 'getRuleBlocks' });
		expect(out).toHaveLength(1);
		expect((out[0].json.measures as any[]).map((m) => m.type)).toContain('daily_balance');
		const [req] = await env.requests();
		expect(req).toMatchObject({ api: 'rewards', path: '/api/v1/rewards/rule-blocks' });
	});
});

describe('Secrets stay out of errors', () => {
	test('an API error carries neither the API key nor a header dump', async () => {
		const error = await env
			.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: 'missing' } })
			.catch((e: unknown) => e);
		const text = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).stack);
		expect(text).not.toContain(env.sb.apiKey);
	});
});
