/**
 * Recovery after the receiver was away, in n8n-core's real contexts against a sandbox
 * whose retry schedule is compressed (timeScale 1 000 000: the service's half-day of retries takes
 * about 50 ms), so deliveries really end FAILED, the endpoint is really auto-disabled after 10
 * and later events are really SKIPPED. What comes back is replayed by the service, signed, and
 * goes through the trigger's normal checks: every event must run exactly once.
 */
import { Clearinghouse } from '../../../nodes/Clearinghouse/Clearinghouse.node';
import { runNode } from '../../support/n8nContexts';
import { SandboxClient } from '../../support/sandbox';
import { activate, allRunOnce as allRunOnceIn, api, deliveriesOf, flush, LONG, newOrder, outage, publishAlone, until, useTriggerSandbox } from './support';

jest.setTimeout(120_000);

const { sb, receiver } = useTriggerSandbox({ timeScale: 1_000_000 });

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
