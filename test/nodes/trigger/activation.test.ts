/**
 * What the trigger does when n8n activates it (issue 23; activation.ts), in n8n-core's real
 * contexts (TriggerContext, HookContext, WebhookContext, and WorkflowExecute.runNode for a manual
 * run) against a sandbox whose retry schedule is compressed (timeScale 1 000 000: a delivery's 60
 * attempts over about 13.6 service hours take about 50 ms of backoff), so deliveries
 * really end FAILED, the endpoint is really auto-disabled and later events are really SKIPPED.
 */
import { ExecutionLifecycleHooks, HookContext, TriggerContext, WorkflowExecute } from 'n8n-core';
import type { INodeExecutionData, ITriggerResponse, IWebhookData, IWorkflowBase, WorkflowActivateMode } from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { fallbackSettled, setFallbackTiming, setRetireGrace, triggerKey } from '../../../nodes/ClearinghouseTrigger/activation';
import { additionalDataFor, makeWorkflow } from '../../support/n8nContexts';
import { AUTO_DISABLE_AFTER } from '../../../sandbox/webhooks';
import { SandboxClient } from '../../support/sandbox';
import { sleeps } from '../../support/sleep';
import {
	activate,
	api,
	deactivate,
	endpointsAt,
	flush,
	N8nStaticData,
	newOrder,
	sandbox,
	setupFor,
	trigger,
	until,
	type Sandbox,
	type TriggerUnderTest,
	WebhookServer,
} from './support';

// The transport's backoff is skipped only where a test says so (the fallback and the grace period sleep for real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../support/sleep')>('../../support/sleep').n8nWorkflowWithRecordedSleep());
sleeps.instant = false;

jest.setTimeout(120_000);

let sb: Sandbox;
let receiver: WebhookServer;
let counter = 0;

beforeAll(async () => {
	sb = await sandbox({ timeScale: 1_000_000, attemptTimeoutMs: 5_000 });
	receiver = new WebhookServer(sb);
	await receiver.start();
});

afterAll(async () => {
	setFallbackTiming({ delayMs: 10_000, sameActivationMs: 60_000 });
	setRetireGrace(0);
	await receiver?.close();
	await sb?.close();
});

const LONG = 10 * 365 * 86400_000;
/** Every event emitted once is what is counted: no confirmation, no stale filter (orders move on while "n8n is down"). */
const PARAMETERS = { options: { confirmWithApi: false, dropStaleEvents: false } };

async function published(mode?: 'manual'): Promise<TriggerUnderTest> {
	for (const e of (await api(sb, 'GET', '/webhooks/endpoints')).body.endpoints) await api(sb, 'DELETE', `/webhooks/endpoints/${e.id}`);
	const t: TriggerUnderTest = { parameters: PARAMETERS, workflowId: `ac-${++counter}-${Date.now()}`, staticData: new N8nStaticData(), mode };
	receiver.serve(t);
	expect(await activate(sb, receiver, t)).toBe('created');
	receiver.outcomes = [];
	return t;
}

async function deliveriesOf(endpointId: string): Promise<any[]> {
	return (await api(sb, 'GET', `/webhooks/deliveries?endpointId=${endpointId}&limit=1000`)).body.deliveries;
}
const settled = async (id: string) => (await deliveriesOf(id)).every((d) => d.status !== 'PENDING' && d.status !== 'DISPATCHED');

/**
 * While "n8n is down": AUTO_DISABLE_AFTER orders at once, whose deliveries fail until the endpoint is
 * DISABLED, then `skipped` more (SKIPPED); returns how many events were missed.
 */
async function outage(t: TriggerUnderTest, skipped: number): Promise<number> {
	const id = String(t.staticData.node().endpointId);
	receiver.unserve(t);
	await Promise.all(Array.from({ length: AUTO_DISABLE_AFTER }, async (_, i) => await newOrder(sb, 10 + i, LONG)));
	await until(async () => await settled(id));
	expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('DISABLED');
	await Promise.all(Array.from({ length: skipped }, async (_, i) => await newOrder(sb, 50 + i, LONG)));
	await until(async () => await settled(id));
	receiver.serve(t);
	return new Set((await deliveriesOf(id)).map((d) => d.eventId)).size;
}

/** Waits until every event in the endpoint's log ran; each must have run exactly once. */
async function allRunOnce(endpointId: string): Promise<number> {
	const runs = await until(async () => {
		await flush(sb);
		const events = new Set((await deliveriesOf(endpointId)).map((d) => `evt_${d.eventId}_payment_order`));
		const byEvent = new Map<string, number>();
		for (const item of receiver.emitted()) byEvent.set(String(item.json.eventId), (byEvent.get(String(item.json.eventId)) ?? 0) + 1);
		return [...events].every((e) => byEvent.has(e)) ? byEvent : undefined;
	}, 60_000);
	for (const n of runs.values()) expect(n).toBe(1);
	return runs.size;
}

/** n8n-core's TriggerContext, as n8n builds it for an activation; `emitted` collects what trigger() emits. */
function triggerContext(t: TriggerUnderTest, activation: 'init' | 'activate' = 'init') {
	const setup = { ...setupFor(sb, t), staticData: t.staticData.forHook() };
	const { workflow, node } = makeWorkflow(trigger, setup);
	const emitted: unknown[] = [];
	const context = new TriggerContext(workflow, node, additionalDataFor(setup), 'trigger', activation, (data) => emitted.push(data));
	return { context, emitted };
}

const replaysSince = async (mark: number) =>
	(await new SandboxClient(sb).requests(mark)).filter((r) => r.method === 'POST' && /\/webhooks\/deliveries\/[^/]+\/replay$/.test(String(r.path)));

describe('trigger() on activation', () => {
	it('with checkExists in the same activation (n8n 2.40.7 calls both, in parallel): one recovery, by checkExists; trigger() emits nothing and returns a close function', async () => {
		setFallbackTiming({ delayMs: 300, sameActivationMs: 60_000 });
		const t = await published();
		const id = String(t.staticData.node().endpointId);
		const missed = await outage(t, 3);
		const mark = await new SandboxClient(sb).mark();

		const { context, emitted } = triggerContext(t);
		const [response, kept] = await Promise.all([trigger.trigger.call(context) as Promise<ITriggerResponse>, activate(sb, receiver, t)]);
		expect(kept).toBe('kept');
		expect(typeof response.closeFunction).toBe('function');
		// The fallback, past its delay, saw checkExists do it.
		await fallbackSettled(triggerKey(context));
		expect(t.staticData.node().lastRecovery).toMatchObject({ replayed: missed, eventsMissed: missed, more: false });
		expect(t.staticData.node().lastRecovery).not.toHaveProperty('by');
		expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('ENABLED');
		expect(await allRunOnce(id)).toBe(missed);
		expect(await replaysSince(mark)).toHaveLength(missed);
		expect(emitted).toEqual([]);
		await response.closeFunction!();
	});

	it('where n8n calls no webhook method around it, trigger() recovers on its own (fallback): re-enabled, each missed event runs once', async () => {
		setFallbackTiming({ delayMs: 100, sameActivationMs: 0 });
		const t = await published();
		const id = String(t.staticData.node().endpointId);
		const missed = await outage(t, 2);
		const mark = await new SandboxClient(sb).mark();
		const { context, emitted } = triggerContext(t);
		const response = (await trigger.trigger.call(context)) as ITriggerResponse;
		await until(async () => (t.staticData.node().lastRecovery as { by?: string } | undefined)?.by === 'trigger', 30_000);
		expect(t.staticData.node().lastRecovery).toMatchObject({ replayed: missed, eventsMissed: missed, by: 'trigger' });
		expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('ENABLED');
		expect(await allRunOnce(id)).toBe(missed);
		expect(await replaysSince(mark)).toHaveLength(missed);
		expect(emitted).toEqual([]);
		await response.closeFunction!();
	});

	it('closed before its fallback ran (unpublished at once): recovers nothing', async () => {
		setFallbackTiming({ delayMs: 300, sameActivationMs: 0 });
		const t = await published();
		await outage(t, 1);
		const mark = await new SandboxClient(sb).mark();
		const { context } = triggerContext(t);
		const response = (await trigger.trigger.call(context)) as ITriggerResponse;
		await response.closeFunction!();
		await fallbackSettled(triggerKey(context));
		expect(await new SandboxClient(sb).requests(mark)).toEqual([]);
	});

	it('two activations at once (checkExists twice in parallel): the recoveries do not overlap, each missed event is replayed once', async () => {
		const t = await published();
		const id = String(t.staticData.node().endpointId);
		const missed = await outage(t, 2);
		const mark = await new SandboxClient(sb).mark();
		expect(await Promise.all([activate(sb, receiver, t), activate(sb, receiver, t)])).toEqual(['kept', 'kept']);
		expect(await allRunOnce(id)).toBe(missed);
		expect(await replaysSince(mark)).toHaveLength(missed);
	});
});

describe('checkExists when n8n re-activates the trigger', () => {
	/** A HookContext for the production webhook, with the API at `baseUrl` and n8n's activation mode. */
	function hookAt(t: TriggerUnderTest, baseUrl: string, activation: WorkflowActivateMode) {
		const setup = { ...setupFor(sb, t), staticData: t.staticData.forHook() };
		setup.credentials = { ...setup.credentials, baseUrl };
		const { workflow, node } = makeWorkflow(trigger, setup);
		const additionalData = additionalDataFor(setup, { webhookBaseUrl: `${receiver.base}/webhook` });
		const webhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: `wh-${t.workflowId}/webhook`,
			webhookDescription: { name: 'default', httpMethod: 'POST', path: 'webhook' },
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: `wh-${t.workflowId}`,
		} as IWebhookData;
		return new HookContext(workflow, node, additionalData, 'trigger', activation, webhookData);
	}

	it('at n8n start with the API unreachable: keeps the stored endpoint as it was and answers true (n8n would drop the webhook on a throw); at publish it still fails', async () => {
		const t = await published();
		const { lastRecovery: _l, ...before } = t.staticData.node();
		const unreachable = 'http://127.0.0.1:9';
		sleeps.instant = true;
		sleeps.asked = [];
		try {
			await expect(trigger.webhookMethods.default.checkExists.call(hookAt(t, unreachable, 'init'))).resolves.toBe(true);
			const { lastRecovery, ...after } = t.staticData.node();
			expect(after).toEqual(before);
			expect(lastRecovery).toMatchObject({ error: expect.any(String) });
			await expect(trigger.webhookMethods.default.checkExists.call(hookAt(t, unreachable, 'activate'))).rejects.toThrow();
			// Each refused read was tried four times, 0.5, 1 and 2 s apart (not waited here).
			expect(sleeps.asked).toEqual([500, 1000, 2000, 500, 1000, 2000]);
		} finally {
			sleeps.instant = false;
		}
	});
});

describe('manual runs (the editor\'s "Listen for test event")', () => {
	function manualRun(t: TriggerUnderTest) {
		const setup = { ...setupFor(sb, t), staticData: t.staticData.forHook(), mode: 'manual' as const };
		const { workflow, node } = makeWorkflow(trigger, setup);
		const additionalData = additionalDataFor(setup);
		additionalData.hooks = new ExecutionLifecycleHooks('manual', '1', {
			id: workflow.id,
			name: workflow.name,
			nodes: [node],
			connections: {},
		} as unknown as IWorkflowBase);
		// What n8n runs for the start node of the execution a test webhook started: n8n-core's
		// runNode calls trigger() (it checks `trigger` before `webhook`) and waits until it emits.
		return async (items: INodeExecutionData[]) =>
			await new WorkflowExecute(additionalData, 'manual').runNode(
				workflow,
				{ node, data: { main: [items] }, source: null },
				createRunExecutionData(),
				0,
				additionalData,
				'manual',
			);
	}

	it('the run of a test event emits exactly what webhook() handed n8n; a second run with no new test event fails with a clear error instead of waiting forever', async () => {
		const t = await published('manual');
		const order = await newOrder(sb, 7, LONG);
		const outcome = await until(async () => {
			await flush(sb);
			return receiver.outcomes.find((o) => o.path.includes('/webhook-test/') && o.items?.length);
		}, 30_000);
		expect(outcome.items![0].json).toMatchObject({ paymentOrder: { id: order.id } });
		const run = manualRun(t);
		const result = await run(outcome.items!);
		expect((result as { data: INodeExecutionData[][] }).data).toEqual([outcome.items]);
		await expect(run(outcome.items!)).rejects.toThrow('No test event to run');
		// Nothing was registered or written for the manual run itself: still the one test endpoint.
		expect(await endpointsAt(sb, receiver.urlOf(t))).toHaveLength(1);
	});
});

describe('a changed trigger (n8n re-registers it: delete, then checkExists/create)', () => {
	it('keeps its endpoint and the events still owed to it: the catch-up after the re-registration runs each once; an unpublish deletes after the grace period', async () => {
		setRetireGrace(300);
		try {
			const t = await published();
			const id = String(t.staticData.node().endpointId);
			const missed = await outage(t, 2);
			expect(await deactivate(sb, receiver, t)).toBe(true);
			expect(t.staticData.node().endpointId).toBeUndefined();
			// The new version of the node: another option.
			t.parameters = { options: { ...PARAMETERS.options, emitPing: true } };
			expect(await activate(sb, receiver, t)).toBe('kept');
			expect(t.staticData.node().endpointId).toBe(id);
			expect(t.staticData.node().lastRecovery).toMatchObject({ replayed: missed, eventsMissed: missed });
			expect(await allRunOnce(id)).toBe(missed);
			// Past the grace period: the deletion it scheduled found the endpoint taken back.
			await new Promise((r) => setTimeout(r, 600));
			expect((await endpointsAt(sb, receiver.urlOf(t))).filter((e) => !e.deletedAt).map((e) => e.id)).toEqual([id]);

			// Unpublished for good: deleted once the grace period is over.
			expect(await deactivate(sb, receiver, t)).toBe(true);
			expect((await endpointsAt(sb, receiver.urlOf(t))).filter((e) => !e.deletedAt)).toHaveLength(1);
			await until(async () => (await endpointsAt(sb, receiver.urlOf(t))).filter((e) => !e.deletedAt).length === 0, 10_000);
		} finally {
			setRetireGrace(0);
		}
	});
});
