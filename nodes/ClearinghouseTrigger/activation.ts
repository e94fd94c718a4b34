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
 * Activation, and why the trigger has a `trigger()` beside its webhook: n8n 2.40.7 calls the webhook
 * methods at `n8n start` or a leadership change only for a node with `trigger()` (measured). Every
 * activation then calls `checkExists`/`create`, which do the recovery (publish.ts, `catchUp` below), and
 * `trigger()`, which emits nothing itself and recovers only when the webhook methods were not called in
 * the same activation (a fallback no known n8n needs). Recoveries of one trigger never overlap in a
 * process (`oneAtATime`).
 *
 * Manual runs: n8n runs a test event through `trigger()` too (WorkflowExecute.runNode checks `trigger`
 * before `webhook`), so `webhook()` keeps what it handed n8n (`rememberTestEvent`) and `trigger()` emits it.
 */

const MAX_KEYS = 1000;
const ignore = (): undefined => undefined;

/** The trigger's Catch Up Window option, in ms (0 turns the catch-up off). */
function catchUpWindowMs(ctx: IHookFunctions | ITriggerFunctions): number {
	const days = Number(ctx.getNodeParameter('options.catchUpDays', DEFAULT_MAX_AGE_MS / 86_400_000));
	return Number.isFinite(days) && days > 0 ? days * 86_400_000 : 0;
}

/** checkExists/create of each trigger: when the last one started and when it ended (never rejects). */
const registrations = new Map<string, { at: number; done: Promise<unknown> }>();

/** Runs a webhook method (checkExists or create), noting it for `trigger()`'s fallback. */
export async function registering<T>(key: string, work: () => Promise<T>): Promise<T> {
	const run = work();
	setNewest(registrations, key, { at: Date.now(), done: run.then(ignore, ignore) }, MAX_KEYS);
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
	const tail = run.then(ignore, ignore);
	recoveries.set(key, tail);
	try {
		return await run;
	} finally {
		if (recoveries.get(key) === tail) recoveries.delete(key);
	}
}

/** `trigger()` waits `delayMs` for its activation's webhook methods; one started up to `sameActivationMs` before it counts. */
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
function recoveryRecord(at: string, result: RecoveryResult): IDataObject {
	const record: IDataObject = { at, replayed: result.replayed, eventsMissed: result.eventsMissed, more: result.more, replayErrors: result.replayErrors.length };
	if (result.busy) record.busy = result.busy;
	return record;
}

/** The fallback of `trigger()`, only for the endpoint and URL stored (a trigger context cannot ask n8n for its webhook URL). Never throws. */
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
 * On activation (checkExists, or an adoption): replays what never reached this trigger (endpointRecovery.ts).
 * Best effort: a failure is kept in `lastRecovery` and never fails the activation, the endpoint is in order.
 */
export async function catchUp(ctx: IHookFunctions, endpoint: IDataObject, state: EndpointState): Promise<void> {
	const windowMs = catchUpWindowMs(ctx);
	if (windowMs === 0) return;
	const at = new Date().toISOString();
	try {
		// Enabled already by the caller: recovery must not PATCH again.
		const result = await oneAtATime(
			triggerKey(ctx),
			async () => await recoverEndpoint(ctx, { ...endpoint, status: 'ENABLED' }, { since: Date.now() - windowMs }),
		);
		state.lastRecovery = recoveryRecord(at, result);
	} catch (error) {
		state.lastRecovery = { at, error: String((error as Error)?.message ?? error).slice(0, 300) };
	}
}
