import type { IDataObject, IHookFunctions, IWebhookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { SecretScope } from '../shared/secretBox';
import { openSecret, sealSecret } from '../shared/secretBox';
import { apiCredentials, apiRequest, reuseCredentials } from '../shared/transport';
import { setNewest } from '../shared/boundedMemory';

/**
 * The trigger's endpoint secret, which the service shows once (create, rotate): kept only sealed in the
 * static data (shared/secretBox.ts), opened on delivery, renewed only on activation (publish.ts) by an
 * immediate rotation. A box that no longer opens (the API key was changed) verifies nothing and repairs
 * nothing: an unverified request must never make the trigger write to the service.
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

/** The stored secret; a plain one left by an earlier version is sealed on the way (n8n saves it with the state). */
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

/**
 * The secret a delivery is checked with, never repaired here (see above). One opened in the last 10 s for
 * the same trigger and box is used without reading the credential, which it hands to this call (confirm.ts).
 */
export async function deliverySecret(ctx: IWebhookFunctions, state: SecretState, key: string): Promise<StoredSecret> {
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
 * Secrets this process opened, by trigger and box, with their credential: reading the credential (load,
 * decrypt, an expression isolate) was the largest cost of a delivery. A changed credential is noticed once
 * the entry expires. In memory only: never written, logged or returned.
 */
export const OPENED_SECRET_TTL_MS = 10_000;
const MAX_OPENED = 100;
const openedSecrets = new Map<string, { secret: string; credentials: IDataObject; at: number }>();
const openedKey = (key: string, box: unknown) => `${key}\n${typeof box === 'string' ? box : ''}`;

/** For tests: forget opened secrets, as a restart of n8n would. */
export function forgetOpenedSecrets(): void {
	openedSecrets.clear();
}
