/**
 * Two webhook processes (queue mode) as two copies of the trigger's module, each with its own process
 * memory, sharing the static data (n8n's database): genuine sandbox deliveries routed by event id, as
 * nginx's hash on X-Service-Webhook-Id routes them. What the trigger gives a once-only step there: the
 * same `orderStateKey` for every item about one order state, whichever process emitted it.
 */
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { Receiver } from '../../../harness/receiver';
import { N8nStaticData, type TriggerUnderTest } from '../../../harness/inProcessTrigger';
import { activate, api, deposit, flush, newOrder, until, useTriggerSandbox, WebhookServer } from './support';

type Harness = typeof import('../../../harness/inProcessTrigger');

/** A second copy of the trigger's modules (and so of its process memory): another webhook process. */
function anotherProcess(): Harness {
	let copy: Harness | undefined;
	jest.isolateModules(() => {
		// jest.isolateModules loads what is required inside it afresh: an import would be shared.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		copy = require('../../../harness/inProcessTrigger') as Harness;
	});
	return copy!;
}

const { sb } = useTriggerSandbox();
const processes: Harness[] = [];
let router: Receiver;
let webhookBase = '';
/** Deliveries answered, per process: event id, order id, emitted items. */
const answered: Array<{ process: number; eventId: string; orderId: string; status: number; items: any[] }> = [];
let serving = true;

beforeAll(async () => {
	processes.push(anotherProcess(), anotherProcess());
	router = new Receiver();
	router.respond = async ({ headers: incoming, bytes }) => {
		if (!serving || !current) return 404;
		const headers = Object.fromEntries(Object.entries(incoming).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
		const eventId = headers['x-service-webhook-id'] ?? '';
		// Like nginx's hash on the event id: every copy of one event reaches the same process.
		const process = createHash('sha256').update(eventId).digest()[0] % processes.length;
		const outcome = await processes[process].deliver(sb, current, headers, bytes);
		answered.push({
			process,
			eventId,
			orderId: String(JSON.parse(bytes.toString()).data?.payment_order?.id),
			status: outcome.status,
			items: (outcome.items ?? []).map((i) => i.json),
		});
		return { status: outcome.status, body: outcome.body };
	};
	await router.start();
	webhookBase = router.url;
});
afterAll(async () => await router?.close());

let current: TriggerUnderTest | undefined;

/** A trigger published from the main process (its endpoint alone on the account), served by the two processes. */
async function publishOnTwoProcesses(parameters: IDataObject): Promise<TriggerUnderTest> {
	for (const e of (await api(sb, 'GET', '/webhooks/endpoints')).body.endpoints) await api(sb, 'DELETE', `/webhooks/endpoints/${e.id}`);
	const t: TriggerUnderTest = { parameters, workflowId: `two-${Date.now()}`, staticData: new N8nStaticData() };
	// The lifecycle runs on the main process; only its URL matters to the router (any path reaches it).
	const server = { base: webhookBase } as WebhookServer;
	expect(await activate(sb, server, t)).toBe('created');
	current = t;
	answered.length = 0;
	return t;
}

async function settled(endpointId: string): Promise<boolean> {
	const log = (await api(sb, 'GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=1000`)).body.deliveries as any[];
	return log.every((d) => d.status === 'DELIVERED');
}

describe('two webhook processes, each event routed by its id', () => {
	it('"On order funded" with every default: orders funded while deliveries lagged give one orderStateKey per order, whichever process emitted it', async () => {
		const t = await publishOnTwoProcesses({ statuses: ['FUNDED'] });
		const endpointId = String(t.staticData.node().endpointId);
		// Deliveries lag (the service retries later): every event is read after the order was funded.
		serving = false;
		const orders = await Promise.all(Array.from({ length: 8 }, async (_, i) => await newOrder(sb, 10 + i)));
		for (const o of orders) await deposit(sb, o.id, o.amountUsd);
		await until(async () => {
			const states = await Promise.all(orders.map(async (o) => (await api(sb, 'GET', `/payment-orders/${o.id}`)).body.status));
			return states.every((s) => s === 'FUNDED');
		}, 60_000);
		serving = true;
		await until(async () => {
			await flush(sb);
			return await settled(endpointId);
		}, 60_000);

		const emitted = answered.flatMap((a) => a.items);
		const perOrder = new Map<string, Set<string>>();
		for (const item of emitted) {
			const id = String(item.paymentOrder.id);
			perOrder.set(id, (perOrder.get(id) ?? new Set()).add(String(item.orderStateKey)));
		}
		// Every order ran at least once, and all its items name one state: the order funded.
		expect([...perOrder.keys()].sort()).toEqual(orders.map((o) => o.id).sort());
		for (const o of orders) expect([...perOrder.get(o.id)!]).toEqual([`${o.id}:FUNDED`]);
		for (const item of emitted) expect(item).toMatchObject({ kind: 'status', paymentOrder: { status: 'FUNDED' } });
		// Both processes took events; the per-process filter alone lets some orders run twice (what the
		// issue measured: 11 runs for 8 orders), which a claim on the key (docs/queue-mode.md) runs once.
		expect(new Set(answered.map((a) => a.process)).size).toBe(2);
		const claimed = new Set(emitted.map((i) => i.orderStateKey));
		expect(claimed.size).toBe(orders.length);
		console.log(`[two processes] ${answered.length} deliveries, ${emitted.length} items for ${orders.length} orders, ${claimed.size} order states`);
	});
});
