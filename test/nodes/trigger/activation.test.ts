/**
 * What the trigger does when n8n activates it (activation.ts), in n8n-core's real
 * contexts (TriggerContext, HookContext, WebhookContext, and WorkflowExecute.runNode for a manual
 * run) against a sandbox whose retry schedule is compressed (timeScale 1 000 000), so deliveries
 * really end FAILED, the endpoint is really auto-disabled and later events are really SKIPPED.
 */
import { ExecutionLifecycleHooks, HookContext, TriggerContext, WorkflowExecute } from 'n8n-core';
import type { INodeExecutionData, ITriggerResponse, IWebhookData, IWorkflowBase, WorkflowActivateMode } from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { fallbackSettled, setFallbackTiming } from '../../../nodes/ClearinghouseTrigger/activation';
import { setRetireGrace } from '../../../nodes/ClearinghouseTrigger/publish';
import { triggerKey } from '../../../nodes/ClearinghouseTrigger/state';
import { additionalDataFor, makeWorkflow } from '../../../harness/n8nContexts';
import { SandboxClient } from '../../../harness/sandboxClient';
import { sleeps } from '../../support/sleep';
import { setupFor, trigger, type TriggerUnderTest } from '../../../harness/inProcessTrigger';
import {
	activate,
	allRunOnce as allRunOnceIn,
	api,
	deactivate,
	endpointsAt,
	EVERY_EVENT,
	flush,
	LONG,
	newOrder,
	outage,
	publishAlone,
	until,
	useTriggerSandbox,
} from './support';

// The transport's backoff is skipped only where a test says so (the fallback and the grace period sleep for real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../support/sleep')>('../../support/sleep').n8nWorkflowWithRecordedSleep());
sleeps.instant = false;

jest.setTimeout(120_000);

const { sb, receiver } = useTriggerSandbox({ timeScale: 1_000_000, deliveryAttempts: 3 });

afterAll(() => {
	setFallbackTiming({ delayMs: 10_000, sameActivationMs: 60_000 });
	setRetireGrace(0);
});

const published = async (mode?: 'manual') => await publishAlone(sb, receiver, 'ac', mode);
const missedIn = async (t: TriggerUnderTest, skipped: number) => (await outage(sb, receiver, t, skipped)).events;
const allRunOnce = async (endpointId: string) => (await allRunOnceIn(sb, receiver, endpointId)).events;

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

/** A published trigger after an outage that made it miss events: the request log marked after it. */
async function afterOutage(skipped: number): Promise<{ t: TriggerUnderTest; id: string; missed: number; mark: number }> {
	const t = await published();
	const id = String(t.staticData.node().endpointId);
	const missed = await missedIn(t, skipped);
	return { t, id, missed, mark: await new SandboxClient(sb).mark() };
}

/** The endpoint is enabled again, each missed event ran once, and was replayed once since the mark. */
async function expectRecovered(id: string, missed: number, mark: number): Promise<void> {
	expect((await api(sb, 'GET', `/webhooks/endpoints/${id}`)).body.status).toBe('ENABLED');
	expect(await allRunOnce(id)).toBe(missed);
	expect(await replaysSince(mark)).toHaveLength(missed);
}

describe('trigger() on activation', () => {
	it('with checkExists in the same activation (n8n 2.40.7 calls both, in parallel): one recovery, by checkExists; trigger() emits nothing and returns a close function', async () => {
		setFallbackTiming({ delayMs: 300, sameActivationMs: 60_000 });
		const { t, id, missed, mark } = await afterOutage(3);
		const { context, emitted } = triggerContext(t);
		const [response, kept] = await Promise.all([trigger.trigger.call(context) as Promise<ITriggerResponse>, activate(sb, receiver, t)]);
		expect(kept).toBe('kept');
		expect(typeof response.closeFunction).toBe('function');
		// The fallback, past its delay, saw checkExists do it.
		await fallbackSettled(triggerKey(context));
		expect(t.staticData.node().lastRecovery).toMatchObject({ replayed: missed, eventsMissed: missed, more: false });
		expect(t.staticData.node().lastRecovery).not.toHaveProperty('by');
		await expectRecovered(id, missed, mark);
		expect(emitted).toEqual([]);
		await response.closeFunction!();
	});

	it('where n8n calls no webhook method around it, trigger() recovers on its own (fallback): re-enabled, each missed event runs once', async () => {
		setFallbackTiming({ delayMs: 100, sameActivationMs: 0 });
		const { t, id, missed, mark } = await afterOutage(2);
		const { context, emitted } = triggerContext(t);
		const response = (await trigger.trigger.call(context)) as ITriggerResponse;
		await until(async () => (t.staticData.node().lastRecovery as { by?: string } | undefined)?.by === 'trigger', 30_000);
		expect(t.staticData.node().lastRecovery).toMatchObject({ replayed: missed, eventsMissed: missed, by: 'trigger' });
		await expectRecovered(id, missed, mark);
		expect(emitted).toEqual([]);
		await response.closeFunction!();
	});

	it('closed before its fallback ran (unpublished at once): recovers nothing', async () => {
		setFallbackTiming({ delayMs: 300, sameActivationMs: 0 });
		const { t, mark } = await afterOutage(1);
		const { context } = triggerContext(t);
		const response = (await trigger.trigger.call(context)) as ITriggerResponse;
		await response.closeFunction!();
		await fallbackSettled(triggerKey(context));
		expect(await new SandboxClient(sb).requests(mark)).toEqual([]);
	});

	it('two activations at once (checkExists twice in parallel): the recoveries do not overlap, each missed event is replayed once', async () => {
		const { t, id, missed, mark } = await afterOutage(2);
		expect(await Promise.all([activate(sb, receiver, t), activate(sb, receiver, t)])).toEqual(['kept', 'kept']);
		await expectRecovered(id, missed, mark);
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

	it('"No test event to run" followed: an event sent while listening (an order moved along) is what the next run emits', async () => {
		const t = await published('manual');
		const run = manualRun(t);
		await expect(run([])).rejects.toThrow('No test event to run');
		// The advice: "Listen for test event" and send an event (a new order in the sandbox).
		const order = await newOrder(sb, 8, LONG);
		const outcome = await until(async () => {
			await flush(sb);
			return receiver.outcomes.find((o) => o.path.includes('/webhook-test/') && (o.items?.[0]?.json as any)?.paymentOrder?.id === order.id);
		}, 30_000);
		const result = await run(outcome.items!);
		expect((result as { data: INodeExecutionData[][] }).data).toEqual([outcome.items]);
	});
});

describe('a changed trigger (n8n re-registers it: delete, then checkExists/create)', () => {
	it('keeps its endpoint and the events still owed to it: the catch-up after the re-registration runs each once; an unpublish deletes after the grace period', async () => {
		setRetireGrace(300);
		try {
			const t = await published();
			const id = String(t.staticData.node().endpointId);
			const missed = await missedIn(t, 2);
			expect(await deactivate(sb, receiver, t)).toBe(true);
			expect(t.staticData.node().endpointId).toBeUndefined();
			// The new version of the node: another option.
			t.parameters = { options: { ...EVERY_EVENT.options, emitPing: true } };
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
