/**
 * webhook(): verification (401 and no run), events, filters, stale and duplicate drops, ping.
 * Genuine deliveries come from the sandbox's own webhook sender to a local receiver; forged and
 * crafted ones are signed here with an independent HMAC.
 */
import { WebhookContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { forgetMemory } from '../../../nodes/ClearinghouseTrigger/events';
import { forgetOpenedSecrets, OPENED_SECRET_TTL_MS } from '../../../nodes/ClearinghouseTrigger/endpointSecret';
import { deliver, N8nStaticData, secretOf as storedSecret, setupFor, trigger, type Outcome, type TriggerUnderTest } from '../../../harness/inProcessTrigger';
import { activate, api, deposit, flush, newOrder, operator, requestsSince, until, useTriggerSandbox } from './support';
import { webhookContext } from '../../../harness/n8nContexts';
import { hmac, nowSeconds } from '../../../harness/signer';
import { maskedSecret } from '../../../harness/sandboxClient';

jest.setTimeout(30_000);

const { sb, receiver } = useTriggerSandbox();
let counter = 0;
/** Endpoint ids registered by earlier tests (kept aside: some tests wipe a trigger's static data). */
const endpointIds: string[] = [];

/** Each test gets its own published trigger, and the others' endpoints are removed (so each order's events reach only it). */
async function publishedTrigger(parameters: IDataObject = {}, apiKey?: string, typeVersion?: number): Promise<TriggerUnderTest> {
	for (const id of endpointIds.splice(0)) await api(sb, 'DELETE', `/webhooks/endpoints/${id}`);
	const t: TriggerUnderTest = { parameters, workflowId: `wh-${++counter}-${Date.now()}`, staticData: new N8nStaticData(), apiKey, typeVersion };
	receiver.serve(t);
	await activate(sb, receiver, t);
	endpointIds.push(String(t.staticData.node().endpointId));
	receiver.outcomes = [];
	return t;
}

/** Most tests here sign made-up orders or follow each genuine event's own payload: confirmation off. */
const published = (parameters: IDataObject = {}) => publishedTrigger(unconfirmed(parameters));
/** With the node's defaults (confirmation on). */
const publishedWithDefaults = (parameters: IDataObject = {}) => publishedTrigger(parameters);

function secretOf(t: TriggerUnderTest): string {
	return storedSecret(sb, t) as string;
}

/** Confirmation with the API off: for tests about something else that sign made-up orders, or that
 * follow each genuine event's own payload (a confirmed event carries the order's state at delivery). */
function unconfirmed(parameters: IDataObject = {}): IDataObject {
	return { ...parameters, options: { ...((parameters.options as IDataObject) ?? {}), confirmWithApi: false } };
}

function envelope(order: Record<string, unknown>, id = `evt_${Math.random().toString(16).slice(2)}_payment_order`): string {
	return JSON.stringify({
		id,
		type: 'payment_order',
		created: new Date().toISOString(),
		accountId: 'acc-test',
		data: { payment_order: order },
	});
}

/** A delivery signed here (independent HMAC) with the given secret and time. */
async function signed(t: TriggerUnderTest, body: string, opts: { secret?: string; t?: number; deliveryId?: string } = {}): Promise<Outcome> {
	const ts = opts.t ?? nowSeconds();
	return await deliver(
		sb,
		t,
		{
			'content-type': 'application/json',
			'x-service-webhook-signature': `t=${ts},v1=${hmac(opts.secret ?? secretOf(t), ts, body)}`,
			'x-service-webhook-delivery-id': opts.deliveryId ?? 'delivery-test',
		},
		Buffer.from(body),
	);
}

function expectRefused(outcome: Outcome, secret?: string): void {
	expect(outcome.status).toBe(401);
	expect(outcome.items).toBeUndefined();
	expect(outcome.threw).toBeUndefined();
	expect(outcome.body).toEqual({ error: 'Unauthorized' });
	if (secret) expect(JSON.stringify(outcome.body)).not.toContain(secret);
}

/** A delivery the receiver answered. */
type Answered = (typeof receiver.outcomes)[number];

/**
 * Waits until the receiver has answered `n` deliveries of the order, or deliveries for which `enough` holds
 * (sandbox sends on its own; flush hurries it).
 */
async function outcomesFor(orderId: string, enough: number | ((mine: Answered[]) => boolean)) {
	const done = typeof enough === 'number' ? (mine: Answered[]) => mine.length >= enough : enough;
	return await until(async () => {
		await flush(sb);
		const mine = receiver.outcomes.filter((o) => o.rawBody.toString().includes(orderId));
		return done(mine) ? mine : undefined;
	});
}
/** Among the deliveries, the one whose order is FUNDED. */
const funded = (mine: Answered[]) => mine.some((x) => JSON.parse(x.rawBody.toString()).data.payment_order.status === 'FUNDED');

describe('verification', () => {
	const order = { id: 'po-verify', status: 'AWAITING_FUNDS', version: 1, inboundTransfers: [] };

	it('accepts a correctly signed delivery', async () => {
		const t = await published();
		const outcome = await signed(t, envelope(order));
		expect(outcome.status).toBe(200);
		expect(outcome.items).toHaveLength(1);
	});

	it('refuses everything when no secret is stored (fails closed)', async () => {
		const t = await published();
		const secret = secretOf(t);
		t.staticData.saved = {};
		expectRefused(await signed(t, envelope(order), { secret }));
	});

	it('refuses a missing or malformed signature header', async () => {
		const t = await published();
		const body = envelope(order);
		const ts = nowSeconds();
		const sig = hmac(secretOf(t), ts, body);
		for (const header of [undefined, '', `v1=${sig}`, `t=${ts}`, `t=${ts};v1=${sig}`, `t=${ts},v1=${sig.slice(1)}`, `sig=${sig}`]) {
			const headers: Record<string, string> = { 'content-type': 'application/json' };
			if (header !== undefined) headers['x-service-webhook-signature'] = header;
			expectRefused(await deliver(sb, t, headers, Buffer.from(body)), secretOf(t));
		}
	});

	it('refuses a correctly signed delivery when n8n gave no raw bytes (fails closed)', async () => {
		const t = await published();
		const body = envelope(order);
		const ts = nowSeconds();
		const headers = { 'content-type': 'application/json', 'x-service-webhook-signature': `t=${ts},v1=${hmac(secretOf(t), ts, body)}` };
		expect((await deliver(sb, t, headers, Buffer.from(body))).status).toBe(200);
		for (const rawBody of [undefined, body]) expectRefused(await deliver(sb, t, headers, rawBody as unknown as Buffer), secretOf(t));
	});

	it('refuses a forged signature (another secret)', async () => {
		const t = await published();
		expectRefused(await signed(t, envelope(order), { secret: 'whsec_00000000000000000000000000000000' }), secretOf(t));
	});

	it('refuses a tampered body', async () => {
		const t = await published();
		const body = envelope({ ...order, amountUsd: 10 });
		const ts = nowSeconds();
		const headers = {
			'content-type': 'application/json',
			'x-service-webhook-signature': `t=${ts},v1=${hmac(secretOf(t), ts, body)}`,
		};
		expectRefused(await deliver(sb, t, headers, Buffer.from(body.replace('"amountUsd":10', '"amountUsd":10000'))));
		// Same JSON, different bytes: still refused (the raw body is what was signed).
		expectRefused(await deliver(sb, t, headers, Buffer.from(JSON.stringify(JSON.parse(body), null, 2))));
	});

	it('refuses a stale or future timestamp (replay of a captured request)', async () => {
		const t = await published();
		expectRefused(await signed(t, envelope(order), { t: nowSeconds() - 6 * 60 }));
		expectRefused(await signed(t, envelope(order), { t: nowSeconds() + 6 * 60 }));
		expect((await signed(t, envelope(order), { t: nowSeconds() - 4 * 60 })).status).toBe(200);
	});

	it('refuses a genuine sandbox delivery replayed 6 minutes later', async () => {
		const t = await published();
		const o = await newOrder(sb);
		const [first] = await outcomesFor(o.id, 1);
		expect(first.status).toBe(200);
		// The same bytes and header, re-sent after the tolerance (the clock moved on).
		const realNow = Date.now;
		Date.now = () => realNow() + 6 * 60_000;
		try {
			forgetMemory(); // so that only the timestamp can refuse it
			expectRefused(await deliver(sb, t, first.headers, first.rawBody));
		} finally {
			Date.now = realNow;
		}
	});

	it('accepts both signatures during a graceful secret rotation', async () => {
		const t = await published();
		const id = t.staticData.node().endpointId as string;
		const rotation = await api(sb, 'POST', `/webhooks/endpoints/${id}/rotate-secret`);
		expect(rotation.status).toBe(200);
		const ping = await api(sb, 'POST', `/webhooks/endpoints/${id}/test`);
		expect(ping.body.delivered).toBe(true);
		const header = receiver.outcomes[receiver.outcomes.length - 1].headers['x-service-webhook-signature'];
		expect(header.match(/v1=/g)).toHaveLength(2);
	});
});

describe('payment_order events from the sandbox', () => {
	it('become one item each with event id, type, created, accountId, delivery id, the order state key and the order', async () => {
		await publishedWithDefaults();
		const o = await newOrder(sb);
		const [outcome] = await outcomesFor(o.id, 1);
		expect(outcome.status).toBe(200);
		expect(outcome.items).toHaveLength(1);
		const event = JSON.parse(outcome.rawBody.toString());
		// Confirmed (the default): the order as the API returns it now, and the event's own copy.
		const now = (await api(sb, 'GET', `/payment-orders/${o.id}`)).body;
		expect(now.version).toBe(event.data.payment_order.version);
		expect(outcome.items![0].json).toEqual({
			eventId: event.id,
			type: 'payment_order',
			created: event.created,
			accountId: event.accountId,
			deliveryId: outcome.headers['x-service-webhook-delivery-id'],
			kind: 'status',
			orderStateKey: `${o.id}:AWAITING_FUNDS`,
			paymentOrder: now,
			eventPaymentOrder: event.data.payment_order,
		});
		expect(event.id).toMatch(/^evt_.+_payment_order$/);
		expect((outcome.items![0].json.paymentOrder as any).id).toBe(o.id);
	});

	it('drop a duplicate delivery (the service replays the same event id) and acknowledge it', async () => {
		await publishedWithDefaults();
		const o = await newOrder(sb);
		const [first] = await outcomesFor(o.id, 1);
		expect(first.items).toHaveLength(1);
		const deliveries = await api(sb, 'GET', `/webhooks/deliveries?limit=100`);
		const original = deliveries.body.deliveries.find((d: any) => d.id === first.headers['x-service-webhook-delivery-id']);
		expect((await api(sb, 'POST', `/webhooks/deliveries/${original.id}/replay`)).status).toBe(202);

		const [, second] = await outcomesFor(o.id, 2);
		expect(second.headers['x-service-webhook-id']).toBe(first.headers['x-service-webhook-id']);
		expect(second.headers['x-service-webhook-delivery-id']).not.toBe(first.headers['x-service-webhook-delivery-id']);
		expect(second.status).toBe(200);
		expect(second.items).toBeUndefined();
		expect(second.body).toEqual({ received: true, ignored: 'duplicate' });
	});

	it('drop duplicates even though n8n loses what webhook() writes to static data when a run starts', async () => {
		const t = await published();
		const body = envelope({ id: 'po-dup', status: 'FUNDED', version: 3, inboundTransfers: [] }, 'evt_dup_payment_order');
		const savedBefore = JSON.stringify(t.staticData.saved);
		expect((await signed(t, body)).items).toHaveLength(1);
		// The run started, so n8n saved nothing: the process memory is what drops the repeat.
		expect(JSON.stringify(t.staticData.saved)).toBe(savedBefore);
		expect((await signed(t, body)).body).toEqual({ received: true, ignored: 'duplicate' });
	});

	it('let only one of two concurrent deliveries of the same event through', async () => {
		const t = await published();
		const body = envelope({ id: 'po-race', status: 'FUNDED', version: 2, inboundTransfers: [] }, 'evt_race_payment_order');
		const outcomes = await Promise.all([signed(t, body), signed(t, body), signed(t, body)]);
		// The others are answered 2xx as duplicates, or 409 while the first one's run is not yet
		// accepted by n8n (the service retries those): never a second run.
		for (const o of outcomes) expect([200, 409]).toContain(o.status);
		expect(outcomes.filter((o) => o.items?.length === 1)).toHaveLength(1);
	});

	it('run an order state once when another event of it arrives while the first run is still being created ("On order funded", every default)', async () => {
		const t = await publishedWithDefaults({ statuses: ['FUNDED'] });
		const endpointId = String(t.staticData.node().endpointId);
		// Deliveries lag (n8n away for a moment): every event is read, confirmed, after the order was funded,
		// so the creation event and the FUNDED event both report the order funded.
		receiver.unserve(t);
		const o = await newOrder(sb, 10);
		await deposit(sb, o.id, 10);
		await until(async () => (await api(sb, 'GET', `/payment-orders/${o.id}`)).body.status === 'FUNDED');
		const mine = () => receiver.outcomes.filter((x) => x.rawBody.toString().includes(o.id));
		// n8n is slow to create the first run (a loaded machine): it answers only once the order's other
		// three events (creation, observed, confirmed on-chain, FUNDED: four in all) have been answered.
		let held = false;
		t.creatingRun = async () => {
			if (held) return;
			held = true;
			await until(async () => new Set(mine().map((x) => x.headers['x-service-webhook-id'])).size >= 3, 30_000);
		};
		receiver.serve(t);
		await until(async () => {
			await flush(sb);
			const log = (await api(sb, 'GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=100`)).body.deliveries as any[];
			return log.length >= 4 && log.every((d) => d.status === 'DELIVERED');
		}, 30_000);

		const items = mine().flatMap((x) => x.items ?? []);
		expect(items.map((i) => i.json.orderStateKey)).toEqual([`${o.id}:FUNDED`]);
		// The other event of that state was answered 409 while the run was being created, and its retry,
		// decided against what the run recorded, was dropped as stale.
		const deferred = mine().filter((x) => x.status === 409);
		expect(deferred.map((x) => x.body)).toEqual([{ error: 'A run of this order state is still in progress' }]);
		const retry = mine().filter((x) => x.headers['x-service-webhook-id'] === deferred[0].headers['x-service-webhook-id'] && x.status === 200);
		expect(retry.map((x) => x.body)).toEqual([{ received: true, ignored: 'stale' }]);
	});

	it('write nothing to the static data, also when they start no run (n8n would save the whole copy they loaded over what an activation wrote meanwhile)', async () => {
		const t = await published();
		const loaded: string[] = [];
		const after: string[] = [];
		const staticData = t.staticData;
		t.staticData = Object.assign(Object.create(N8nStaticData.prototype) as N8nStaticData, {
			saved: staticData.saved,
			forDelivery() {
				const copy = N8nStaticData.prototype.forDelivery.call(this);
				loaded.push(JSON.stringify(copy));
				return copy;
			},
			afterDelivery(copy: IDataObject, startedRun: boolean) {
				after.push(JSON.stringify(copy));
				N8nStaticData.prototype.afterDelivery.call(this, copy, startedRun);
			},
		});
		const body = envelope({ id: 'po-nowrite', status: 'FUNDED', version: 3, inboundTransfers: [] }, 'evt_nowrite_payment_order');
		expect((await signed(t, body)).items).toHaveLength(1);
		expect((await signed(t, body)).body).toEqual({ received: true, ignored: 'duplicate' });
		const ping = JSON.stringify({ id: 'evt_test_1', type: 'webhook.ping', created: new Date().toISOString(), accountId: 'a', data: { message: 'hi' } });
		expect((await signed(t, ping)).items).toBeUndefined();
		expect(after).toEqual(loaded);
		expect(after).toHaveLength(3);
	});

	it('let a duplicate through after a restart when nothing saved the mirror (why the README keys effects that must happen once on the event id)', async () => {
		const t = await published();
		const body = envelope({ id: 'po-lost', status: 'FUNDED', version: 3, inboundTransfers: [] }, 'evt_lost_payment_order');
		expect((await signed(t, body)).items).toHaveLength(1);
		forgetMemory();
		const again = await signed(t, body);
		expect(again.items).toHaveLength(1);
		// …and the item carries the event id, the key idempotent business steps use.
		expect(again.items![0].json.eventId).toBe('evt_lost_payment_order');
	});

	it('are emitted again for a replayed duplicate when duplicate dropping is off', async () => {
		const t = await published({ options: { dropDuplicates: false, dropStaleEvents: false } });
		const body = envelope({ id: 'po-nodedupe', status: 'FUNDED', version: 3, inboundTransfers: [] });
		expect((await signed(t, body)).items).toHaveLength(1);
		expect((await signed(t, body)).items).toHaveLength(1);
	});
});

describe('stale events', () => {
	it('drop an order version not above the highest emitted (genuine sandbox deliveries, out of order)', async () => {
		const t = await published({ options: { includeDepositEvents: true } });
		const o = await newOrder(sb, 10);
		await deposit(sb, o.id, 10);
		// creation, deposit observed, on-chain confirmed, FUNDED
		const outcomes = await outcomesFor(o.id, 4);
		const versions = outcomes.map((x) => JSON.parse(x.rawBody.toString()).data.payment_order.version);
		expect(versions).toEqual([...versions].sort((a, b) => a - b));
		expect(outcomes.every((x) => x.items?.length === 1)).toBe(true);

		// Replay the creation event's bytes to a fresh process memory that has seen the newest one.
		forgetMemory();
		t.staticData.saved[`node:Clearinghouse Trigger`] = { ...t.staticData.node(), memory: undefined };
		const newest = outcomes[outcomes.length - 1];
		const oldest = outcomes[0];
		expect((await deliver(sb, t, newest.headers, newest.rawBody)).items).toHaveLength(1);
		expect((await deliver(sb, t, oldest.headers, oldest.rawBody)).body).toEqual({ received: true, ignored: 'stale' });
	});

	it('compare deposit events by the deposit version', async () => {
		const t = await published({ options: { includeDepositEvents: true } });
		const dep = (version: number, status: string) => ({ transactionHash: '0xabc', version, status, amountUsd: 4 });
		const order = (version: number, deposits: unknown[]) => ({ id: 'po-dep', status: 'AWAITING_FUNDS', version, inboundTransfers: deposits });
		expect((await signed(t, envelope(order(1, [])))).items![0].json.kind).toBe('status');
		expect((await signed(t, envelope(order(3, [dep(2, 'ONCHAIN_CONFIRMED')])))).items![0].json.kind).toBe('deposit');
		// An older state of the same deposit arriving late: stale.
		expect((await signed(t, envelope(order(2, [dep(1, 'PENDING_VERIFICATION')])))).body).toEqual({ received: true, ignored: 'stale' });
		// A second deposit is new even though the first is unchanged.
		const second = { transactionHash: '0xdef', version: 1, status: 'PENDING_VERIFICATION', amountUsd: 1 };
		expect((await signed(t, envelope(order(4, [dep(2, 'ONCHAIN_CONFIRMED'), second])))).items![0].json.kind).toBe('deposit');
	});

	it('are emitted when stale dropping is off', async () => {
		const t = await published({ options: { dropStaleEvents: false } });
		expect((await signed(t, envelope({ id: 'po-s', status: 'FUNDED', version: 5 }))).items).toHaveLength(1);
		expect((await signed(t, envelope({ id: 'po-s', status: 'AWAITING_FUNDS', version: 1 }))).items).toHaveLength(1);
	});
});

describe('filters', () => {
	it('deposit-only events are acknowledged but not emitted by default (genuine partial deposit)', async () => {
		await published();
		const o = await newOrder(sb, 10);
		await deposit(sb, o.id, 4); // partial: the order stays AWAITING_FUNDS
		const outcomes = await outcomesFor(o.id, 3); // creation, observed, confirmed on-chain
		expect(outcomes.every((x) => x.status === 200)).toBe(true);
		expect(outcomes[0].items).toHaveLength(1);
		for (const later of outcomes.slice(1)) {
			expect(JSON.parse(later.rawBody.toString()).data.payment_order.status).toBe('AWAITING_FUNDS');
			expect(later.body).toEqual({ received: true, ignored: 'deposit_event' });
		}
	});

	it('deposit-only events are emitted with kind "deposit" when included', async () => {
		await published({ options: { includeDepositEvents: true } });
		const o = await newOrder(sb, 10);
		await deposit(sb, o.id, 4);
		const outcomes = await outcomesFor(o.id, 3);
		// A fourth deposit event (verified) may already be in when the third is: every later one is a deposit event.
		const kinds = outcomes.map((x) => x.items?.[0]?.json.kind);
		expect(kinds[0]).toBe('status');
		expect(kinds.slice(1).every((k) => k === 'deposit')).toBe(true);
	});

	it('order statuses: only the selected ones run; the others are acknowledged', async () => {
		await published({ statuses: ['FUNDED'] });
		const o = await newOrder(sb, 10);
		await deposit(sb, o.id, 10);
		const outcomes = await outcomesFor(o.id, funded);
		expect(outcomes.every((x) => x.status === 200)).toBe(true);
		const emitted = outcomes.flatMap((x) => x.items ?? []);
		expect(emitted.map((i) => (i.json.paymentOrder as any).status)).toEqual(['FUNDED']);
		expect(outcomes[0].body).toEqual({ received: true, ignored: 'status_not_selected' });
	});

	it('version 1 (workflows saved before v2) registers its endpoint and emits with its Order Statuses filter, as before', async () => {
		const t = await publishedTrigger(unconfirmed({ statuses: ['FUNDED'] }), undefined, 1);
		expect(t.staticData.node().endpointId).toEqual(expect.any(String));
		const o = await newOrder(sb, 10);
		await deposit(sb, o.id, 10);
		const outcomes = await outcomesFor(o.id, funded);
		expect(outcomes.every((x) => x.status === 200)).toBe(true);
		expect(outcomes.flatMap((x) => x.items ?? []).map((i) => (i.json.paymentOrder as any).status)).toEqual(['FUNDED']);
		expect(outcomes[0].body).toEqual({ received: true, ignored: 'status_not_selected' });
	});

	it('unknown statuses are dropped by default (v3), pass by default in v1 and v2, and the switch decides', async () => {
		let t = await published();
		expect((await signed(t, envelope({ id: 'po-u0', status: 'SOMETHING_NEW', version: 1 }))).body).toEqual({ received: true, ignored: 'unknown_status' });
		t = await published({ passUnknownStatuses: true });
		expect((await signed(t, envelope({ id: 'po-u1', status: 'SOMETHING_NEW', version: 1 }))).items).toHaveLength(1);
		for (const version of [1, 2]) {
			t = await publishedTrigger(unconfirmed({}), undefined, version);
			expect((await signed(t, envelope({ id: `po-u1-v${version}`, status: 'SOMETHING_NEW', version: 1 }))).items).toHaveLength(1);
		}
		t = await published({ passUnknownStatuses: false, statuses: ['FUNDED'] });
		expect((await signed(t, envelope({ id: 'po-u2', status: 'SOMETHING_NEW', version: 1 }))).body).toEqual({
			received: true,
			ignored: 'unknown_status',
		});
		expect((await signed(t, envelope({ id: 'po-u2', status: 'FUNDED', version: 2 }))).items).toHaveLength(1);
	});

	it('other event types are acknowledged and ignored', async () => {
		const t = await published();
		const body = JSON.stringify({ id: 'evt_x_other', type: 'something.else', created: 'x', accountId: 'a', data: {} });
		expect(await signed(t, body)).toEqual({ status: 200, body: { received: true, ignored: 'event_type' } });
	});
});

describe('webhook.ping', () => {
	it('is answered 2xx and not emitted by default (sandbox test event)', async () => {
		const t = await published();
		const res = await api(sb, 'POST', `/webhooks/endpoints/${String(t.staticData.node().endpointId)}/test`);
		expect(res.body.delivered).toBe(true);
		const last = receiver.outcomes[receiver.outcomes.length - 1];
		expect(last.status).toBe(200);
		expect(last.items).toBeUndefined();
	});

	it('is emitted when asked', async () => {
		const t = await published({ options: { emitPing: true } });
		const res = await api(sb, 'POST', `/webhooks/endpoints/${String(t.staticData.node().endpointId)}/test`);
		expect(res.body.delivered).toBe(true);
		const last = receiver.outcomes[receiver.outcomes.length - 1];
		expect(last.items).toHaveLength(1);
		expect(last.items![0].json).toMatchObject({
			eventId: res.body.eventId,
			type: 'webhook.ping',
			message: expect.any(String),
		});
	});
});

describe('switches read fail-closed (issue 34)', () => {
	const ping = () =>
		JSON.stringify({ id: `evt_ping_${Date.now()}`, type: 'webhook.ping', created: new Date().toISOString(), accountId: 'a', data: { message: 'hi' } });
	const event = () =>
		JSON.stringify({
			id: `evt_sw_${Date.now()}`,
			type: 'payment_order',
			created: new Date().toISOString(),
			accountId: 'a',
			data: { payment_order: { id: 'x', status: 'FUNDED', version: 1 } },
		});

	it.each([
		['Emit Test Pings', { emitPing: '={{ "yes" }}' }, ping],
		['Drop Duplicate Deliveries', { dropDuplicates: '={{ 0 }}', confirmWithApi: false }, event],
		['Confirm Events With the API', { confirmWithApi: '={{ "" }}' }, event],
	])('%s given neither a clear on nor off: the delivery fails (500), no run starts, the service delivers it again', async (_label, options, body) => {
		const t = await publishedTrigger({ options });
		const outcome = await signed(t, body());
		expect(outcome.status).toBe(500);
		expect(outcome.items ?? []).toEqual([]);
	});

	it('an exemption is off for the text "false" and on for "true" (as $vars and $env give them)', async () => {
		let t = await published({ options: { emitPing: '={{ "false" }}' } });
		expect(await signed(t, ping())).toMatchObject({ status: 200, body: { received: true, ignored: 'ping' } });
		t = await published({ options: { emitPing: '={{ "true" }}' } });
		expect((await signed(t, ping())).items).toHaveLength(1);
	});
});

describe('the test webhook (editor)', () => {
	it('verifies and emits deliveries to the /webhook-test/ URL with its own secret', async () => {
		const prod = await publishedWithDefaults();
		const test: TriggerUnderTest = { ...prod, mode: 'manual', staticData: new N8nStaticData() };
		receiver.serve(test);
		await activate(sb, receiver, test);
		const id = String(test.staticData.node().endpointId);
		endpointIds.push(id);
		expect(id).not.toBe(String(prod.staticData.node().endpointId));
		const o = await newOrder(sb);
		const outcomes = await outcomesFor(o.id, 2);
		expect(new Set(outcomes.map((x) => x.path.split('/')[1]))).toEqual(new Set(['webhook', 'webhook-test']));
		expect(outcomes.every((x) => x.items?.length === 1)).toBe(true);
	});
});

describe('confirmation with the API (on by default): a leaked secret cannot run forged events', () => {
	const MAX_VERSION = 2 ** 53 - 1;

	/** The order as the single-order GET returns it, shaped as a webhook payload (no returns block). */
	async function currentOrder(id: string): Promise<Record<string, unknown>> {
		const { returns: _returns, ...order } = (await api(sb, 'GET', `/payment-orders/${id}`)).body;
		return order;
	}

	async function fundedItems(orderId: string) {
		return await until(async () => {
			await flush(sb);
			const items = receiver.outcomes
				.filter((x) => x.rawBody.toString().includes(orderId))
				.flatMap((x) => x.items ?? [])
				.filter((i) => (i.json.paymentOrder as any).status === 'FUNDED');
			return items.length > 0 ? items : undefined;
		}, 20_000);
	}

	it('a forged DISTRIBUTED event for 250,000 USD on an order that does not exist is acknowledged and runs nothing', async () => {
		const t = await publishedWithDefaults();
		const forged = envelope({ id: 'po-00000000-does-not-exist', status: 'DISTRIBUTED', amountUsd: 250_000, version: 7, inboundTransfers: [] });
		expect(await signed(t, forged)).toEqual({ status: 200, body: { received: true, ignored: 'order_not_found' }, items: undefined });
	});

	it("a dropped event (no such order) writes no static data: what an activation saved meanwhile survives; the trace is n8n's warn line (issue 46)", async () => {
		const t = await publishedWithDefaults();
		const saved = JSON.stringify(t.staticData.saved);
		// The delivery's confirmation read is held until another call has saved static data (as an
		// activation's catch-up saves lastRecovery, or a renewal a new secret box): n8n saves a delivery's
		// write as the whole copy the delivery loaded, which would put back what was there before.
		let reached!: () => void;
		const confirming = new Promise<void>((resolve) => (reached = resolve));
		let release!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		// A thenable: the sandbox's `await fault.hold` calls then(), which says the request has arrived.
		const hold = { then: (done: () => void) => (reached(), released.then(done)) } as unknown as Promise<void>;
		sb.services.traffic.faults.push({ method: 'GET', path: /^\/api\/v1\/payment-orders\/po-missing-race$/, pathSource: 'po-missing-race', count: 1, hold });
		const logger = webhookContext(trigger, setupFor(sb, t), { headers: {}, rawBody: Buffer.alloc(0) }).context.logger as unknown as {
			log: (level: string, message: string, metadata?: object) => void;
		};
		const logged = jest.spyOn(logger, 'log');
		const lines: unknown[][] = [];
		let outcome: Outcome;
		try {
			const delivery = signed(t, envelope({ id: 'po-missing-race', status: 'FUNDED', version: 2, inboundTransfers: [] }, 'evt_dropped_race_payment_order'));
			await confirming;
			const meanwhile = { at: new Date().toISOString(), by: 'trigger', replayed: 0 };
			(t.staticData.forHook()['node:Clearinghouse Trigger'] as IDataObject).lastRecovery = meanwhile;
			const savedMeanwhile = JSON.stringify(t.staticData.saved);
			release();
			outcome = await delivery;
			expect(JSON.stringify(t.staticData.saved)).toBe(savedMeanwhile);
			expect(savedMeanwhile).not.toBe(saved);
			// More drops write nothing either.
			for (const n of [1, 2])
				await signed(t, envelope({ id: `po-missing-${n}`, status: 'FUNDED', version: 2, inboundTransfers: [] }, `evt_dropped_${n}_payment_order`));
			expect(JSON.stringify(t.staticData.saved)).toBe(savedMeanwhile);
		} finally {
			release();
			lines.push(...logged.mock.calls);
			logged.mockRestore();
		}
		expect(outcome.body).toEqual({ received: true, ignored: 'order_not_found' });
		expect(lines).toContainEqual([
			'warn',
			'Clearinghouse Trigger dropped an event: the API has no such payment order for this credential',
			expect.objectContaining({ eventId: 'evt_dropped_race_payment_order', orderId: 'po-missing-race', node: 'Clearinghouse Trigger' }),
		]);
	});

	it('an event naming an order of another account is acknowledged and runs nothing', async () => {
		const state = await operator(sb, 'GET', 'state');
		// The trigger runs with the subaccount's key; the order belongs to the parent account.
		const t = await publishedTrigger({}, state.subaccounts[0].apiKey);
		const parentOrder = await newOrder(sb, 20);
		const forged = envelope({ ...(await currentOrder(parentOrder.id)), status: 'DISTRIBUTED', amountUsd: 250_000 });
		expect(await signed(t, forged)).toEqual({ status: 200, body: { received: true, ignored: 'order_not_found' }, items: undefined });
	});

	it('a forged max-version event for a real order is refused (503, nothing recorded), and the real FUNDED event still runs', async () => {
		const t = await publishedWithDefaults();
		const o = await newOrder(sb, 10);
		const [created] = await outcomesFor(o.id, 1);
		expect(created.items).toHaveLength(1);
		const forged = envelope({ ...(await currentOrder(o.id)), status: 'FUNDED', version: MAX_VERSION });
		const outcome = await signed(t, forged);
		expect(outcome.status).toBe(503);
		expect(outcome.items).toBeUndefined();

		await deposit(sb, o.id, 10);
		const [funded] = await fundedItems(o.id);
		expect(funded.json.paymentOrder).toMatchObject({ id: o.id, status: 'FUNDED' });
		expect((funded.json.paymentOrder as any).version).toBeLessThan(MAX_VERSION);
	});

	it('control: with confirmation off, the same forged event runs and the real FUNDED event is suppressed', async () => {
		const t = await published();
		const o = await newOrder(sb, 10);
		await outcomesFor(o.id, 1);
		const forged = envelope({ ...(await currentOrder(o.id)), status: 'FUNDED', version: MAX_VERSION });
		expect((await signed(t, forged)).items).toHaveLength(1);
		await deposit(sb, o.id, 10);
		const outcomes = await until(async () => {
			await flush(sb);
			const mine = receiver.outcomes.filter(
				(x) => x.rawBody.toString().includes(o.id) && x.rawBody.toString().includes('"FUNDED"') && !x.rawBody.toString().includes(String(MAX_VERSION)),
			);
			return mine.length > 0 ? mine : undefined;
		}, 20_000);
		// Acknowledged, so the service never retries it: classified against the forged FUNDED mark
		// (as a deposit event, or stale), it runs nothing.
		expect(outcomes[0].status).toBe(200);
		expect(outcomes[0].items).toBeUndefined();
		expect(['stale', 'deposit_event']).toContain((outcomes[0].body as any).ignored);
	});

	it('a late event is emitted with the order as it is now, and the stale filter uses that version', async () => {
		const t = await publishedWithDefaults();
		const o = await newOrder(sb, 10);
		const [created] = await outcomesFor(o.id, 1);
		await deposit(sb, o.id, 10);
		await fundedItems(o.id);
		// The creation event again, under a new event id (not a duplicate), signed now: the order moved on.
		const late = JSON.parse(created.rawBody.toString());
		const outcome = await signed(t, envelope(late.data.payment_order));
		expect(outcome.body).toEqual({ received: true, ignored: 'stale' });
		// With a fresh memory it runs, with the current order and the event's copy.
		forgetMemory();
		t.staticData.saved['node:Clearinghouse Trigger'] = { ...t.staticData.node(), memory: undefined };
		const again = await signed(t, envelope(late.data.payment_order));
		expect(again.items).toHaveLength(1);
		expect(again.items![0].json.paymentOrder).toMatchObject({ id: o.id, status: 'FUNDED' });
		expect(again.items![0].json.eventPaymentOrder).toMatchObject({ id: o.id, status: 'AWAITING_FUNDS', version: 1 });
	});

	it('a transient API error during confirmation answers 503 and emits nothing; the retry emits once', async () => {
		const t = await publishedWithDefaults();
		const o = await newOrder(sb, 10);
		await outcomesFor(o.id, 1);
		const body = envelope({ ...(await currentOrder(o.id)) }, `evt_transient_${Date.now()}_payment_order`);
		forgetMemory(); // the real creation event was emitted: forget it, so only the fault decides
		t.staticData.saved['node:Clearinghouse Trigger'] = { ...t.staticData.node(), memory: undefined };
		// The node's one try fails.
		await operator(sb, 'POST', 'faults', { method: 'GET', path: `^/api/v1/payment-orders/${o.id}$`, count: 1, status: 503 });
		try {
			const failed = await signed(t, body);
			expect(failed.status).toBe(503);
			expect(failed.items).toBeUndefined();
		} finally {
			await operator(sb, 'DELETE', 'faults');
		}
		expect((await signed(t, body)).items).toHaveLength(1);
		expect((await signed(t, body)).body).toEqual({ received: true, ignored: 'duplicate' });
	});

	/** A published trigger with the defaults (stale dropping off: the same order is confirmed again and again) and one real order. */
	async function confirmingTrigger(): Promise<{ t: TriggerUnderTest; order: Record<string, unknown> }> {
		const t = await publishedWithDefaults({ options: { dropStaleEvents: false } });
		const o = await newOrder(sb, 10);
		await outcomesFor(o.id, 1); // its creation event, sent by the sandbox, is in: nothing else arrives
		return { t, order: await currentOrder(o.id) };
	}

	const confirmationGets = async (since: number, orderId: unknown) =>
		(await requestsSince(sb, since)).filter((r) => r.method === 'GET' && r.path === `/api/v1/payment-orders/${String(orderId)}`);

	it('the API request uses the credential the delivery opened its secret with: one read per delivery, none within 10 s of the last', async () => {
		const { t, order } = await confirmingTrigger();
		forgetOpenedSecrets();
		const since = (await operator(sb, 'GET', 'requests?since=0')).lastSeq;
		// n8n loads, decrypts and (by default) takes an expression isolate for every read.
		const reads = jest.spyOn(WebhookContext.prototype, 'getCredentials');
		try {
			expect((await signed(t, envelope(order))).items).toHaveLength(1);
			expect(reads).toHaveBeenCalledTimes(1); // the secret and the confirmation share it
			reads.mockClear();
			expect((await signed(t, envelope(order))).items).toHaveLength(1);
			expect((await signed(t, envelope(order))).items).toHaveLength(1);
			expect(reads).not.toHaveBeenCalled();
			const later = Date.now() + OPENED_SECRET_TTL_MS + 1_000;
			const clock = jest.spyOn(Date, 'now').mockReturnValue(later);
			try {
				expect((await signed(t, envelope(order), { t: Math.floor(later / 1000) })).items).toHaveLength(1);
			} finally {
				clock.mockRestore();
			}
			expect(reads).toHaveBeenCalledTimes(1);
		} finally {
			reads.mockRestore();
		}
		const gets = await confirmationGets(since, order.id);
		expect(gets.map((g) => [g.status, g.headers['x-api-key']])).toEqual(Array(4).fill([200, maskedSecret(sb.apiKey)]));
	});

	it("a repeat of an event whose run is in flight is answered 409 without another API request (the service's retries while When Finished holds the first delivery)", async () => {
		const { t, order } = await confirmingTrigger();
		t.parameters = { ...t.parameters, options: { ...(t.parameters.options as IDataObject), acknowledge: 'whenFinished' } };
		const body = envelope(order);
		// n8n is still busy with the first delivery's run (queued behind others), so its answer has not come.
		let release!: () => void;
		const running = new Promise<void>((done) => (release = done));
		let holding = false;
		t.creatingRun = async () => {
			holding = true;
			await running;
		};
		const since = (await operator(sb, 'GET', 'requests?since=0')).lastSeq;
		const first = signed(t, body);
		await until(async () => holding);
		t.creatingRun = undefined;
		const repeats = [await signed(t, body), await signed(t, body)];
		expect(repeats.map((r) => [r.status, r.body])).toEqual(Array(2).fill([409, { error: 'A run of this event is still in progress' }]));
		// Only the first delivery asked the API.
		expect(await confirmationGets(since, order.id)).toHaveLength(1);
		release();
		expect((await first).items).toHaveLength(1);
		expect((await signed(t, body)).body).toEqual({ received: true, ignored: 'duplicate' });
		expect(await confirmationGets(since, order.id)).toHaveLength(1);
	});

	it('the key the delivery opened reaches no answer, item, static data or log line, whatever the API request meets', async () => {
		const { t, order } = await confirmingTrigger();
		// n8n's logger: every line at an enabled level goes through its log(level, message, metadata)
		// (the levels below the configured one are no-ops that write nothing).
		const logger = webhookContext(trigger, setupFor(sb, t), { headers: {}, rawBody: Buffer.alloc(0) }).context.logger as unknown as {
			log: (level: string, message: string, metadata?: object) => void;
		};
		const logged = jest.spyOn(logger, 'log');
		const lines: unknown[][] = [];
		const outcomes: Outcome[] = [];
		const fault = (status: number) => operator(sb, 'POST', 'faults', { method: 'GET', path: `^/api/v1/payment-orders/${String(order.id)}$`, count: 1, status });
		try {
			forgetOpenedSecrets();
			outcomes.push(await signed(t, envelope(order))); // the credential read
			outcomes.push(await signed(t, envelope(order))); // the opened one
			for (const status of [401, 403, 429, 500, 503]) {
				await fault(status);
				outcomes.push(await signed(t, envelope(order)));
			}
			// An order the API does not have: dropped, with n8n's warn line.
			outcomes.push(await signed(t, envelope({ ...order, id: 'po-00000000-not-here' })));
			// Nothing listens at the Base URL: the credential read with it, then the opened one.
			t.baseUrl = 'http://127.0.0.1:1';
			forgetOpenedSecrets();
			outcomes.push(await signed(t, envelope(order)));
			outcomes.push(await signed(t, envelope(order)));
		} finally {
			await operator(sb, 'DELETE', 'faults');
			lines.push(...logged.mock.calls);
			logged.mockRestore();
		}
		expect(outcomes.map((o) => o.status)).toEqual([200, 200, 503, 503, 503, 503, 503, 200, 503, 503]);
		expect(outcomes.slice(0, 2).map((o) => o.items?.length)).toEqual([1, 1]);
		expect(outcomes[7].body).toEqual({ received: true, ignored: 'order_not_found' });
		expect(lines).toContainEqual(['warn', expect.stringContaining('dropped an event'), expect.objectContaining({ orderId: 'po-00000000-not-here' })]);
		const everything = JSON.stringify({ outcomes, saved: t.staticData.saved, logs: lines });
		expect(everything).not.toContain(sb.apiKey);
	});
});

describe('the sealed secret on delivery', () => {
	const STATE_KEY = 'node:Clearinghouse Trigger';
	const ping = () =>
		JSON.stringify({ id: `evt_test_${Date.now()}`, type: 'webhook.ping', created: new Date().toISOString(), accountId: 'a', data: { message: 'hi' } });

	it('a plain secret left by an earlier version is sealed by the next delivery that starts no run', async () => {
		const t = await published();
		const secret = secretOf(t);
		const { endpointId, url } = t.staticData.node();
		t.staticData.saved[STATE_KEY] = { endpointId, url, secret };
		expect((await signed(t, ping(), { secret })).status).toBe(200);
		expect(t.staticData.node()).toMatchObject({ endpointId, url, secretBox: expect.stringMatching(/^chbox1\./) });
		expect(t.staticData.node().secret).toBeUndefined();
		expect(secretOf(t)).toBe(secret);
	});

	const writesSince = async (since: number) =>
		(await operator(sb, 'GET', `requests?since=${since}`)).requests
			.filter((r: any) => r.method !== 'GET' && /\/webhooks\//.test(r.path))
			.map((r: any) => `${r.method} ${r.path}`);
	/** The trigger's credential gets a new API key and this process forgets its opened secrets (as a restart would); the secret before and the request log's position. */
	async function changeApiKey(t: TriggerUnderTest): Promise<{ oldSecret: string; since: number }> {
		const oldSecret = secretOf(t);
		t.apiKey = (await operator(sb, 'POST', 'api-keys', {})).apiKey;
		forgetOpenedSecrets();
		return { oldSecret, since: (await operator(sb, 'GET', 'requests?since=0')).lastSeq };
	}

	it("after the API key changed, deliveries are answered 503 and write nothing; publishing again repairs the endpoint and the service's retry runs once", async () => {
		const t = await publishedWithDefaults();
		const { oldSecret, since } = await changeApiKey(t);
		const o = await newOrder(sb, 10);
		const [first] = await outcomesFor(o.id, 1);
		expect(first.status).toBe(503);
		expect(first.items).toBeUndefined();
		// Signed with the old secret, unsigned or forged: none makes the trigger write to the service.
		expect((await signed(t, ping(), { secret: oldSecret })).status).toBe(503);
		expect((await signed(t, ping(), { secret: 'whsec_forged' })).status).toBe(503);
		expect(await writesSince(since)).toEqual([]);
		// The repair happens on activation: the endpoint is adopted under the new key.
		expect(await activate(sb, receiver, t)).toBe('kept');
		expect(secretOf(t)).not.toBe(oldSecret);
		expect((await writesSince(since)).filter((w: string) => /rotate-secret/.test(w))).toHaveLength(1);
		const ran = await until(async () => {
			await flush(sb);
			const mine = receiver.outcomes.filter((x) => x.rawBody.toString().includes(o.id) && x.items?.length);
			return mine.length >= 1 ? mine : undefined;
		});
		expect(ran).toHaveLength(1);
	});

	it('the opened secret is kept for 10 s per trigger and box: a changed API key is noticed after that, not on every delivery', async () => {
		const t = await published();
		const oldSecret = secretOf(t);
		const box = t.staticData.node().secretBox;
		expect((await signed(t, ping())).status).toBe(200); // opened with the credential, and kept
		t.apiKey = (await operator(sb, 'POST', 'api-keys', {})).apiKey;
		const since = (await operator(sb, 'GET', 'requests?since=0')).lastSeq;
		// Within the TTL the credential is not read again: the old key's box still verifies.
		expect((await signed(t, ping(), { secret: oldSecret })).status).toBe(200);
		expectRefused(await signed(t, ping(), { secret: 'whsec_forged' }));
		const later = Date.now() + OPENED_SECRET_TTL_MS + 1_000;
		const clock = jest.spyOn(Date, 'now').mockReturnValue(later);
		try {
			// After it, the credential is read: the box no longer opens, and the delivery is refused for now.
			expect((await signed(t, ping(), { secret: oldSecret, t: Math.floor(later / 1000) })).status).toBe(503);
		} finally {
			clock.mockRestore();
		}
		expect(await writesSince(since)).toEqual([]);
		expect(t.staticData.node().secretBox).toBe(box);
	});

	it('concurrent unverifiable deliveries after a key change are all answered 503 and none writes to the service', async () => {
		const t = await published();
		const { oldSecret, since } = await changeApiKey(t);
		const outcomes = await Promise.all([1, 2, 3].map(() => signed(t, ping(), { secret: oldSecret })));
		expect(outcomes.map((o) => o.status)).toEqual([503, 503, 503]);
		const unsigned = await deliver(sb, t, { 'content-type': 'application/json' }, Buffer.from(ping()));
		expect(unsigned.status).toBe(503);
		expect(await writesSince(since)).toEqual([]);
	});
});
