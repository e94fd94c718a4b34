/**
 * Recovery after the receiver was away, in n8n-core's real contexts against a sandbox
 * whose retry schedule is compressed (timeScale 1 000 000) and short (3 attempts, not 60: support.ts
 * outage()), so deliveries really end FAILED, the endpoint is really auto-disabled after 10
 * and later events are really SKIPPED. What comes back is replayed by the service, signed, and
 * goes through the trigger's normal checks: every event must run exactly once.
 */
import { Clearinghouse } from '../../../nodes/Clearinghouse/Clearinghouse.node';
import { runNode } from '../../../harness/n8nContexts';
import { SandboxClient } from '../../../harness/sandboxClient';
import { setLeaseSettleMs } from '../../../nodes/shared/endpointRecovery';
import {
	activate,
	allRunOnce as allRunOnceIn,
	api,
	deliveriesOf,
	deposit,
	flush,
	LONG,
	newOrder,
	outage,
	publishAlone,
	until,
	useTriggerSandbox,
} from './support';

jest.setTimeout(120_000);

const { sb, receiver } = useTriggerSandbox({ timeScale: 1_000_000, deliveryAttempts: 3 });

/**
 * Two recoveries at once: the lease's read-back wait at 1 s (support.ts shortens it to 100 ms where one recovery
 * runs at a time). In one process the two write their markers within milliseconds of each other; the shipped 2 s
 * is for recoveries in separate processes (the queue suite runs two there).
 */
const twoAtOnce = () => setLeaseSettleMs(1_000);
afterEach(() => setLeaseSettleMs(100));

const published = async () => await publishAlone(sb, receiver, 'rc');
const deliveries = async (endpointId: string) => await deliveriesOf(sb, endpointId);
const allRunOnce = async (endpointId: string) => await allRunOnceIn(sb, receiver, endpointId);

test('publishing again after an outage re-enables the endpoint and replays every FAILED and SKIPPED event once; a second publish replays nothing', async () => {
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	const lost = await outage(sb, receiver, t, 4);
	expect(lost.failed).toBeGreaterThanOrEqual(10);
	expect(lost.skipped).toBeGreaterThanOrEqual(4);
	expect(receiver.emitted()).toHaveLength(0);

	expect(await activate(sb, receiver, t)).toBe('kept');
	expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('ENABLED');
	expect(t.staticData.node().lastRecovery).toMatchObject({ replayed: lost.failed + lost.skipped, eventsMissed: lost.failed + lost.skipped, more: false });
	const counted = await allRunOnce(id);
	expect(counted.runs).toBe(counted.events);

	// A new event flows; publishing again (nothing lost) replays nothing and runs nothing twice.
	await newOrder(sb, 99, LONG);
	await allRunOnce(id);
	const runsBefore = receiver.emitted().length;
	expect(await activate(sb, receiver, t)).toBe('kept');
	expect(t.staticData.node().lastRecovery).toMatchObject({ replayed: 0, eventsMissed: 0 });
	await flush(sb);
	expect(receiver.emitted()).toHaveLength(runsBefore);
});

test('Webhook Endpoint → Recover does the same where n8n gives the trigger no call (a restart), and a second run replays nothing', async () => {
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	const lost = await outage(sb, receiver, t, 3);
	const recover = async () =>
		(
			await runNode(new Clearinghouse(), {
				name: 'Clearinghouse',
				parameters: { resource: 'webhookEndpoint', operation: 'recover', scope: 'all', maxReplays: 100 },
				credentials: { apiKey: sb.apiKey, baseUrl: sb.mainUrl, rewardsUrl: sb.rewardsUrl },
			})
		)[0].map((item) => item.json);

	const [report] = await recover();
	expect(report).toMatchObject({
		endpointId: id,
		statusBefore: 'DISABLED',
		disabledByFailures: true,
		reEnabled: true,
		leftDisabled: null,
		replayed: lost.failed + lost.skipped,
		more: false,
		replayErrors: [],
	});
	expect(report.disabledAt).toEqual(expect.any(String));
	const counted = await allRunOnce(id);
	expect(counted.runs).toBe(counted.events);

	const [again] = await recover();
	expect(again).toMatchObject({ statusBefore: 'ENABLED', reEnabled: false, replayed: 0, eventsMissed: 0 });
	await flush(sb);
	expect(receiver.emitted()).toHaveLength(counted.runs);
});

/** Webhook Endpoint → Recover with the given scope, in n8n-core's ExecuteContext (this n8n's webhook address: http://127.0.0.1:5678/). */
const recoverWith = async (scope: string) =>
	(
		await runNode(new Clearinghouse(), {
			name: 'Clearinghouse',
			parameters: { resource: 'webhookEndpoint', operation: 'recover', scope, maxReplays: 100 },
			credentials: { apiKey: sb.apiKey, baseUrl: sb.mainUrl, rewardsUrl: sb.rewardsUrl },
		})
	)[0].map((item) => item.json);

test('Recover leaves an endpoint disabled through the API (by a person) disabled and replays nothing to it', async () => {
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	expect((await api(sb, 'PATCH', `/webhooks/endpoints/${id}`, { status: 'DISABLED' })).status).toBe(200);
	await newOrder(sb, 12, LONG);
	await until(async () => (await deliveries(id)).some((d) => d.status === 'SKIPPED'));
	const mark = await new SandboxClient(sb).mark();

	const [report] = await recoverWith('all');
	expect(report).toMatchObject({ endpointId: id, statusBefore: 'DISABLED', disabledByFailures: false, reEnabled: false, replayed: 0 });
	expect(report.leftDisabled).toMatch(/^disabled through the API, not by failed deliveries/);
	expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('DISABLED');
	const writes = (await new SandboxClient(sb).requests(mark)).filter((r: any) => r.method !== 'GET' && String(r.path).startsWith('/api/v1/'));
	expect(writes).toEqual([]);
	expect(receiver.emitted()).toHaveLength(0);
});

test('Recover with scope "this n8n\'s endpoints" works only on endpoints under this n8n\'s webhook URL', async () => {
	for (const e of (await api(sb, 'GET', '/webhooks/endpoints')).body.endpoints) await api(sb, 'DELETE', `/webhooks/endpoints/${e.id}`);
	const create = async (url: string) =>
		(await api(sb, 'POST', '/webhooks/endpoints', { url, description: 'scope test', eventTypes: ['payment_order'] })).body.id as string;
	const ours = await create('http://127.0.0.1:5678/webhook/3f1c/webhook');
	const otherN8n = await create('http://127.0.0.1:5679/webhook/3f1c/webhook');
	const otherHost = await create('http://localhost:5678/webhook/3f1c/webhook');
	try {
		expect((await recoverWith('thisN8n')).map((r) => r.endpointId)).toEqual([ours]);
		expect((await recoverWith('all')).map((r) => r.endpointId).sort()).toEqual([ours, otherN8n, otherHost].sort());
	} finally {
		for (const id of [ours, otherN8n, otherHost]) await api(sb, 'DELETE', `/webhooks/endpoints/${id}`);
	}
});

test("the trigger's catch-up and Recover at the same moment replay each missed event once (one recovery at a time per endpoint), and the endpoint's description is as before", async () => {
	twoAtOnce();
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	const description = (await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.description;
	const lost = await outage(sb, receiver, t, 2);
	const mark = await new SandboxClient(sb).mark();

	const [kept, reports] = await Promise.all([activate(sb, receiver, t), recoverWith('all')]);
	expect(kept).toBe('kept');
	const replays = (await new SandboxClient(sb).requests(mark)).filter((r: any) => r.method === 'POST' && /\/replay$/.test(String(r.path)));
	const eventOf = new Map((await deliveries(id)).map((d) => [d.id as string, d.eventId as string]));
	const replayedEvents = replays.map((r: any) => eventOf.get(String(r.path).split('/').slice(-2)[0]));
	expect(replayedEvents).toHaveLength(lost.events);
	expect(new Set(replayedEvents).size).toBe(lost.events);
	// One of the two did it; the other found the lease taken or, after it, nothing left.
	const [report] = reports;
	const record = t.staticData.node().lastRecovery as Record<string, any>;
	expect([report.replayed, record.replayed].sort()).toEqual([0, lost.events]);
	const counted = await allRunOnce(id);
	expect(counted.runs).toBe(counted.events);
	expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body).toMatchObject({ status: 'ENABLED', description });
});

test('a recovery whose lease another one took over late (its marker written after the first had confirmed its own) stops replaying: each missed event is replayed once', async () => {
	twoAtOnce();
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	const lost = await outage(sb, receiver, t, 2);
	// Enabled by hand, so that neither recovery sends a re-enable (a PATCH, which the hold below would take).
	expect((await api(sb, 'PATCH', `/webhooks/endpoints/${id}`, { status: 'ENABLED' })).status).toBe(200);
	const logged = (await deliveries(id)).length;
	const { traffic } = sb.services;
	const mark = await new SandboxClient(sb).mark();
	// Each replay takes 100 ms at the service: the catch-up is still replaying (12 events) when Recover's marker
	// lands, and stops within one replay, well inside the 1 s before Recover reads its marker back and replays.
	traffic.faults.push({ method: 'POST', path: /\/replay$/, pathSource: '/replay$', count: 1000, delayMs: 100 });
	// Recover reads the description (no marker), then its marker write is held: it lands only after the
	// catch-up wrote its own, read it back 1 s later and began replaying (the API has no compare-and-set).
	let release = () => {};
	const late = {
		method: 'PATCH',
		path: new RegExp(`^/api/v1/webhooks/endpoints/${id}$`),
		pathSource: '',
		count: 1,
		hold: new Promise<void>((done) => (release = done)),
	};
	traffic.faults.push(late);
	try {
		const recover = recoverWith('all');
		await until(async () => late.count === 0);
		const catchUp = activate(sb, receiver, t);
		await until(async () => (await deliveries(id)).length > logged);
		release();
		const [kept, [report]] = await Promise.all([catchUp, recover]);
		expect(kept).toBe('kept');

		const replays = (await new SandboxClient(sb).requests(mark)).filter((r: any) => r.method === 'POST' && /\/replay$/.test(String(r.path)));
		const eventOf = new Map((await deliveries(id)).map((d) => [d.id as string, d.eventId as string]));
		const replayedEvents = replays.map((r: any) => eventOf.get(String(r.path).split('/').slice(-2)[0]));
		expect(new Set(replayedEvents).size).toBe(lost.events);
		expect(replayedEvents).toHaveLength(lost.events);
		// The catch-up saw the other's marker before its next replay and stopped; Recover replayed the rest.
		const record = t.staticData.node().lastRecovery as Record<string, any>;
		expect(record.busy).toMatch(/took its lease over/);
		expect(report.busy).toBeNull();
		expect(record.replayed + report.replayed).toBe(lost.events);
		expect(record.replayed).toBeGreaterThan(0);
		const counted = await allRunOnce(id);
		expect(counted.runs).toBe(counted.events);
	} finally {
		release();
		traffic.faults = [];
	}
});

test('a catch-up that meets a delivery already replayed by hand replays nothing more for that event', async () => {
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	await outage(sb, receiver, t, 2);
	const skipped = (await deliveries(id)).filter((d) => d.status === 'SKIPPED');
	// Replayed by hand while the endpoint is still disabled: SKIPPED again, a second record of the event.
	expect((await api(sb, 'POST', `/webhooks/deliveries/${skipped[0].id}/replay`)).status).toBe(202);
	expect(await activate(sb, receiver, t)).toBe('kept');
	const events = new Set((await deliveries(id)).map((d) => d.eventId)).size;
	expect(t.staticData.node().lastRecovery).toMatchObject({ eventsMissed: events, replayed: events });
	const counted = await allRunOnce(id);
	expect(counted.runs).toBe(counted.events);
});

/**
 * What a recovery can and cannot give back (docs/queue-mode.md, docs/trigger.md): the service replays the events, but
 * with confirmation each is emitted as the order is NOW. Orders created while n8n was down and funded meanwhile run
 * only the state they are in (FUNDED): their AWAITING_FUNDS step never runs. With Confirm Events off and Drop Stale Events off, every state runs, as of its event.
 */
async function statesAfterOutage(options: Record<string, boolean>): Promise<{ orders: string[]; statesRun: Map<string, string[]> }> {
	const t = await published();
	t.parameters = { options };
	const id = String(t.staticData.node().endpointId);
	receiver.unserve(t);
	const orders: Array<{ id: string }> = [];
	for (const amountUsd of [21, 22]) {
		const o = await newOrder(sb, amountUsd, LONG);
		await deposit(sb, o.id, amountUsd);
		orders.push(o);
	}
	// Every delivery of the outage has ended (FAILED after its compressed retries) and both orders are funded.
	await until(async () => {
		const all = await deliveries(id);
		const done = all.every((d) => d.status !== 'PENDING' && d.status !== 'DISPATCHED');
		const statuses = await Promise.all(orders.map(async (o) => (await api(sb, 'GET', `/payment-orders/${o.id}`)).body.status));
		return done && statuses.every((s) => s === 'FUNDED');
	}, 60_000);
	expect(receiver.emitted()).toHaveLength(0);
	receiver.serve(t);
	expect(await activate(sb, receiver, t)).toBe('kept');
	// Every event of the log answered 2xx by the trigger (run, or dropped as stale or deposit-only).
	await until(async () => {
		await flush(sb);
		const byEvent = new Map<string, boolean>();
		for (const d of await deliveries(id)) byEvent.set(String(d.eventId), byEvent.get(String(d.eventId)) === true || d.status === 'DELIVERED');
		return [...byEvent.values()].every(Boolean);
	}, 60_000);
	const statesRun = new Map<string, string[]>();
	for (const item of receiver.emitted()) {
		const order = item.json.paymentOrder as { id: string; status: string };
		if (item.json.kind !== 'status' || !orders.some((o) => o.id === order.id)) continue;
		statesRun.set(order.id, [...(statesRun.get(order.id) ?? []), order.status]);
	}
	return { orders: orders.map((o) => String(o.id)), statesRun };
}

test('after an outage, with confirmation (the default) an order that left a state meanwhile never runs that state: only the state it is in now runs, once', async () => {
	const { orders, statesRun } = await statesAfterOutage({});
	for (const o of orders) expect(statesRun.get(o)).toEqual(['FUNDED']);
});

test('after an outage, with Confirm Events off and Drop Stale Events off every state an order passed through runs once, as of its event', async () => {
	const { orders, statesRun } = await statesAfterOutage({ confirmWithApi: false, dropStaleEvents: false });
	for (const o of orders) expect([...(statesRun.get(o) ?? [])].sort()).toEqual(['AWAITING_FUNDS', 'FUNDED']);
});

test('When Received: a delivery n8n failed to start a run for (500) is not marked seen, and the service retry runs it once', async () => {
	const t = await published();
	let failures = 1;
	t.failRunStart = () => failures-- > 0;
	const o = await newOrder(sb, 11, LONG);
	const outcomes = await until(async () => {
		await flush(sb);
		const mine = receiver.outcomes.filter((x) => x.rawBody.toString().includes(o.id));
		return mine.some((x) => x.items?.length) ? mine : undefined;
	}, 30_000);
	expect(outcomes[0]).toMatchObject({ status: 500, runNotStarted: true });
	const ran = outcomes.filter((x) => x.items?.length);
	expect(ran).toHaveLength(1);
	expect(ran[0].headers['x-service-webhook-id']).toBe(outcomes[0].headers['x-service-webhook-id']);
});

test('Recover refuses a Since that is not a date, naming the field, before any request', async () => {
	const since = await new SandboxClient(sb).mark();
	await expect(
		runNode(new Clearinghouse(), {
			name: 'Clearinghouse',
			parameters: { resource: 'webhookEndpoint', operation: 'recover', scope: 'all', since: 'last tuesday' },
			credentials: { apiKey: sb.apiKey, baseUrl: sb.mainUrl, rewardsUrl: sb.rewardsUrl },
		}),
	).rejects.toThrow('Since must be a date and time');
	const requests = await new SandboxClient(sb).requests(since);
	expect(requests.filter((r: any) => String(r.path).startsWith('/api/v1/'))).toEqual([]);
});
