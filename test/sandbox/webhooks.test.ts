/** Webhook endpoints, URL rules, signing and rotation, ping, retries with backoff, auto-disable, deliveries log, replay. */
import { Receiver } from '../../harness/receiver';
import { waitFor } from '../../harness/wait';
import { SandboxEnv, addEndpoint, createOrder, future, setup } from './support';
import { verifySignature } from '../../harness/signer';

/** Orders that do not expire during the file (time runs 100,000 times faster here). */
const order = () => createOrder(env, { expiresAt: future(3650 * 86400_000) });
import { AUTO_DISABLE_AFTER, MAX_ATTEMPTS, backoffMs } from '../../sandbox/webhooks';

let env: SandboxEnv;
let strict: SandboxEnv;
let good: Receiver;
let bad: Receiver;

beforeAll(async () => {
	// Backoffs become instant; the attempt timeout stays at 2 s (not scaled to its 250 ms floor), so that
	// a receiver slowed by a loaded machine is not taken for a timeout and sent the delivery again.
	env = await setup({ timeScale: 100_000, attemptTimeoutMs: 2_000 });
	strict = await setup({ allowLoopbackWebhooks: false });
	good = await new Receiver().start();
	bad = await new Receiver().start();
	bad.respond = () => 500;
});
afterAll(async () => {
	await env.sb.close();
	await strict.sb.close();
	await good.close();
	await bad.close();
});

/** Deletes every endpoint so each test controls which endpoints receive its events. */
async function clearEndpoints(): Promise<void> {
	for (const e of (await env.api.get('/webhooks/endpoints')).body.endpoints) await env.api.del(`/webhooks/endpoints/${e.id}`);
}
async function deliveriesOf(endpointId: string): Promise<any[]> {
	return (await env.api.get(`/webhooks/deliveries?endpointId=${endpointId}&limit=1000`)).body.deliveries;
}

describe('endpoint URL rules', () => {
	it.each([
		'http://hooks.example.com/x',
		'https://127.0.0.1/x',
		'https://localhost/x',
		'https://[::1]/x',
		'https://10.1.2.3/x',
		'https://192.168.1.1/x',
		'https://172.16.0.9/x',
		'https://169.254.169.254/latest',
		'https://metadata.google.internal/x',
		'http://127.0.0.1:9/x',
		'not a url',
		'ftp://hooks.example.com',
	])('refuses %s without the loopback flag (400)', async (url) => {
		const r = await strict.api.post('/webhooks/endpoints', { url, description: 'x', eventTypes: ['payment_order'] });
		expect(r.status).toBe(400);
		expect(r.body.error).toEqual(expect.any(String));
	});
	it('accepts a public https URL', async () => {
		expect((await strict.api.post('/webhooks/endpoints', { url: 'https://hooks.example.com/x', description: 'x', eventTypes: ['payment_order'] })).status).toBe(
			201,
		);
	});
	it.each([
		['https://hooks.invalid/x', '.invalid (RFC 6761)'],
		['https://hooks.test/x', '.test (RFC 6761)'],
		['https://hooks.example/x', 'the .example TLD (RFC 6761)'],
		['https://app.localhost/x', '.localhost'],
		['https://printer.local/x', '.local, multicast DNS (RFC 6762)'],
		['https://svc.internal/x', '.internal (ICANN)'],
		['https://router.home.arpa/x', 'home.arpa (RFC 8375)'],
		['https://abc.onion/x', '.onion (RFC 7686)'],
		['https://x.alt/x', '.alt (RFC 9476)'],
		['https://intranet/x', 'a single-label name'],
		['https://hooks.test./x', 'a special-use name with a trailing dot'],
		['https://HOOKS.TEST/x', 'a special-use name in capitals'],
		['https://100.64.0.1/x', 'shared address space (100.64.0.0/10)'],
		['https://198.18.0.1/x', 'benchmarking (198.18.0.0/15)'],
		['https://192.0.2.1/x', 'documentation (TEST-NET-1)'],
		['https://203.0.113.9/x', 'documentation (TEST-NET-3)'],
		['https://0.0.0.0/x', '"this network" (0.0.0.0/8)'],
		['https://255.255.255.255/x', 'broadcast'],
		['https://224.0.0.1/x', 'multicast (224.0.0.0/4)'],
		['https://0x7f.1/x', 'loopback written in hex shorthand'],
		['https://2130706433/x', 'loopback written as one number'],
		['https://[fc00::1]/x', 'IPv6 unique local (fc00::/7)'],
		['https://[fe80::1]/x', 'IPv6 link-local'],
		['https://[::ffff:127.0.0.1]/x', 'IPv4-mapped loopback'],
		['https://[::ffff:10.0.0.1]/x', 'IPv4-mapped private'],
		['https://[2001:db8::1]/x', 'IPv6 documentation (2001:db8::/32)'],
		['https://[64:ff9b::7f00:1]/x', 'NAT64 of loopback'],
		['https://[ff02::1]/x', 'IPv6 multicast'],
		['https://[::]/x', 'the unspecified address'],
	])('refuses %s, a host that is never public: %s (400)', async (url) => {
		const r = await strict.api.post('/webhooks/endpoints', { url, description: 'x', eventTypes: ['payment_order'] });
		expect(r).toMatchObject({ status: 400, body: { error: 'invalid_webhook_url', path: 'url' } });
	});
	it.each(['https://8.8.8.8/x', 'https://[2606:4700:4700::1111]/x', 'https://hooks.clearinghouse-nodes.dev/x'])(
		'accepts the public host of %s',
		async (url) => {
			expect((await strict.api.post('/webhooks/endpoints', { url, description: 'x', eventTypes: ['payment_order'] })).status).toBe(201);
		},
	);
	it('with the loopback flag: http on 127.0.0.1, localhost and [::1]; never http elsewhere or metadata', async () => {
		for (const url of ['http://127.0.0.1:9/x', 'http://localhost:9/x', 'http://[::1]:9/x'])
			expect((await env.api.post('/webhooks/endpoints', { url, description: 'x', eventTypes: ['payment_order'] })).status).toBe(201);
		for (const url of ['http://hooks.example.com/x', 'https://169.254.169.254/x'])
			expect((await env.api.post('/webhooks/endpoints', { url, description: 'x', eventTypes: ['payment_order'] })).status).toBe(400);
		await clearEndpoints();
	});
});

describe('endpoint URL rules with DNS resolution on (--resolve-webhook-hosts)', () => {
	let dns: SandboxEnv;
	const answers: Record<string, string[] | 'NXDOMAIN'> = {
		'hooks.public.dev': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
		'rebind.public.dev': ['127.0.0.1'],
		'mixed.public.dev': ['93.184.216.34', '10.0.0.7'],
		'v6private.public.dev': ['fd12::1'],
		'gone.public.dev': 'NXDOMAIN',
	};
	beforeAll(async () => {
		dns = await setup({
			allowLoopbackWebhooks: false,
			resolveWebhookHosts: true,
			webhookLookup: async (host) => {
				const a = answers[host];
				if (!a || a === 'NXDOMAIN') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
				return a;
			},
		});
	});
	afterAll(() => dns.sb.close());
	const create = (url: string) => dns.api.post('/webhooks/endpoints', { url, description: 'x', eventTypes: ['payment_order'] });

	it('accepts a name that resolves only to public addresses', async () => {
		expect((await create('https://hooks.public.dev/x')).status).toBe(201);
	});
	it.each([
		['a public name pointing at loopback', 'https://rebind.public.dev/x', /127\.0\.0\.1/],
		['one private address among public ones', 'https://mixed.public.dev/x', /10\.0\.0\.7/],
		['a private IPv6 answer', 'https://v6private.public.dev/x', /fd12::1/],
		['a name that does not resolve', 'https://gone.public.dev/x', /does not resolve/],
	])('refuses %s (400)', async (_what, url, why) => {
		const r = await create(url);
		expect(r).toMatchObject({ status: 400, body: { error: 'invalid_webhook_url' } });
		expect(r.body.message).toMatch(why);
	});
	it('checks a changed URL the same way (PATCH)', async () => {
		const e = await create('https://hooks.public.dev/y');
		expect((await dns.api.patch(`/webhooks/endpoints/${e.body.id}`, { url: 'https://rebind.public.dev/y' })).status).toBe(400);
	});
});

describe('endpoint management', () => {
	it('returns the secret once, never in list or get', async () => {
		const r = await env.api.post('/webhooks/endpoints', { url: good.url, description: 'main', eventTypes: ['payment_order'] });
		expect(r.status).toBe(201);
		expect(r.body).toMatchObject({
			id: expect.any(String),
			accountId: env.state.accountId,
			url: good.url,
			description: 'main',
			status: 'ENABLED',
			eventTypes: ['payment_order'],
			consecutiveFailures: 0,
			createdAt: expect.any(String),
			updatedAt: expect.any(String),
			disabledAt: null,
			deletedAt: null,
		});
		expect(r.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
		const list = await env.api.get('/webhooks/endpoints');
		expect(list.body.endpoints.find((e: any) => e.id === r.body.id)).toBeDefined();
		expect(JSON.stringify(list.body)).not.toContain('whsec_');
		const one = await env.api.get(`/webhooks/endpoints/${r.body.id}`);
		expect(one.body.secret).toBeUndefined();
		expect(one.body.secretNext).toBeUndefined();
	});
	it.each([
		[{ description: 'x', eventTypes: ['payment_order'] }],
		[{ url: 'https://a.example.com', eventTypes: ['order.created'] }],
		[{ url: 'https://a.example.com', eventTypes: [] }],
	])('400 on %j', async (b) => {
		expect((await env.api.post('/webhooks/endpoints', b)).status).toBe(400);
	});
	it('PATCH changes description, url and status; 400 on bad input; DELETE soft-deletes (404 afterwards, gone from the list)', async () => {
		const e = await addEndpoint(env, good.url);
		const d = await env.api.patch(`/webhooks/endpoints/${e.id}`, { description: 'renamed', status: 'DISABLED' });
		expect(d.body).toMatchObject({ description: 'renamed', status: 'DISABLED', disabledAt: expect.any(String) });
		const en = await env.api.patch(`/webhooks/endpoints/${e.id}`, { status: 'ENABLED' });
		expect(en.body).toMatchObject({ status: 'ENABLED', disabledAt: null, consecutiveFailures: 0 });
		expect((await env.api.patch(`/webhooks/endpoints/${e.id}`, { status: 'PAUSED' })).status).toBe(400);
		expect((await env.api.patch(`/webhooks/endpoints/${e.id}`, {})).status).toBe(400);
		expect((await env.api.patch(`/webhooks/endpoints/${e.id}`, { url: 'http://hooks.example.com' })).status).toBe(400);
		const del = await env.api.del(`/webhooks/endpoints/${e.id}`);
		expect(del.status).toBe(200);
		expect(del.body.deletedAt).toEqual(expect.any(String));
		expect((await env.api.get(`/webhooks/endpoints/${e.id}`)).status).toBe(404);
		expect((await env.api.patch(`/webhooks/endpoints/${e.id}`, { description: 'x' })).status).toBe(404);
		expect((await env.api.get('/webhooks/endpoints')).body.endpoints.map((x: any) => x.id)).not.toContain(e.id);
		await order();
		await env.op.post('/webhooks/flush');
		expect(await deliveriesOf(e.id)).toHaveLength(0);
	});
});

describe('signing, rotation and ping', () => {
	it('signs with the current secret; graceful rotation signs with both until promote; immediate rotation only with the new one', async () => {
		await clearEndpoints();
		const e = await addEndpoint(env, good.url);
		const lastFor = async (orderId: string) => {
			await env.op.post('/webhooks/flush');
			return waitFor(() => good.received.find((r) => r.body?.data?.payment_order?.id === orderId));
		};
		const sigs = (h: unknown) =>
			String(h)
				.split(',')
				.filter((p) => p.startsWith('v1='));

		let r = await lastFor((await order()).id);
		expect(sigs(r.headers['x-service-webhook-signature'])).toHaveLength(1);
		expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, e.secret)).toBe(true);

		const rot = await env.api.post(`/webhooks/endpoints/${e.id}/rotate-secret`);
		expect(rot.status).toBe(200);
		expect(rot.body).toEqual({ id: e.id, secretNext: expect.stringMatching(/^whsec_[0-9a-f]{64}$/) });
		r = await lastFor((await order()).id);
		expect(sigs(r.headers['x-service-webhook-signature'])).toHaveLength(2);
		expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, e.secret)).toBe(true);
		expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, rot.body.secretNext)).toBe(true);

		expect((await env.api.post(`/webhooks/endpoints/${e.id}/rotate-secret/promote`)).status).toBe(200);
		r = await lastFor((await order()).id);
		expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, e.secret)).toBe(false);
		expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, rot.body.secretNext)).toBe(true);
		expect((await env.api.post(`/webhooks/endpoints/${e.id}/rotate-secret/promote`)).status).toBe(409);

		const imm = await env.api.post(`/webhooks/endpoints/${e.id}/rotate-secret?immediate=true`);
		r = await lastFor((await order()).id);
		expect(sigs(r.headers['x-service-webhook-signature'])).toHaveLength(1);
		expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, imm.body.secretNext)).toBe(true);
		expect(verifySignature(String(r.headers['x-service-webhook-signature']), r.raw, rot.body.secretNext)).toBe(false);
		expect((await env.api.post(`/webhooks/endpoints/${e.id}/rotate-secret?immediate=maybe`)).status).toBe(400);
	});

	it('test sends a signed webhook.ping synchronously and writes no delivery row', async () => {
		await clearEndpoints();
		const e = await addEndpoint(env, good.url);
		const before = (await env.api.get('/webhooks/deliveries')).body.total;
		const r = await env.api.post(`/webhooks/endpoints/${e.id}/test`);
		expect(r.status).toBe(200);
		expect(r.body).toMatchObject({ delivered: true, statusCode: 200, durationMs: expect.any(Number) });
		const got = good.received.find((x) => x.body?.type === 'webhook.ping' && x.headers['x-service-webhook-id'] === r.body.eventId)!;
		expect(got.body).toEqual({
			id: expect.stringMatching(/^evt_test_[0-9a-f-]{36}$/),
			type: 'webhook.ping',
			created: expect.any(String),
			accountId: env.state.accountId,
			data: { message: expect.any(String) },
		});
		expect(got.headers['x-service-event']).toBe('webhook.ping');
		expect(verifySignature(String(got.headers['x-service-webhook-signature']), got.raw, e.secret)).toBe(true);
		expect((await env.api.get('/webhooks/deliveries')).body.total).toBe(before);
		const b = await addEndpoint(env, bad.url);
		const failed = await env.api.post(`/webhooks/endpoints/${b.id}/test`);
		expect(failed.body).toMatchObject({ delivered: false, statusCode: 500 });
	});
});

describe('delivery semantics', () => {
	it('backoff is 10 s doubling, capped at 15 min, about 60 attempts over roughly half a day', () => {
		expect([1, 2, 3, 4].map(backoffMs)).toEqual([10_000, 20_000, 40_000, 80_000]);
		expect(backoffMs(7)).toBe(640_000);
		expect(backoffMs(8)).toBe(900_000);
		expect(backoffMs(59)).toBe(900_000);
		const total = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => backoffMs(i + 1)).reduce((a, b) => a + b, 0);
		expect(total / 3600_000).toBeGreaterThan(10);
		expect(total / 3600_000).toBeLessThan(16);
		expect(MAX_ATTEMPTS).toBe(60);
		expect(AUTO_DISABLE_AFTER).toBe(10);
	});

	it('retries a failing receiver with the same webhook id and delivery id until a 2xx; attempts are recorded', async () => {
		await clearEndpoints();
		const flaky = await new Receiver().start();
		const seen = new Map<string, number>();
		flaky.respond = (r) => {
			const n = (seen.get(r.body.id) ?? 0) + 1;
			seen.set(r.body.id, n);
			return n < 3 ? 503 : 204;
		};
		const e = await addEndpoint(env, flaky.url);
		const o = await order();
		const d = await waitFor(async () => (await deliveriesOf(e.id)).find((x) => x.status === 'DELIVERED'));
		const full = (await env.api.get(`/webhooks/deliveries/${d.id}`)).body;
		expect(full.attempts.map((a: any) => a.statusCode)).toEqual([503, 503, 204]);
		expect(full).toMatchObject({
			id: d.id,
			endpointId: e.id,
			eventId: expect.any(String),
			publicEventType: 'payment_order',
			status: 'DELIVERED',
			lastStatusCode: 204,
			deliveredAt: expect.any(String),
			attemptSalt: expect.any(Number),
		});
		expect(full.request.body.data.payment_order.id).toBe(o.id);
		const got = flaky.received.filter((r) => r.body.data.payment_order.id === o.id);
		expect(got).toHaveLength(3);
		expect(new Set(got.map((g) => g.headers['x-service-webhook-id'])).size).toBe(1);
		expect(new Set(got.map((g) => g.headers['x-service-webhook-delivery-id']))).toEqual(new Set([d.id]));
		expect(new Set(got.map((g) => g.raw)).size).toBe(1);
		expect((await env.api.get(`/webhooks/endpoints/${e.id}`)).body.consecutiveFailures).toBe(0);
		await flaky.close();
	});

	it("deliveryAttempts (a test option) ends a delivery FAILED after that many attempts instead of the service's 60", async () => {
		const few = await setup({ timeScale: 100_000, attemptTimeoutMs: 2_000, deliveryAttempts: 3 });
		try {
			const e = await addEndpoint(few, bad.url);
			await createOrder(few, { expiresAt: future(3650 * 86400_000) });
			const failed = await waitFor(async () =>
				(await few.api.get(`/webhooks/deliveries?endpointId=${e.id}`)).body.deliveries.find((d: any) => d.status === 'FAILED'),
			);
			expect((await few.api.get(`/webhooks/deliveries/${failed.id}`)).body.attempts).toHaveLength(3);
		} finally {
			await few.sb.close();
		}
	});

	it('marks a delivery FAILED after the attempts are exhausted; 10 consecutive failed deliveries disable the endpoint; then SKIPPED', async () => {
		await clearEndpoints();
		const e = await addEndpoint(env, bad.url);
		for (let i = 0; i < AUTO_DISABLE_AFTER; i++) await order();
		const ep = await waitFor(
			async () => {
				const x = (await env.api.get(`/webhooks/endpoints/${e.id}`)).body;
				return x.status === 'DISABLED' && x;
			},
			20_000,
			'auto-disable',
		);
		expect(ep.consecutiveFailures).toBe(AUTO_DISABLE_AFTER);
		expect(ep.disabledAt).toEqual(expect.any(String));
		const ds = await deliveriesOf(e.id);
		expect(ds.filter((d) => d.status === 'FAILED')).toHaveLength(AUTO_DISABLE_AFTER);
		const one = (await env.api.get(`/webhooks/deliveries/${ds[0].id}`)).body;
		expect(one.attempts).toHaveLength(MAX_ATTEMPTS);
		expect(one.failedAt).toEqual(expect.any(String));
		// The operator console says that it is disabled, and why.
		const shown = (await env.op.get('/overview')).body.endpoints.find((x: any) => x.id === e.id);
		expect(shown).toMatchObject({ status: 'DISABLED', disabledAt: ep.disabledAt });
		expect(shown.disabledReason).toMatch(/^auto-disabled after 10 consecutive failed deliveries \(last: HTTP 500\)/);
		await order();
		const skipped = await waitFor(async () => (await deliveriesOf(e.id)).find((d) => d.status === 'SKIPPED'));
		expect(skipped.lastStatusCode).toBeNull();
		// re-enable: the counter resets and deliveries flow again
		// A FAILED and a SKIPPED delivery replay into new records of the same event, once re-enabled.
		const failedOne = ds.find((d) => d.status === 'FAILED')!;
		const re = await env.api.patch(`/webhooks/endpoints/${e.id}`, { status: 'ENABLED' });
		expect(re.body).toMatchObject({ status: 'ENABLED', consecutiveFailures: 0 });
		expect((await env.op.get('/overview')).body.endpoints.find((x: any) => x.id === e.id).disabledReason).toBeNull();
		for (const d of [failedOne, skipped]) {
			const replay = await env.api.post(`/webhooks/deliveries/${d.id}/replay`);
			expect(replay.status).toBe(202);
			expect(replay.body).toMatchObject({ eventId: d.eventId, status: 'PENDING' });
			expect(replay.body.id).not.toBe(d.id);
		}
		bad.respond = () => 200;
		await order();
		await waitFor(async () => (await deliveriesOf(e.id)).find((d) => d.status === 'DELIVERED'));
		bad.respond = () => 500;
	}, 60_000); // its own waits allow 20 s: jest's default 5 s cut it short on a loaded machine

	it('a success resets consecutiveFailures; a timeout counts as a failed attempt', async () => {
		await clearEndpoints();
		const hang = await new Receiver().start();
		// The first attempt gets no answer (the sandbox gives up after its attempt timeout); the retry is answered.
		// The first attempt waits 1 s for it; once it has arrived, the file's 2 s hold again for the retry (an
		// attempt reads the timeout when it starts), so a slow machine does not time the retry out too.
		const { opts } = env.sb.services.core;
		const fileTimeout = opts.attemptTimeoutMs;
		opts.attemptTimeoutMs = 1_000;
		let answered = 0;
		hang.respond = () => {
			opts.attemptTimeoutMs = fileTimeout;
			return ++answered === 1 ? 'hang' : 200;
		};
		const e = await addEndpoint(env, hang.url);
		await order();
		const [d] = await waitFor(
			async () => {
				const ds = await deliveriesOf(e.id);
				return ds.length > 0 && ds.every((x) => x.status === 'DELIVERED') && ds;
			},
			10_000,
			'delivery after a timeout',
		).finally(() => (opts.attemptTimeoutMs = fileTimeout));
		const { attempts } = (await env.api.get(`/webhooks/deliveries/${d.id}`)).body;
		expect(attempts.map((a: any) => [a.statusCode, a.error])).toEqual([
			[null, 'timeout'],
			[200, null],
		]);
		// A failed attempt that the delivery outlived is no failed delivery: nothing toward auto-disable.
		expect((await env.api.get(`/webhooks/endpoints/${e.id}`)).body.consecutiveFailures).toBe(0);
		await env.api.del(`/webhooks/endpoints/${e.id}`);
		await hang.close();
	});

	it('deliveries to a DISABLED endpoint are SKIPPED', async () => {
		await clearEndpoints();
		const e = await addEndpoint(env, good.url);
		await env.api.patch(`/webhooks/endpoints/${e.id}`, { status: 'DISABLED' });
		await order();
		const ds = await deliveriesOf(e.id);
		expect(ds.map((d) => d.status)).toEqual(['SKIPPED']);
	});
});

describe('deliveries log and replay', () => {
	it('lists newest first with filters and pagination; 400 on bad filters', async () => {
		await clearEndpoints();
		const e = await addEndpoint(env, good.url);
		for (let i = 0; i < 3; i++) await order();
		await env.op.post('/webhooks/flush');
		await waitFor(async () => (await deliveriesOf(e.id)).every((d) => d.status === 'DELIVERED'));
		const all = await env.api.get(`/webhooks/deliveries?endpointId=${e.id}&status=DELIVERED&type=payment_order&limit=2`);
		expect(all.status).toBe(200);
		expect(all.body).toMatchObject({ total: 3, limit: 2, offset: 0, hasMore: true });
		expect(all.body.deliveries).toHaveLength(2);
		expect(all.body.deliveries[0].createdAt >= all.body.deliveries[1].createdAt).toBe(true);
		const rest = await env.api.get(`/webhooks/deliveries?endpointId=${e.id}&limit=2&offset=2`);
		expect(rest.body).toMatchObject({ hasMore: false });
		expect(rest.body.deliveries).toHaveLength(1);
		expect(rest.body.deliveries[0].rawBody).toBeUndefined();
		for (const qs of ['status=DONE', 'type=webhook.ping', 'limit=0', 'limit=1001', 'offset=-1', 'endpointId=abc']) {
			expect((await env.api.get(`/webhooks/deliveries?${qs}`)).status).toBe(400);
		}
		expect((await env.api.get('/webhooks/deliveries/00000000-0000-4000-8000-000000000000')).status).toBe(404);
	});

	it('replay creates a new delivery record with the same payload and the same webhook id', async () => {
		await clearEndpoints();
		const e = await addEndpoint(env, good.url);
		const o = await order();
		const d = await waitFor(async () => {
			const x = await deliveriesOf(e.id);
			return x.length > 0 && x[0].status === 'DELIVERED' ? x[0] : null;
		});
		const r = await env.api.post(`/webhooks/deliveries/${d.id}/replay`);
		expect(r.status).toBe(202);
		expect(r.body.id).not.toBe(d.id);
		expect(r.body.eventId).toBe(d.eventId);
		await waitFor(async () => (await env.api.get(`/webhooks/deliveries/${r.body.id}`)).body.status === 'DELIVERED');
		const got = good.received.filter((x) => x.body?.data?.payment_order?.id === o.id);
		expect(got).toHaveLength(2);
		expect(got[1].headers['x-service-webhook-id']).toBe(got[0].headers['x-service-webhook-id']);
		expect(got[1].raw).toBe(got[0].raw);
		expect(got[1].headers['x-service-webhook-delivery-id']).toBe(r.body.id);
		expect((await deliveriesOf(e.id)).map((x) => x.id)).toEqual([r.body.id, d.id]);
		expect((await env.api.post('/webhooks/deliveries/00000000-0000-4000-8000-000000000000/replay')).status).toBe(404);
	});

	it('the operator API records every outgoing attempt', async () => {
		const r = await env.op.get('/webhooks/attempts');
		expect(r.body.attempts.length).toBeGreaterThan(0);
		expect(r.body.attempts[0]).toMatchObject({
			url: expect.any(String),
			headers: expect.objectContaining({ 'x-service-webhook-signature': expect.any(String) }),
			body: expect.any(String),
		});
	});
});
