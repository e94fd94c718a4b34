/** Operator API: faults (status, Retry-After, delay, commit-then-500), the request log, reset, state, what the console says. */
import { Receiver } from '../../harness/receiver';
import { waitFor } from '../../harness/wait';
import { Client, maskedSecret, walletOf } from '../../harness/sandboxClient';
import { SandboxEnv, createOrder, fund, future, getOrder, orders, paymentBody, setup } from './support';
import { nettingView } from '../../sandbox/operator/words';

let env: SandboxEnv;
beforeAll(async () => {
	// Webhook attempts wait 500 ms for an answer (the console test below times one out).
	env = await setup({ attemptTimeoutMs: 500 });
});
afterAll(() => env.sb.close());
afterEach(async () => {
	await env.op.del('/faults');
});

describe('faults', () => {
	it('answers the next N matching requests with a status and Retry-After, then recovers', async () => {
		const f = await env.op.post('/faults', { method: 'GET', path: '^/api/v1/supported-assets$', count: 2, status: 429, retryAfter: 3 });
		expect(f.status).toBe(201);
		for (let i = 0; i < 2; i++) {
			const r = await env.api.get('/supported-assets');
			expect(r.status).toBe(429);
			expect(r.headers.get('retry-after')).toBe('3');
			expect(r.body.error).toEqual(expect.any(String));
		}
		expect((await env.api.get('/supported-assets')).status).toBe(200);
	});

	it('matches the method and the path regex only', async () => {
		await env.op.post('/faults', { method: 'POST', path: 'supported', status: 503 });
		expect((await env.api.get('/supported-assets')).status).toBe(200);
		await env.op.post('/faults', { path: 'return-details$', status: 503, retryAfter: 1 });
		const r = await env.api.put('/payment-orders/x/return-details', {}, { 'If-Match': '"0"', 'Idempotency-Key': 'k' });
		expect(r.status).toBe(503);
	});

	it('delays a request', async () => {
		await env.op.post('/faults', { path: 'supported-assets', delayMs: 300 });
		const t0 = Date.now();
		expect((await env.api.get('/supported-assets')).status).toBe(200);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
	});

	it('reads the body before the delay: a POST whose client gives up during the delay is logged with its body, and acted on', async () => {
		await env.op.del('/requests');
		const since = (await env.op.get('/requests')).body.lastSeq;
		// The delay is a hold (sandbox/traffic.ts, in process; delayMs takes the same path in router.ts) that
		// ends once the client has given up: the abort falls inside it however slowly this machine runs, and
		// nothing waits out a timer. delayMs itself: the tests above and below.
		let release = () => {};
		const delay = {
			method: 'POST',
			path: /^\/api\/v1\/payment$/,
			pathSource: '^/api/v1/payment$',
			count: 1,
			hold: new Promise<void>((done) => (release = done)),
		};
		env.sb.services.traffic.faults.push(delay);
		const body = paymentBody(env, { idempotencyKey: 'cut-off-during-delay', memo: 'cut-off-during-delay' });
		const abort = new AbortController();
		const sent = fetch(env.api.base + '/payment', {
			method: 'POST',
			headers: { 'x-api-key': env.sb.apiKey, 'content-type': 'application/json' },
			body: JSON.stringify(body),
			signal: abort.signal,
		});
		sent.catch(() => undefined);
		// The fault is taken when the request arrives; its body follows in the same packet.
		await waitFor(async () => (await env.op.get('/faults')).body.faults.length === 0, 8000, 'the delayed request to arrive');
		abort.abort();
		await expect(sent).rejects.toThrow();
		// One more round trip to the sandbox (this process): its server has then seen the connection close.
		expect((await env.op.get('/faults')).status).toBe(200);
		release();
		const [entry] = await waitFor(
			async () => {
				const posts = (await env.op.get(`/requests?since=${since}`)).body.requests.filter((r: any) => r.path === '/api/v1/payment');
				return posts.length > 0 && posts;
			},
			8000,
			'the cut-off request in the log',
		);
		expect(entry).toMatchObject({ method: 'POST', status: 201, body: { idempotencyKey: 'cut-off-during-delay', memo: body.memo } });
		// The whole request had arrived, so the service made the order, as a real one would: the
		// client's retry with the same key gets that order back, and there is only one.
		const made = (await env.api.get(orders('limit=1000'))).body.paymentOrders.filter((o: any) => o.memo === body.memo);
		expect(made).toHaveLength(1);
		const retry = await env.api.post('/payment', body);
		expect(retry.status).toBe(201);
		expect(retry.body.paymentOrderId).toBe(made[0].id);
	});

	it('an injected status after a delay still logs the body it read', async () => {
		const since = (await env.op.get('/requests')).body.lastSeq;
		await env.op.post('/faults', { method: 'POST', path: '^/api/v1/add-user-record$', delayMs: 50, status: 503 });
		expect((await env.api.post('/add-user-record', { label: 'delayed', wallets: [] })).status).toBe(503);
		expect((await env.api.post('/add-user-record', { label: 'broken', wallets: [] })).status).toBe(201);
		const [faulted] = (await env.op.get(`/requests?since=${since}`)).body.requests;
		expect(faulted).toMatchObject({ method: 'POST', status: 503, body: { label: 'delayed', wallets: [] } });
	});

	it('commitThen500 commits the order, answers 500, and a retry with the same key returns it: exactly one order', async () => {
		const before = (await env.api.get(orders())).body.total;
		await env.op.post('/faults', { method: 'POST', path: '^/api/v1/payment$', commitThen500: true });
		const body = paymentBody(env, { idempotencyKey: 'retry-me' });
		const first = await env.api.post('/payment', body);
		expect(first.status).toBe(500);
		expect(first.body).toEqual({ error: expect.any(String) });
		const retry = await env.api.post('/payment', body);
		expect(retry.status).toBe(201);
		const list = (await env.api.get(orders())).body;
		expect(list.total).toBe(before + 1);
		expect(list.paymentOrders[0].id).toBe(retry.body.paymentOrderId);
	});

	it('rewards requests can be faulted too; DELETE clears faults; bad regex is 400', async () => {
		await env.op.post('/faults', { path: '^/api/v1/rewards/rules$', status: 500, count: 5 });
		expect((await env.rewards.get('/rewards/rules')).status).toBe(500);
		await env.op.del('/faults');
		expect((await env.rewards.get('/rewards/rules')).status).toBe(200);
		expect((await env.op.post('/faults', { path: '(', status: 500 })).status).toBe(400);
	});
});

describe('request log', () => {
	it('never returns a key a client sent: a production key sent here by mistake is logged as its last four characters and a fingerprint (issue 46)', async () => {
		const since = (await env.op.get('/requests')).body.lastSeq;
		const production = 'sk_live_4f9a1c7e2b8d6a0f3e5c9b1d';
		for (const key of [production, env.sb.apiKey]) {
			await fetch(`${env.sb.mainUrl}/api/v1/account/limits`, { headers: { 'x-api-key': key, authorization: `Bearer ${key}` } });
		}
		const answer = await fetch(`${env.sb.operatorUrl}/requests?since=${since}`);
		const text = await answer.text();
		expect(text).not.toContain(production);
		expect(text).not.toContain(env.sb.apiKey);
		const logged = (JSON.parse(text).requests as Array<{ status: number; headers: Record<string, string> }>).map((r) => [
			r.status,
			r.headers['x-api-key'],
			r.headers.authorization,
		]);
		expect(logged).toEqual([
			[401, maskedSecret(production), maskedSecret(`Bearer ${production}`)],
			[200, maskedSecret(env.sb.apiKey), maskedSecret(`Bearer ${env.sb.apiKey}`)],
		]);
		expect(maskedSecret(production)).toMatch(/^\*\*\*\*9b1d \(sha256 [0-9a-f]{8}\)$/);
		// Two keys that end alike (the demo account's and its subaccount's) are still told apart.
		expect(maskedSecret('sk_sandbox_demo_key')).not.toBe(maskedSecret('sk_sandbox_demo_sub_key'));
	});

	it('records every public request with method, path, query, lowercased headers, parsed body and status', async () => {
		await env.op.del('/requests');
		const since = (await env.op.get('/requests')).body.lastSeq;
		await env.api.get('/payment-orders?status=FUNDED&status=LOCKED&limit=5');
		await env.api.post('/add-user-record', { label: 'logme', wallets: [] }, { 'X-Custom': 'Yes' });
		await new Client(env.sb.mainUrl + '/api/v1').get('/supported-assets');
		await env.rewards.get('/rewards/rule-blocks');
		const r = await env.op.get(`/requests?since=${since}`);
		expect(r.body.requests).toHaveLength(4);
		const [list, add, noKey, rewards] = r.body.requests;
		expect(list).toMatchObject({
			api: 'main',
			method: 'GET',
			path: '/api/v1/payment-orders',
			query: { status: ['FUNDED', 'LOCKED'], limit: '5' },
			status: 200,
			body: null,
		});
		// Keys are masked: the last four characters and a fingerprint, never the key (a client may send a production key here).
		expect(list.headers['x-api-key']).toBe(maskedSecret(env.sb.apiKey));
		expect(list.headers['x-api-key']).toMatch(/^\*\*\*\*_key \(sha256 [0-9a-f]{8}\)$/);
		expect(JSON.stringify(r.body)).not.toContain(env.sb.apiKey);
		expect(add).toMatchObject({ method: 'POST', body: { label: 'logme', wallets: [] }, status: 201 });
		expect(add.headers['x-custom']).toBe('Yes');
		expect(noKey.status).toBe(401);
		expect(rewards).toMatchObject({ api: 'rewards', path: '/api/v1/rewards/rule-blocks', status: 200 });
		const later = await env.op.get(`/requests?since=${rewards.seq}`);
		expect(later.body.requests).toHaveLength(0);
		await env.op.del('/requests');
		expect((await env.op.get('/requests')).body.requests).toHaveLength(0);
	});
	it('does not log operator calls', async () => {
		await env.op.del('/requests');
		await env.op.get('/state');
		expect((await env.op.get('/requests')).body.requests).toHaveLength(0);
	});
});

describe('deposits', () => {
	// timeScale 1 here: the automatic confirmation steps take 5 s, so the operator moves the deposit first
	it('moves a deposit through its statuses at once, bumping deposit and order versions', async () => {
		const o = await createOrder(env, { expiresAt: future(365 * 86400_000) });
		const d = await env.op.post('/deposits', { paymentOrderId: o.id, sender: walletOf(env.alice, 'base'), chain: 'base', asset: 'USDC', amountUsd: 100 });
		expect(d.status).toBe(201);
		expect(d.body).toMatchObject({ transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), to: expect.any(String) });
		await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [{ hash: d.body.transactionHash, chain: 'base' }] });
		const v0 = await getOrder(env, o.id);
		expect(v0.inboundTransfers[0]).toMatchObject({ status: 'PENDING_VERIFICATION', version: 1 });
		await env.op.post(`/deposits/${d.body.transactionHash}/status`, { status: 'ONCHAIN_CONFIRMED' });
		const v1 = await getOrder(env, o.id);
		expect(v1.inboundTransfers[0]).toMatchObject({ status: 'ONCHAIN_CONFIRMED', version: 2 });
		expect(v1.version).toBe(v0.version + 1);
		expect(v1.status).toBe('AWAITING_FUNDS');
		const r = await env.op.post(`/deposits/${d.body.transactionHash}/status`, { status: 'CONFIRMED' });
		expect(r.body).toMatchObject({ orderStatus: 'FUNDED' });
		const v2 = await getOrder(env, o.id);
		expect(v2.inboundTransfers[0]).toMatchObject({ status: 'CONFIRMED', version: 3 });
		expect(v2.version).toBeGreaterThan(v1.version);
		expect((await env.op.post('/deposits/0xnope/status', { status: 'CONFIRMED' })).status).toBe(404);
		expect((await env.op.post(`/deposits/${d.body.transactionHash}/status`, { status: 'LOST' })).status).toBe(400);
	});

	it('a deposit that FAILS does not fund the order', async () => {
		const o = await createOrder(env, { expiresAt: future(365 * 86400_000) });
		const d = await env.op.post('/deposits', {
			paymentOrderId: o.id,
			sender: walletOf(env.alice, 'ethereum'),
			chain: 'ethereum',
			asset: 'USDC',
			amountUsd: 100,
		});
		await env.api.post(`/payment-orders/${o.id}/transactions`, { transactions: [{ hash: d.body.transactionHash, chain: 'ethereum' }] });
		await env.op.post(`/deposits/${d.body.transactionHash}/status`, { status: 'FAILED' });
		const x = await getOrder(env, o.id);
		expect(x).toMatchObject({ status: 'AWAITING_FUNDS', receivedTotal: 0 });
		expect(x.inboundTransfers[0].status).toBe('FAILED');
	});
});

describe('clock', () => {
	it('cancel settles later (202 first), and advancing the clock runs the deferred settlement', async () => {
		const o = await createOrder(env);
		expect((await env.api.post(`/payment-orders/${o.id}/cancel`, { reason: 'later' })).status).toBe(202);
		const pending = await getOrder(env, o.id);
		expect(pending).toMatchObject({ status: 'AWAITING_FUNDS', cancelRequestedAt: expect.any(String), cancelReason: 'later' });
		const adv = await env.op.post('/clock/advance', { seconds: 10 });
		expect(adv.body.tasksRun).toBeGreaterThan(0);
		expect((await getOrder(env, o.id)).status).toBe('CANCELED');
	});

	it('advancing past expiresAt expires the order; confirmation steps chain inside one advance', async () => {
		const o = await createOrder(env, { expiresAt: future(3600_000) });
		const funded = await createOrder(env, { expiresAt: future(3600_000) });
		const d = await env.op.post('/deposits', {
			paymentOrderId: funded.id,
			sender: walletOf(env.alice, 'ethereum'),
			chain: 'ethereum',
			asset: 'USDC',
			amountUsd: 100,
		});
		await env.api.post(`/payment-orders/${funded.id}/transactions`, { transactions: [{ hash: d.body.transactionHash, chain: 'ethereum' }] });
		await env.op.post('/clock/advance', { seconds: 60 });
		expect((await getOrder(env, funded.id)).status).toBe('FUNDED');
		expect((await getOrder(env, o.id)).status).toBe('AWAITING_FUNDS');
		await env.op.post('/clock/advance', { seconds: 3600 });
		expect((await getOrder(env, o.id)).status).toBe('EXPIRED');
		expect((await getOrder(env, funded.id)).status).toBe('FUNDED');
	});
});

describe('state and reset', () => {
	it('describes the demo seed with deterministic ids and realistic wallets', async () => {
		const s = (await env.op.get('/state')).body;
		expect(s).toMatchObject({
			accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
			apiKey: 'sk_sandbox_demo_key',
			capabilities: ['INSTANT_PAYMENT', 'STANDARD_QUOTE_FALLBACK', 'NETTED_QUOTES'],
		});
		const alice = s.users.find((u: any) => u.label === 'alice');
		expect(alice.wallets.map((w: any) => [w.chain, w.status])).toEqual([
			['ethereum', 'ACTIVE'],
			['solana', 'ACTIVE'],
			['base', 'ACTIVE'],
		]);
		expect(alice.wallets[0].address).toMatch(/^0x[0-9a-f]{40}$/);
		expect(alice.wallets[1].address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
		expect(s.subaccounts[0]).toMatchObject({ status: 'ACTIVE', kyb: 'APPROVED', provisioned: true, apiKey: expect.any(String) });
		const other = await setup({ seed: 'demo' });
		const s2 = (await other.op.get('/state')).body;
		await other.sb.close();
		expect(s2.accountId).toBe(s.accountId);
		expect(s2.users.map((u: any) => u.id)).toEqual(s.users.slice(0, 3).map((u: any) => u.id)); // alice, bob, carol
	});
	it('reset returns to a fresh seed with the same key; empty seed has no users', async () => {
		await env.api.post('/payment', paymentBody(env));
		expect((await env.op.post('/reset', { seed: 'empty' })).status).toBe(200);
		expect((await env.api.get(orders())).body.total).toBe(0);
		expect((await env.op.get('/state')).body.users).toHaveLength(0);
		await env.op.post('/reset', { seed: 'demo' });
		expect((await env.op.get('/state')).body.users.length).toBeGreaterThan(1);
		expect((await env.api.get('/supported-assets')).status).toBe(200);
	});
	it('bad operator input is 400 and unknown ids are 404', async () => {
		expect((await env.op.post('/clock/advance', { seconds: -1 })).status).toBe(400);
		expect((await env.op.post('/deposits', { paymentOrderId: 'nope', sender: 'x', chain: 'ethereum', asset: 'USDC', amountUsd: 1 })).status).toBe(404);
		expect((await env.op.post('/wallets/activate', { address: '0x' + '0'.repeat(40), chain: 'ethereum' })).status).toBe(404);
	});
});

describe('outbox', () => {
	it('keeps what an example would have posted to Slack or a sheet, by channel', async () => {
		expect((await env.op.post('/outbox/slack', { text: 'order funded' })).status).toBe(201);
		expect((await env.op.post('/outbox/ledger', { paymentOrderId: 'po-1' })).status).toBe(201);
		const slack = await env.op.get('/outbox?channel=slack');
		expect(slack.body.messages.map((m: any) => m.body)).toEqual([{ text: 'order funded' }]);
		expect((await env.op.get('/outbox')).body.messages.map((m: any) => m.channel)).toEqual(['slack', 'ledger']);
	});
});

describe('what the console says (GET /overview, POST /netting/close)', () => {
	const overview = async () => (await env.op.get('/overview')).body;

	it('names each endpoint by its description, and says what happened to each delivery: ran, dropped as a duplicate (a replay), failed, timed out', async () => {
		// A receiver that answers as the package's trigger does: it runs an event once, then drops its repeats.
		const trigger = await new Receiver().start();
		const seen = new Set<string>();
		trigger.respond = (r) => {
			const id = String(r.headers['x-service-webhook-id']);
			if (seen.has(id)) return { status: 200, body: { received: true, ignored: 'duplicate' } };
			seen.add(id);
			return { status: 200, body: { message: 'Workflow was started' } };
		};
		const failing = await new Receiver().start();
		failing.respond = () => ({ status: 503, body: { error: 'Could not confirm the event with the API, retry later' } });
		const hanging = await new Receiver().start();
		hanging.respond = () => 'hang';
		const described = 'n8n workflow "Payouts to Slack" (wf123), node "Clearinghouse Trigger"';
		const endpoint = async (url: string, description?: string) =>
			(await env.api.post('/webhooks/endpoints', { url, ...(description ? { description } : {}), eventTypes: ['payment_order'] })).body.id as string;
		const ids = {
			trigger: await endpoint(trigger.url, described),
			failing: await endpoint(`${failing.url}/hook`),
			hanging: await endpoint(hanging.url, 'slow receiver'),
		};
		try {
			const o = await createOrder(env, { memo: 'CONSOLE-WORDS' });
			const of = (view: any, endpointId: string) => view.deliveries.find((d: any) => d.endpointId === endpointId && d.orderId === o.id && !d.replayOf);
			const view = await waitFor(
				async () => {
					const v = await overview();
					return [ids.trigger, ids.failing, ids.hanging].every((id) => of(v, id)?.answers.length > 0) && v;
				},
				8000,
				'one answer (or timeout) per endpoint',
			);
			expect(view.endpoints.find((e: any) => e.id === ids.trigger)).toMatchObject({ description: described, name: described });
			// Without a description: the URL path and the start of the id.
			expect(view.endpoints.find((e: any) => e.id === ids.failing).name).toBe(`no description: /hook · ${ids.failing.slice(0, 8)}`);

			expect(of(view, ids.trigger)).toMatchObject({
				memo: 'CONSOLE-WORDS',
				orderStatus: 'AWAITING_FUNDS',
				status: 'DELIVERED',
				outcome: 'ran',
				says: 'ran: the receiver accepted it with HTTP 200 ("Workflow was started")',
				answers: [{ attempt: 1, statusCode: 200, body: '{"message":"Workflow was started"}' }],
			});
			const failed = of(view, ids.failing);
			expect(failed).toMatchObject({ status: 'PENDING', outcome: 'retrying' });
			expect(failed.says).toMatch(
				/^failed once so far \(last: HTTP 503 in \d+ ms: "Could not confirm the event with the API, retry later"\); next attempt at \d\d:\d\d:\d\d UTC$/,
			);
			expect(failed.answers[0]).toMatchObject({ statusCode: 503, body: '{"error":"Could not confirm the event with the API, retry later"}' });
			const slow = of(view, ids.hanging);
			expect(slow).toMatchObject({ outcome: 'retrying', answers: [{ statusCode: null, error: 'timeout', body: null }] });
			expect(slow.says).toMatch(/^failed once so far \(last: no answer within 500 ms \(timeout\)\)/);

			// A replay is the same event again: the trigger drops it, and the console says so.
			const original = of(view, ids.trigger);
			const replay = await env.api.post(`/webhooks/deliveries/${original.id}/replay`);
			expect(replay.status).toBe(202);
			const copy = await waitFor(
				async () => (await overview()).deliveries.find((d: any) => d.id === replay.body.id && d.status === 'DELIVERED'),
				8000,
				'the replay delivered',
			);
			expect(copy).toMatchObject({ replayOf: original.id, outcome: 'dropped', droppedAs: 'duplicate' });
			expect(copy.says).toBe('dropped by the trigger as a duplicate: it has already run this event (a retry or a replay repeats it); it answered HTTP 200');
			expect(copy.answers[0].body).toBe('{"received":true,"ignored":"duplicate"}');
			// The attempts log keeps the answer too.
			const logged = (await env.op.get(`/webhooks/attempts?endpointId=${ids.trigger}`)).body.attempts;
			expect(logged.map((a: any) => a.response)).toEqual(expect.arrayContaining(['{"received":true,"ignored":"duplicate"}']));
		} finally {
			for (const id of Object.values(ids)) await env.api.del(`/webhooks/endpoints/${id}`);
			await Promise.all([trigger.close(), failing.close(), hanging.close()]);
		}
	});

	it('says where an order stands in the netting, why one funded just before a close waits for the next window, and the close in words', async () => {
		const epoch = (await overview()).epoch;
		const early = await createOrder(env, { memo: 'NET-EARLY', expiresAt: future(365 * 86400_000) });
		const late = await createOrder(env, { memo: 'NET-LATE', expiresAt: future(365 * 86400_000) });
		const hash = await fund(env, early.id, 100);
		await env.op.post(`/deposits/${hash}/status`, { status: 'CONFIRMED' });
		// Seconds before the close: the deposit is seen on chain, not yet swept (5 s per step at timeScale 1).
		await fund(env, late.id, 100);
		const before = await overview();
		const standing = (v: any, id: string) => v.orders.find((o: any) => o.id === id).netting;
		expect(standing(before, early.id)).toBe(`funded: delivered when netting window ${epoch} closes`);
		expect(standing(before, late.id)).toBe(
			'not funded yet: its deposit is PENDING_VERIFICATION (seen on chain, not yet swept into clearing). ' +
				`A window takes only the orders FUNDED when it closes, so if window ${epoch} closes before the sweep, this order waits for window ${epoch + 1}`,
		);

		const close = (await env.op.post('/netting/close')).body;
		expect(close).toMatchObject({ epochId: epoch, distributedIds: expect.arrayContaining([early.id]), waitingIds: [late.id] });
		expect(close.distributed).toBe(close.distributedIds.length);
		expect(close.says).toMatch(new RegExp(`^Netting window ${epoch} closed: \\d+ orders? delivered \\([^)]*NET-EARLY[^)]*\\)\\. `));
		expect(close.says).toContain(`1 order funded too late for it (deposit still being swept) waits for window ${epoch + 1}: NET-LATE.`);
		expect(close.says).toMatch(new RegExp(`Window ${epoch + 1} is open\\.$`));
		const after = await overview();
		expect(after).toMatchObject({ epoch: epoch + 1, lastNetting: { says: close.says } });
		expect(standing(after, early.id)).toBe(`delivered at the close of netting window ${epoch}`);
		expect(standing(after, late.id)).toMatch(new RegExp(`waits for window ${epoch + 2}$`));
		// A close with nothing funded says so.
		const idle = (await env.op.post('/netting/close')).body;
		expect(idle.says).toMatch(new RegExp(`^Netting window ${epoch + 1} closed with no funded orders\\. .*Window ${epoch + 2} is open\\.$`));
	});

	it('says that the payee of an expired order is unpaid and how to pay them', async () => {
		const o = await createOrder(env, { memo: 'DEAD-EXPIRED', expiresAt: future(365 * 86400_000) });
		await env.op.post(`/payment-orders/${o.id}/expire`);
		const shown = (await overview()).orders.find((x: any) => x.id === o.id);
		expect(shown.status).toBe('EXPIRED');
		expect(shown.netting).toBe('expired before it was funded: the payee is unpaid. To pay them, create a new order with a new Business Key');
	});

	it('says that the payee of a refunded or canceled order is unpaid', () => {
		const order = (status: string, extra = {}) => ({ status, inboundTransfers: [], receivedTotal: 0, internal: {}, ...extra }) as never;
		expect(nettingView(order('REFUNDED', { refundReason: 'CANCELED' }), 1)).toBe(
			'refunded (CANCELED): the deposit went back to its sender and the payee is unpaid. To pay them, create a new order with a new Business Key',
		);
		expect(nettingView(order('CANCELED'), 1)).toBe('canceled: the payee is unpaid. To pay them, create a new order with a new Business Key');
	});

	it('shows the surplus of an overfunded order and where it goes back', async () => {
		const o = await createOrder(env, { memo: 'OVERFUNDED', amountUsd: 100, expiresAt: future(365 * 86400_000) });
		const hash = await fund(env, o.id, 110.5);
		await env.op.post(`/deposits/${hash}/status`, { status: 'CONFIRMED' });
		const shown = async () => (await overview()).orders.find((x: any) => x.id === o.id);
		const waiting = await shown();
		expect(waiting).toMatchObject({ status: 'FUNDED', receivedTotal: 110.5, surplusUsd: 10.5 });
		// alice has no default return wallet: the surplus waits for return details.
		expect(waiting.surplus).toBe(
			'overfunded by 10.5 USD: the surplus waits for a return wallet on ethereum: the sender has no active default return wallet there and the order has no return details (Payment Order → Set Return Details)',
		);
		const address = walletOf(env.alice, 'ethereum');
		const put = await env.api.put(
			`/payment-orders/${o.id}/return-details`,
			{ userId: env.alice.id, wallets: [{ chain: 'ethereum', address }] },
			{ 'If-Match': '"0"', 'Idempotency-Key': 'console-surplus' },
		);
		expect(put.status).toBe(200);
		expect((await shown()).surplus).toBe(`overfunded by 10.5 USD: the surplus is about to go back to ${address.slice(0, 8)}…${address.slice(-4)}`);
		// An order paid exactly has no surplus.
		expect((await overview()).orders.find((x: any) => x.memo === 'NET-EARLY')).toMatchObject({ surplusUsd: null, surplus: null });
	});
});
