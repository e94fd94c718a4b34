import type { IDataObject, IHookFunctions, IWebhookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { SecretScope } from '../shared/secretBox';
import { openSecret, sealSecret } from '../shared/secretBox';
import { apiCredentials, apiRequest, reuseCredentials } from '../shared/transport';
import { setNewest } from '../shared/boundedMemory';

/**
 * The trigger's endpoint secret: how it is kept, opened and renewed.
 * - Sealed: the service shows an endpoint's secret once (create, rotate). The trigger keeps it only
 *   sealed in its static data (`secretBox`: AES-256-GCM under a key derived from the credential's API
 *   key, the workflow id and the node id, shared/secretBox.ts). A plain `secret` left by an earlier
 *   version is sealed as soon as it is read with a usable key.
 * - Opened on delivery with the credential's key. A box that does not open (the key was changed)
 *   verifies nothing and repairs nothing: the delivery is answered non-2xx (the service keeps it),
 *   and no request that could not be verified ever makes the trigger write to the service.
 * - Kept opened for 10 s per trigger and box, in this process only, with the credential it was opened
 *   with: within that time a delivery reads no credential at all (n8n loads, decrypts and takes an
 *   expression isolate for every read), and its confirmation request uses that same key.
 * - Renewed only on activation (publish.ts): an immediate rotation whose new secret, sealed under
 *   the current key, is the only one that signs from then on.
 */

/** What of the trigger's static data (state.ts `EndpointState`) holds its secret. */
export interface SecretState {
	/** The endpoint secret, sealed (AES-256-GCM) under a key derived from the credential's API key. */
	secretBox?: string;
	/** Only in state written by versions before the box: read once, then replaced by `secretBox`. */
	secret?: string;
}

function scopeOf(ctx: IHookFunctions | IWebhookFunctions, credentials: IDataObject): SecretScope {
	return {
		apiKey: typeof credentials.apiKey === 'string' ? credentials.apiKey : '',
		workflowId: String(ctx.getWorkflow().id ?? ''),
		nodeId: ctx.getNode().id,
	};
}

/**
 * What the secret box of this trigger is sealed under: the credential's API key, workflow and node.
 * The credential is the transport's read of this n8n call, so the requests of the call read no other.
 */
export async function secretScope(ctx: IHookFunctions | IWebhookFunctions): Promise<SecretScope> {
	return scopeOf(ctx, await apiCredentials(ctx));
}

export function storeSecret(state: SecretState, secret: string, scope: SecretScope): void {
	state.secretBox = sealSecret(secret, scope);
	delete state.secret;
}

export type StoredSecret =
	| { found: 'secret'; secret: string }
	/** A box that does not open: sealed under another API key (the credential's key was changed). */
	| { found: 'unreadable' }
	| { found: 'none' };

/**
 * The stored secret. A plain secret left by an earlier version is sealed on the way (migrated;
 * n8n saves it with the state, see the README).
 */
export function readSecret(state: SecretState, scope: SecretScope): StoredSecret {
	if (typeof state.secretBox === 'string' && state.secretBox !== '') {
		const secret = openSecret(state.secretBox, scope);
		return secret === undefined ? { found: 'unreadable' } : { found: 'secret', secret };
	}
	if (typeof state.secret === 'string' && state.secret !== '') {
		const secret = state.secret;
		if (scope.apiKey !== '') storeSecret(state, secret, scope);
		return { found: 'secret', secret };
	}
	return { found: 'none' };
}

/** `rotate-secret?immediate=true`: the new secret, the only one that signs from now on. */
export async function rotateImmediately(ctx: IHookFunctions | IWebhookFunctions, endpointId: string): Promise<string> {
	const rotated = await apiRequest(ctx, {
		method: 'POST',
		path: `/webhooks/endpoints/${encodeURIComponent(endpointId)}/rotate-secret`,
		qs: { immediate: true },
	});
	if (typeof rotated.secretNext !== 'string' || rotated.secretNext === '') {
		throw new NodeApiError(ctx.getNode(), rotated as JsonObject, {
			message: 'The rotate-secret response did not contain the new secret',
		});
	}
	return rotated.secretNext;
}

export type DeliverySecret =
	| { found: 'secret'; secret: string }
	/** The box does not open (the credential's API key was changed): answer non-2xx, repair on activation. */
	| { found: 'unreadable' }
	| { found: 'none' };

/**
 * The secret a delivery is checked with. A box that no longer opens (the credential's API key was
 * changed) is NOT repaired here: the request could not be verified, and an unverified request must
 * never make the trigger write to the service. The
 * delivery is answered non-2xx, so the service keeps it; publishing the workflow again adopts the
 * endpoint under the new key (checkExists) and the catch-up replays what was refused meanwhile.
 * A secret opened in the last 10 s for the same trigger and box is used without reading the
 * credential again, and the credential it was opened with becomes this call's (for the
 * confirmation request): see below.
 */
export async function deliverySecret(ctx: IWebhookFunctions, state: SecretState, key: string): Promise<DeliverySecret> {
	const opened = openedSecrets.get(openedKey(key, state.secretBox));
	if (opened && Date.now() - opened.at < OPENED_SECRET_TTL_MS) {
		reuseCredentials(ctx, opened.credentials);
		return { found: 'secret', secret: opened.secret };
	}
	const credentials = await apiCredentials(ctx);
	const found = readSecret(state, scopeOf(ctx, credentials));
	if (found.found === 'secret' && typeof state.secretBox === 'string' && state.secretBox !== '') {
		setNewest(openedSecrets, openedKey(key, state.secretBox), { secret: found.secret, credentials: { ...credentials }, at: Date.now() }, MAX_OPENED);
	}
	return found;
}

/**
 * Secrets this process opened, by trigger and box, for a few seconds, with the credential they were
 * opened with. Reading the credential (n8n loads it from its database, decrypts it and, by default,
 * takes an expression isolate for it on every call) was the largest cost of a delivery, and the
 * confirmation request (confirm.ts) needs the same key: kept here, neither reads it again.
 * A new box (renewed or re-registered) is a new entry; a changed credential (API key, Base URL) is
 * noticed once the entry has expired (until then the old box's secret, still the endpoint's,
 * verifies as before, and the confirmation is asked with the old key). Kept in this process's memory
 * only: never written, logged or returned.
 */
export const OPENED_SECRET_TTL_MS = 10_000;
const MAX_OPENED = 100;
const openedSecrets = new Map<string, { secret: string; credentials: IDataObject; at: number }>();
const openedKey = (key: string, box: unknown) => `${key}\n${typeof box === 'string' ? box : ''}`;

/** For tests: forget opened secrets, as a restart of n8n would. */
export function forgetOpenedSecrets(): void {
	openedSecrets.clear();
}
