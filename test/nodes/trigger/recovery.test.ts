/**
 * Recovery after the receiver was away, in n8n-core's real contexts against a sandbox
 * whose retry schedule is compressed (timeScale 100 000: the service's half-day of retries takes
 * about a second), so deliveries really end FAILED, the endpoint is really auto-disabled after 10
 * and later events are really SKIPPED. What comes back is replayed by the service, signed, and
 * goes through the trigger's normal checks: every event must run exactly once.
 * @slow: waits out the service's retries to FAILED and the endpoint's auto-disable; test:fast leaves it out (scripts/test-fast.sh).
 */
import { Clearinghouse } from '../../../nodes/Clearinghouse/Clearinghouse.node';
import { runNode } from '../../support/n8nContexts';
import { SandboxClient } from '../../support/sandbox';
import { activate, api, flush, N8nStaticData, newOrder, until, useTriggerSandbox, type TriggerUnderTest } from './support';

jest.setTimeout(120_000);

// The service's retry schedule compressed 100 000 times: its half-day of retries takes about a second.
const { sb, receiver } = useTriggerSandbox({ timeScale: 100_000 });
let counter = 0;

/** Orders that do not expire during a test (a day of service time is under a second here), so each order makes one event. */
const LONG = 10 * 365 * 86400_000;

/** Every event emitted once is what is counted: no confirmation, no stale filter (orders move on while "n8n is down"). */
const PARAMETERS = { options: { confirmWithApi: false, dropStaleEvents: false } };

async function published(): Promise<TriggerUnderTest> {
	// Only one trigger's endpoint at a time, so each test counts only its own deliveries.
	for (const e of (await api(sb, 'GET', '/webhooks/endpoints')).body.endpoints) await api(sb, 'DELETE', `/webhooks/endpoints/${e.id}`);
	const t: TriggerUnderTest = { parameters: PARAMETERS, workflowId: `rc-${++counter}-${Date.now()}`, staticData: new N8nStaticData() };
	receiver.serve(t);
	expect(await activate(sb, receiver, t)).toBe('created');
	receiver.outcomes = [];
	return t;
}

async function deliveriesOf(endpointId: string): Promise<any[]> {
	return (await api(sb, 'GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=1000`)).body.deliveries;
}

/** Event ids the service has for the endpoint (its delivery log), and the runs the trigger started, by event id. */
async function tally(endpointId: string): Promise<{ events: Set<string>; runs: Map<string, number> }> {
	const events = new Set((await deliveriesOf(endpointId)).map((d) => d.eventId as string));
	const runs = new Map<string, number>();
	for (const item of receiver.emitted()) {
		const id = String(item.json.eventId);
		runs.set(id, (runs.get(id) ?? 0) + 1);
	}
	return { events, runs };
}

/** The service's envelope id (`evt_<eventId>_payment_order`) of a delivery-log event id. */
const envelopeOf = (eventId: string) => `evt_${eventId}_payment_order`;

/** While "n8n is down": creates orders until the endpoint is DISABLED and `skipped` more events were SKIPPED; waits until nothing is PENDING. */
async function outage(t: TriggerUnderTest, skipped: number): Promise<{ failed: number; skipped: number }> {
	const id = String(t.staticData.node().endpointId);
	receiver.unserve(t);
	for (let i = 0; i < 20; i++) {
		await newOrder(sb, 10 + i, LONG);
		const endpoint = (await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body;
		if (endpoint.status === 'DISABLED') break;
		await until(async () => (await deliveriesOf(id)).every((d) => d.status !== 'PENDING' && d.status !== 'DISPATCHED'), 60_000);
	}
	expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('DISABLED');
	for (let i = 0; i < skipped; i++) await newOrder(sb, 50 + i, LONG);
	await until(async () => (await deliveriesOf(id)).every((d) => d.status !== 'PENDING' && d.status !== 'DISPATCHED'), 60_000);
	const log = await deliveriesOf(id);
	receiver.serve(t);
	return { failed: log.filter((d) => d.status === 'FAILED').length, skipped: log.filter((d) => d.status === 'SKIPPED').length };
}

async function allRunOnce(endpointId: string): Promise<{ events: number; runs: number }> {
	const result = await until(async () => {
		await flush(sb);
		const { events, runs } = await tally(endpointId);
		return [...events].every((e) => runs.has(envelopeOf(e))) ? { events, runs } : undefined;
	}, 60_000);
	for (const e of result.events) expect(result.runs.get(envelopeOf(e))).toBe(1);
	return { events: result.events.size, runs: [...result.runs.values()].reduce((a, b) => a + b, 0) };
}

test('publishing again after an outage re-enables the endpoint and replays every FAILED and SKIPPED event once; a second publish replays nothing', async () => {
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	const lost = await outage(t, 4);
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
	const lost = await outage(t, 3);
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
		reEnabled: true,
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

test('a catch-up that meets a delivery already replayed by hand replays nothing more for that event', async () => {
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	await outage(t, 2);
	const skipped = (await deliveriesOf(id)).filter((d) => d.status === 'SKIPPED');
	// Replayed by hand while the endpoint is still disabled: SKIPPED again, a second record of the event.
	expect((await api(sb, 'POST', `/webhooks/deliveries/${skipped[0].id}/replay`)).status).toBe(202);
	expect(await activate(sb, receiver, t)).toBe('kept');
	const events = new Set((await deliveriesOf(id)).map((d) => d.eventId)).size;
	expect(t.staticData.node().lastRecovery).toMatchObject({ eventsMissed: events, replayed: events });
	const counted = await allRunOnce(id);
	expect(counted.runs).toBe(counted.events);
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
