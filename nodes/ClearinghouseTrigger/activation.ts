import type {
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { setNewest } from '../shared/boundedMemory';
import type { RecoveryResult } from '../shared/endpointRecovery';
import { DEFAULT_MAX_AGE_MS, getEndpoint, recoverEndpoint } from '../shared/endpointRecovery';
import { triggerKey, type EndpointState } from './state';

/**
 * What the trigger does when n8n activates it, and why it has a `trigger()` beside its webhook.
 *
 * n8n 2.40.7 (its workflow publication service, on by default) re-registers a node at `n8n start`,
 * after a leadership change and when its in-memory registration went missing only if the node is an
 * "in-memory" trigger, that is, has `trigger()`. A webhook-only node's registration is its database
 * row, which survives a restart, so n8n then calls none of its webhook methods (measured: the service
 * saw no request at all after a start). With `trigger()`, every activation (publish, start, leadership
 * change) calls both `checkExists`/`create` (webhook phase) and `trigger()` (in parallel, one
 * process: the leader). `checkExists` knows the URL n8n serves and does the recovery (re-enable,
 * catch-up, publish.ts and `catchUp` below); `trigger()` starts nothing and emits nothing itself. It only recovers
 * when n8n did not call the webhook methods in the same activation (no n8n version known to us does
 * that; the fallback is kept so the trigger never depends on it), and then only the endpoint it
 * stored. Recoveries of one trigger never overlap in a process (`oneAtATime`): the second one
 * finds the first one's replays on their way and replays nothing again.
 *
 * Manual runs: n8n runs a node that has `trigger()` through it also when the node starts a manual
 * execution from its test webhook (WorkflowExecute.runNode checks `trigger` before `webhook`), and
 * waits until it emits. `webhook()` keeps what it handed n8n for a test event (`rememberTestEvent`)
 * and `trigger()` emits exactly that, so "Listen for test event" works as before.
 */

const MAX_KEYS = 1000;

/** The trigger's Catch Up Window option, in ms (0 turns the catch-up off). */
export function catchUpWindowMs(ctx: IHookFunctions | ITriggerFunctions): number {
	const days = Number(ctx.getNodeParameter('options.catchUpDays', DEFAULT_MAX_AGE_MS / 86_400_000));
	return Number.isFinite(days) && days > 0 ? days * 86_400_000 : 0;
}

/** checkExists/create of each trigger: when the last one started and when it ended (never rejects). */
const registrations = new Map<string, { at: number; done: Promise<unknown> }>();

/** Runs a webhook method (checkExists or create), noting it for `trigger()`'s fallback. */
export async function registering<T>(key: string, work: () => Promise<T>): Promise<T> {
	const run = work();
	setNewest(
		registrations,
		key,
		{
			at: Date.now(),
			done: run.then(
				() => undefined,
				() => undefined,
			),
		},
		MAX_KEYS,
	);
	return await run;
}

/** A checkExists that could not confirm the endpoint (it kept it as stored): trigger()'s fallback recovers later. */
export function forgetRegistration(key: string): void {
	registrations.delete(key);
}

/** The tail of each trigger's chain of recoveries. */
const recoveries = new Map<string, Promise<unknown>>();

/** Runs `work` after any recovery of the same trigger in this process has ended: two never overlap. */
export async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
	const before = recoveries.get(key) ?? Promise.resolve();
	const run = before.then(work, work);
	const tail = run.then(
		() => undefined,
		() => undefined,
	);
	recoveries.set(key, tail);
	try {
		return await run;
	} finally {
		if (recoveries.get(key) === tail) recoveries.delete(key);
	}
}

/**
 * `trigger()` waits `delayMs` for the webhook methods of its activation, then counts a checkExists or
 * create that started up to `sameActivationMs` before it as part of the same activation.
 */
const fallbackTiming = { delayMs: 10_000, sameActivationMs: 60_000 };

/** For tests. */
export function setFallbackTiming(timing: Partial<typeof fallbackTiming>): void {
	Object.assign(fallbackTiming, timing);
}

/** The fallback recovery of each trigger's latest activation, until it ends (it never rejects). */
const fallbacks = new Map<string, Promise<void>>();

/** For tests: resolves once the fallback of the trigger's latest activation has decided (and done) what it does. */
export async function fallbackSettled(key: string): Promise<void> {
	await fallbacks.get(key);
}

/** The short record kept in the static data (`lastRecovery`), as checkExists keeps it. */
export function recoveryRecord(at: string, result: RecoveryResult): IDataObject {
	const record: IDataObject = { at, replayed: result.replayed, eventsMissed: result.eventsMissed, more: result.more, replayErrors: result.replayErrors.length };
	if (result.busy) record.busy = result.busy;
	return record;
}

/**
 * The fallback recovery of `trigger()`: only when n8n called neither checkExists nor create for
 * this trigger around this activation, and only for the endpoint stored at the URL stored with it
 * (a trigger context cannot ask n8n for its webhook URL). Never throws.
 */
async function fallbackRecovery(ctx: ITriggerFunctions, key: string, calledAt: number, windowMs: number, closed: () => boolean): Promise<void> {
	try {
		await sleep(fallbackTiming.delayMs);
		await registrations.get(key)?.done;
		if (closed() || windowMs === 0) return;
		const registration = registrations.get(key);
		if (registration && registration.at >= calledAt - fallbackTiming.sameActivationMs) return;
		const state = ctx.getWorkflowStaticData('node') as EndpointState;
		const { endpointId, url } = state;
		if (typeof endpointId !== 'string' || endpointId === '' || typeof url !== 'string') return;
		await oneAtATime(key, async () => {
			const endpoint = await getEndpoint(ctx, endpointId);
			if (endpoint.deletedAt || endpoint.url !== url || closed()) return;
			const result = await recoverEndpoint(ctx, endpoint, { since: Date.now() - windowMs });
			state.lastRecovery = { ...recoveryRecord(new Date().toISOString(), result), by: 'trigger' };
		});
	} catch (error) {
		ctx.logger.warn('Clearinghouse Trigger could not recover its endpoint on activation', {
			workflowId: ctx.getWorkflow().id,
			node: ctx.getNode().name,
			error: String((error as Error)?.message ?? error).slice(0, 300),
		});
	}
}

/** `trigger()`: see above. Never throws: a failed trigger() would fail the whole activation. */
export async function onActivation(ctx: ITriggerFunctions): Promise<ITriggerResponse> {
	if (ctx.getMode() === 'manual') return testEventResponse(ctx);
	// The activation mode in the text: n8n's console log prints the message, not always its metadata.
	ctx.logger.debug(`Clearinghouse Trigger activated (${ctx.getActivationMode()})`, { workflowId: ctx.getWorkflow().id, node: ctx.getNode().name });
	const key = triggerKey(ctx);
	// Read now, while n8n holds the workflow's expression engine for the activation.
	let windowMs = 0;
	try {
		windowMs = catchUpWindowMs(ctx);
	} catch {
		// an unreadable option turns the fallback off; checkExists reports the problem
	}
	let closed = false;
	const fallback = fallbackRecovery(ctx, key, Date.now(), windowMs, () => closed);
	setNewest(fallbacks, key, fallback, MAX_KEYS);
	void fallback.finally(() => {
		if (fallbacks.get(key) === fallback) fallbacks.delete(key);
	});
	return {
		closeFunction: async () => {
			closed = true;
		},
	};
}

/** Test events `webhook()` handed n8n, by trigger, until the manual run takes them. */
const testEvents = new Map<string, { items: INodeExecutionData[][]; at: number }>();
const TEST_EVENT_TTL_MS = 300_000;
const MAX_TEST_EVENTS = 50;

/** Keeps the items of a test (manual) delivery for the manual run n8n starts from them; returns the response unchanged. */
export function rememberTestEvent(ctx: IWebhookFunctions, response: IWebhookResponseData): IWebhookResponseData {
	if (ctx.getMode() === 'manual' && response.workflowData) {
		setNewest(testEvents, triggerKey(ctx, 'manual'), { items: response.workflowData, at: Date.now() }, MAX_TEST_EVENTS);
	}
	return response;
}

function testEventResponse(ctx: ITriggerFunctions): ITriggerResponse {
	const key = triggerKey(ctx, 'manual');
	return {
		manualTriggerFunction: async () => {
			const kept = testEvents.get(key);
			testEvents.delete(key);
			if (kept && Date.now() - kept.at < TEST_EVENT_TTL_MS) {
				ctx.emit(kept.items);
				return;
			}
			ctx.emitError(
				new NodeOperationError(ctx.getNode(), 'No test event to run', {
					description:
						'Use "Listen for test event" and send an event (move an order along in the sandbox console), or pin data on this node. In queue mode with manual executions offloaded to workers, the test event reaches the main process, not the worker that runs it: test with a published workflow there.',
				}),
			);
		},
	};
}

/**
 * On activation (checkExists, or an adoption): replays through the service what never reached this trigger (endpointRecovery.ts;
 * the endpoint was enabled just before). Best effort: a failure is kept in the static data
 * (`lastRecovery`) and never fails the activation, since the endpoint itself is in order.
 */
export async function catchUp(ctx: IHookFunctions, endpoint: IDataObject, state: EndpointState): Promise<void> {
	const windowMs = catchUpWindowMs(ctx);
	if (windowMs === 0) return;
	const at = new Date().toISOString();
	try {
		// Enabled already (above): recovery must not PATCH again. Never beside another recovery of
		// this trigger (`oneAtATime`): the second finds the first one's replays on their way.
		const result = await oneAtATime(
			triggerKey(ctx),
			async () => await recoverEndpoint(ctx, { ...endpoint, status: 'ENABLED' }, { since: Date.now() - windowMs }),
		);
		state.lastRecovery = recoveryRecord(at, result);
	} catch (error) {
		state.lastRecovery = { at, error: String((error as Error)?.message ?? error).slice(0, 300) };
	}
}
