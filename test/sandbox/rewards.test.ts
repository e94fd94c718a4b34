/** The rewards rules API on its own port: Idempotency-Key, structure errors (422 with code and path), library_full. */
import { SandboxEnv, setup } from './support';
import { Client } from '../../harness/sandboxClient';

let env: SandboxEnv;
beforeAll(async () => {
	env = await setup({ seed: 'empty' });
});
afterAll(() => env.sb.close());

const def = (payout: Record<string, unknown> = { type: 'fixed', amount: '5.00' }) => ({
	measure: { type: 'daily_balance', metricKey: 'usdc_balance' },
	condition: { type: 'always' },
	payout,
	limits: [{ type: 'cap_per_period', amount: '100.00' }],
});
/** A definition whose payout is tiered, with these tiers. */
const tiered = (...tiers: Record<string, string>[]) => def({ type: 'tiered', tiers });
let n = 0;
const create = (body: unknown, key: string | null = `k-${++n}`) => env.rewards.post('/rewards/rules', body, key === null ? {} : { 'Idempotency-Key': key });

describe('rewards rules', () => {
	it('is served on its own base URL with x-api-key auth', async () => {
		expect(env.sb.rewardsUrl).not.toBe(env.sb.mainUrl);
		expect((await new Client(env.sb.rewardsUrl + '/api/v1', 'wrong').get('/rewards/rules')).status).toBe(401);
		expect((await new Client(env.sb.mainUrl + '/api/v1', env.sb.apiKey).get('/rewards/rules')).status).toBe(404);
	});

	it('requires Idempotency-Key on POST (400 with message and path)', async () => {
		const r = await create({ name: 'a', description: 'd', definition: def() }, null);
		expect(r.status).toBe(400);
		expect(r.body).toEqual({ error: expect.any(String), message: expect.any(String), path: expect.any(String) });
		expect((await create({ name: 'a', definition: def() }, 'k'.repeat(256))).status).toBe(400);
	});

	it('creates at version 1, replays the same key and body, 409 on the same key with another body', async () => {
		const body = { name: 'Balance bonus', description: 'daily', definition: def() };
		const a = await create(body, 'same-key');
		expect(a.status).toBe(201);
		expect(a.body).toMatchObject({
			id: expect.any(String),
			name: 'Balance bonus',
			description: 'daily',
			version: 1,
			status: 'active',
			isDefault: false,
			definition: def(),
			summary: expect.any(String),
			usedBy: [],
			createdAt: expect.any(String),
			updatedAt: expect.any(String),
		});
		const b = await create(body, 'same-key');
		expect(b.status).toBe(201);
		expect(b.body).toEqual(a.body);
		const c = await create({ ...body, name: 'Other' }, 'same-key');
		expect(c.status).toBe(409);
		expect(c.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
	});

	it.each([
		[tiered({ from: '0', to: '100', amount: '1' }, { from: '150', amount: '2' }), 'tiers_gap', 'definition.payout.tiers[1].from'],
		[tiered({ from: '0', to: '100', amount: '1' }, { from: '50', amount: '2' }), 'tiers_overlap', 'definition.payout.tiers[1].from'],
		[tiered({ from: '10', amount: '1' }), 'tiers_gap', 'definition.payout.tiers[0].from'],
		[tiered(), 'tiers_empty', 'definition.payout.tiers'],
		[def({ type: 'fixed', amount: 5 }), 'invalid_amount', 'definition.payout.amount'],
		[def({ type: 'lottery' }), 'unknown_payout', 'definition.payout.type'],
		[{ ...def(), measure: { type: 'vibes', metricKey: 'x' } }, 'unknown_measure', 'definition.measure.type'],
		[{ ...def(), measure: { type: 'daily_balance' } }, 'invalid_params', 'definition.measure.metricKey'],
		[
			{
				...def(),
				condition: { type: 'min_balance', amount: '10' },
				measure: { type: 'transaction_count', metricKey: 'n' },
				payout: { type: 'fixed', amount: '1' },
				limits: [],
			},
			'condition_not_allowed',
			'definition.condition.type',
		],
		[{ ...def(), limits: [{ type: 'cap_per_period', amount: 'lots' }] }, 'invalid_amount', 'definition.limits[0].amount'],
		[{ ...def(), limits: undefined }, 'missing_block', 'definition.limits'],
		[{ ...def(), payout: undefined }, 'missing_block', 'definition.payout'],
	])('422 %#: %s at %s', async (definition, code, path) => {
		const r = await create({ name: 'bad', definition });
		expect(r.status).toBe(422);
		expect(r.body).toEqual({ error: code, message: expect.any(String), path });
	});

	it('accepts contiguous tiers with an open-ended last tier', async () => {
		const r = await create({
			name: 'Tiered',
			definition: def({
				type: 'tiered',
				tiers: [
					{ from: '0', to: '100', amount: '1' },
					{ from: '100', to: '1000', amount: '2' },
					{ from: '1000', amount: '3' },
				],
			}),
		});
		expect(r.status).toBe(201);
	});

	it('400 with message and path for a malformed body', async () => {
		const r = await create({ description: 'no name', definition: def() });
		expect(r.status).toBe(400);
		expect(r.body).toMatchObject({ error: expect.any(String), message: expect.any(String), path: 'name' });
	});

	it('lists sorted by name, filters by status, archived only with status=archived', async () => {
		await create({ name: 'zeta', definition: def() });
		const alpha = await create({ name: 'alpha', definition: def() });
		await env.op.post(`/rewards/rules/${alpha.body.id}/archive`);
		const active = await env.rewards.get('/rewards/rules');
		const names = active.body.rules.map((r: any) => r.name);
		expect(names).toEqual([...names].sort());
		expect(names).not.toContain('alpha');
		expect((await env.rewards.get('/rewards/rules?status=active')).body.rules.map((r: any) => r.name)).toEqual(names);
		const archived = await env.rewards.get('/rewards/rules?status=archived');
		expect(archived.body.rules.map((r: any) => r.name)).toEqual(['alpha']);
		expect((await env.rewards.get('/rewards/rules?status=deleted')).status).toBe(400);
	});

	it('409 library_full past the library size', async () => {
		const count = (await env.rewards.get('/rewards/rules')).body.rules.length;
		for (let i = count; i < 50; i++) expect((await create({ name: `fill-${String(i).padStart(2, '0')}`, definition: def() })).status).toBe(201);
		const r = await create({ name: 'one too many', definition: def() });
		expect(r.status).toBe(409);
		expect(r.body.error).toBe('library_full');
	});

	it('serves the rule-block catalogue with paramsSchema and cross references', async () => {
		const r = await env.rewards.get('/rewards/rule-blocks');
		expect(r.status).toBe(200);
		for (const k of ['measures', 'conditions', 'payouts', 'limits']) expect(r.body[k].length).toBeGreaterThan(0);
		const m = r.body.measures.find((x: any) => x.type === 'daily_balance');
		expect(m).toMatchObject({
			description: expect.any(String),
			paramsSchema: expect.objectContaining({ type: 'object' }),
			conditions: expect.arrayContaining(['always']),
			payouts: expect.arrayContaining(['fixed']),
			limits: expect.arrayContaining(['cap_per_period']),
		});
		expect(r.body.payouts.find((x: any) => x.type === 'fixed')).toMatchObject({
			paramsSchema: expect.any(Object),
			measures: expect.arrayContaining(['daily_balance']),
		});
	});

	it('403 while the account is suspended', async () => {
		await env.op.post('/account', { status: 'SUSPENDED' });
		expect((await env.rewards.get('/rewards/rule-blocks')).status).toBe(403);
		await env.op.post('/account', { status: 'ACTIVE' });
	});
});
