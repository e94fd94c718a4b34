import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { readSecret, rotateImmediately, secretScope, storeSecret } from './endpointSecret';
import { getEndpoint, liveEndpoints, patchEndpoint } from '../shared/endpointRecovery';
import { apiCredentials, apiRequest } from '../shared/transport';
import { setNewest } from '../shared/boundedMemory';
import { catchUp, forgetRegistration, registering } from './activation';
import { triggerKey, type EndpointState } from './state';

/**
 * Publish and unpublish, n8n's webhook methods: checkExists keeps, adopts or sweeps the endpoints at our
 * URL (and runs the catch-up, activation.ts), create registers one, delete retires it after a grace period.
 */

const EVENT_TYPES = ['payment_order'];

/** Forgets the endpoint (the memory of emitted events stays). */
function clearEndpointState(state: EndpointState): void {
	delete state.endpointId;
	delete state.secretBox;
	delete state.secret;
	delete state.url;
}

function httpCode(error: unknown): string | undefined {
	return (error as { httpCode?: string })?.httpCode;
}

/** True when the API says the endpoint is not (or no longer) there for this key. */
function isGone(error: unknown): boolean {
	return httpCode(error) === '404' || httpCode(error) === '410';
}

/** The request's result, or the NodeApiError the transport raised (so callers can look at its status). */
async function settle<T>(request: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
	try {
		return { ok: true, value: await request };
	} catch (error) {
		return { ok: false, error };
	}
}

/** The stored endpoint as the API has it now; undefined when it is gone or not this account's. */
async function storedEndpoint(ctx: IHookFunctions, id: string): Promise<IDataObject | undefined> {
	const result = await settle(getEndpoint(ctx, id));
	if (result.ok) return result.value.deletedAt ? undefined : result.value;
	// 403: the stored id belongs to another account (the credential changed); the search by URL
	// that follows still finds anything of ours on the current account.
	if (isGone(result.error) || httpCode(result.error) === '403') return undefined;
	throw result.error;
}

async function deleteEndpoint(ctx: IHookFunctions, id: string): Promise<void> {
	const result = await settle(
		// Deleting twice cannot do harm (the second answers 404), so retries are safe.
		apiRequest(ctx, {
			method: 'DELETE',
			path: `/webhooks/endpoints/${encodeURIComponent(id)}`,
			idempotent: true,
		}),
	);
	if (!result.ok && !isGone(result.error)) throw result.error;
}

async function enable(ctx: IHookFunctions, endpoint: IDataObject): Promise<void> {
	if (endpoint.status !== 'ENABLED') await patchEndpoint(ctx, String(endpoint.id), { status: 'ENABLED' });
}

/** Live endpoints of this account that deliver to `url` (ours: n8n's webhook URL is unique to one trigger node). */
async function endpointsAt(ctx: IHookFunctions, url: string): Promise<IDataObject[]> {
	return (await liveEndpoints(ctx)).filter((e) => e.url === url);
}

function subscribed(endpoint: IDataObject): boolean {
	return Array.isArray(endpoint.eventTypes) && EVENT_TYPES.every((t) => (endpoint.eventTypes as string[]).includes(t));
}

/**
 * Takes over an endpoint at our URL whose secret we do not know: an immediate rotation retires the unknown
 * secret and keeps the endpoint's delivery history and pending retries (re-creating it would not).
 */
async function adopt(ctx: IHookFunctions, endpoint: IDataObject, state: EndpointState, url: string): Promise<void> {
	const id = String(endpoint.id);
	const secret = await rotateImmediately(ctx, id);
	await enable(ctx, endpoint);
	state.endpointId = id;
	storeSecret(state, secret, await secretScope(ctx));
	state.url = url;
	await catchUp(ctx, endpoint, state);
}

/**
 * Makes our URL served by exactly one endpoint we hold the secret of: the stored one when the API confirms
 * it, else one adopted at the URL; any other there is deleted. False when none is left (create next).
 */
export async function checkExists(ctx: IHookFunctions): Promise<boolean> {
	const key = triggerKey(ctx);
	return await registering(key, async () => {
		const state = ctx.getWorkflowStaticData('node') as EndpointState;
		const before = { ...state };
		const result = await settle(confirmEndpoint(ctx));
		if (result.ok) return result.value;
		const { error } = result;
		// At n8n start or a leadership change, an API out of reach must not unregister a working trigger
		// (n8n drops the webhook and calls delete on a failed checkExists): the stored endpoint is kept,
		// and trigger()'s fallback recovers later.
		const reactivation = ['init', 'leadershipChange'].includes(ctx.getActivationMode());
		if (!reactivation || typeof before.endpointId !== 'string' || before.endpointId === '') throw error;
		Object.assign(state, before);
		state.lastRecovery = { at: new Date().toISOString(), error: String((error as Error)?.message ?? error).slice(0, 300) };
		forgetRegistration(key);
		return true;
	});
}

async function confirmEndpoint(ctx: IHookFunctions): Promise<boolean> {
	const url = ctx.getNodeWebhookUrl('default') as string;
	const state = ctx.getWorkflowStaticData('node') as EndpointState;
	// Re-registered (delete, then this): the endpoint delete() was about to remove is ours again.
	const takenBack = takeBack(retireKey(ctx, url));
	if (takenBack && !state.endpointId) Object.assign(state, takenBack);

	let kept: IDataObject | undefined;
	if (typeof state.endpointId === 'string' && state.endpointId !== '') {
		const endpoint = await storedEndpoint(ctx, state.endpointId);
		// A secret that no longer opens (API key changed) counts as lost: the adoption below renews it.
		const known = readSecret(state, await secretScope(ctx)).found === 'secret';
		if (endpoint && endpoint.url === url && subscribed(endpoint) && known) {
			await enable(ctx, endpoint);
			kept = endpoint;
			await catchUp(ctx, endpoint, state);
		}
		// One stored for a URL this n8n no longer serves is forgotten, never deleted: the static data may be
		// a copy (a restored database, another WEBHOOK_URL) and that endpoint another n8n's (docs/trigger.md).
		if (!kept) clearEndpointState(state);
	}

	const atUrl = (await endpointsAt(ctx, url)).filter((e) => e.id !== kept?.id);
	if (!kept) {
		const candidate = atUrl.find((e) => subscribed(e));
		if (candidate) {
			await adopt(ctx, candidate, state, url);
			kept = candidate;
		}
	}
	for (const extra of atUrl) if (extra.id !== kept?.id) await deleteEndpoint(ctx, String(extra.id));
	if (kept) state.url = url;
	return kept !== undefined;
}

export async function create(ctx: IHookFunctions): Promise<boolean> {
	return await registering(triggerKey(ctx), async () => await createEndpoint(ctx));
}

async function createEndpoint(ctx: IHookFunctions): Promise<boolean> {
	const url = ctx.getNodeWebhookUrl('default') as string;
	const state = ctx.getWorkflowStaticData('node') as EndpointState;
	const workflow = ctx.getWorkflow();
	const node = ctx.getNode();
	const body = {
		url,
		description: `n8n workflow "${workflow.name ?? ''}" (${workflow.id ?? ''}), node "${node.name}"`.slice(0, 500),
		eventTypes: EVENT_TYPES,
	};
	const result = await settle(apiRequest(ctx, { method: 'POST', path: '/webhooks/endpoints', body }));
	if (!result.ok) {
		const { error } = result;
		// The create may have been committed before the answer was lost: adopt rather than duplicate.
		const code = Number(httpCode(error));
		if (!Number.isFinite(code) || code >= 500) {
			const found = (await endpointsAt(ctx, url)).find((e) => subscribed(e));
			if (found) {
				await adopt(ctx, found, state, url);
				return true;
			}
		}
		if (code === 400 && error instanceof NodeApiError) {
			error.description =
				"The service refused the webhook URL. It only accepts https:// URLs on public hosts: set n8n's WEBHOOK_URL to the public https address that reaches this n8n. " +
				(error.description ?? '');
		}
		throw error;
	}
	const created = result.value;
	if (typeof created.id !== 'string' || typeof created.secret !== 'string' || created.secret === '') {
		throw new NodeApiError(ctx.getNode(), created as JsonObject, {
			message: 'The webhook endpoint was created but the response lacked its id or secret',
		});
	}
	state.endpointId = created.id;
	storeSecret(state, created.secret, await secretScope(ctx));
	state.url = url;
	return true;
}

/** Deletes our endpoint (and any other at our URL) after a grace period (`retired` below) and forgets it; "already gone" is done. */
export async function deleteWebhook(ctx: IHookFunctions): Promise<boolean> {
	const url = ctx.getNodeWebhookUrl('default') as string;
	const state = ctx.getWorkflowStaticData('node') as EndpointState;
	// Only an endpoint stored for the URL this n8n serves: one stored for another URL may be
	// another n8n's (see checkExists).
	const stored =
		typeof state.endpointId === 'string' && state.endpointId !== '' && (state.url === undefined || state.url === url) ? state.endpointId : undefined;
	const kept: IDataObject = {};
	if (stored)
		for (const [k, v] of Object.entries({ endpointId: stored, secretBox: state.secretBox, secret: state.secret, url })) if (v !== undefined) kept[k] = v;
	// Also removes an endpoint left at our URL when the static data was lost. Best effort: the next
	// checkExists sweeps the URL again.
	let extras: string[] = [];
	try {
		extras = (await endpointsAt(ctx, url)).map((e) => String(e.id)).filter((id) => id !== stored);
	} catch {
		// ignored on purpose, see above
	}
	const removeAll = async () => {
		if (stored) await deleteEndpoint(ctx, stored);
		for (const id of extras) await deleteEndpoint(ctx, id).catch(() => undefined);
	};
	if (retireGraceMs <= 0 || (!stored && extras.length === 0)) {
		await removeAll();
		clearEndpointState(state);
		return true;
	}
	clearEndpointState(state);
	// Read now: the deletion runs after n8n is done with this call.
	await apiCredentials(ctx);
	retire(retireKey(ctx, url), kept, removeAll, (error) =>
		ctx.logger.warn('Clearinghouse Trigger could not delete its webhook endpoint after it was unpublished', {
			workflowId: ctx.getWorkflow().id,
			node: ctx.getNode().name,
			endpointId: stored,
			error: String((error as Error)?.message ?? error).slice(0, 300),
		}),
	);
	return true;
}

const MAX_KEYS = 1000;

/**
 * Endpoints of triggers n8n just deregistered, not deleted yet. n8n re-registers a changed trigger as
 * delete + create, which delete() cannot tell from an unpublish, and a deleted endpoint's deliveries
 * cannot be replayed: a checkExists within the grace period takes the endpoint back instead.
 */
const retired = new Map<string, { kept: IDataObject }>();
let retireGraceMs = 10_000;

/** For tests: the grace period of delete() (0: delete at once, inside delete()). */
export function setRetireGrace(ms: number): void {
	retireGraceMs = ms;
}

/** The trigger and the URL (production or test endpoint), not n8n's mode: n8n deletes with mode `internal`, registers with `trigger`. */
function retireKey(ctx: IHookFunctions, url: string): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${url}`;
}

/** Schedules `remove` after the grace period, unless `takeBack` claims the endpoint first. Never rejects. */
function retire(key: string, kept: IDataObject, remove: () => Promise<void>, onError: (error: unknown) => void): void {
	const entry = { kept };
	setNewest(retired, key, entry, MAX_KEYS);
	void (async () => {
		try {
			await sleep(retireGraceMs);
			if (retired.get(key) !== entry) return;
			retired.delete(key);
			await remove();
		} catch (error) {
			onError(error);
		}
	})();
}

/** The endpoint state delete() kept for this trigger and URL, if its deletion is still pending (then cancelled). */
function takeBack(key: string): IDataObject | undefined {
	const entry = retired.get(key);
	if (!entry) return undefined;
	retired.delete(key);
	return entry.kept;
}
