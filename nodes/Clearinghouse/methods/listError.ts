import type { IDataObject, ILoadOptionsFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiCredentials, CREDENTIAL_TYPE } from '../../shared/transport';

/**
 * Errors of the editor's dropdowns (Chain, Asset) and From List searches, said so that n8n 2.40.7
 * shows them. n8n's editor shows only the `message` of what such a method throws: in the dropdown's
 * issue tooltip ("There was a problem loading the parameter options from server: …") and in a From
 * List's error view. A NodeApiError reaches a dropdown as a plain object and reads "[object Object]"
 * (the REST client hands NodeApiError bodies back as they are), so these throw a NodeOperationError
 * whose message holds everything: what was refused, at which Base URL, with which credential, and
 * what to do. The From List view splits a message at dashes and drops sentences that say "check
 * your credentials" (it adds its own link), so the messages avoid both.
 */

/** What failed, as far as the message needs it (from the transport's error). */
export interface ListFailure {
	/** The HTTP status of the service's answer, when there was one. */
	status?: number;
	/** The service's error code (`unauthorized`, `account_not_active`, ...) or the transport's (`CONNECTION_FAILED`). */
	code?: string;
	/** The error's own message (the service's answer in the panel's words). */
	message: string;
}

export interface ListTarget {
	/** The credential's Base URL as the user typed it (no secret in it). */
	baseUrl?: string;
	/** The credential's name in n8n. */
	credentialName?: string;
	/**
	 * The editor asked for the list while the node had no Clearinghouse credential. n8n 2.40.7 loads a new
	 * node's lists as the panel opens, beside giving it the only credential of its type, and does not load
	 * them again when that credential arrives during the load: the list stays failed until the node reopens.
	 */
	noCredential?: boolean;
}

const SANDBOX_KEY_HINT = 'the local sandbox prints its key when it starts; its demo key is sk_sandbox_demo_key';

/** The message n8n shows when a dropdown or From List of the Clearinghouse node cannot load. Pure. */
export function listFailureMessage(failure: ListFailure, target: ListTarget): string {
	const credential = target.credentialName ? `the credential "${target.credentialName}"` : 'the Clearinghouse credential';
	const at = target.baseUrl ? ` at ${target.baseUrl}` : '';
	const { status, code, message } = failure;
	if (target.noCredential) {
		return (
			'This list loaded while the node had no Clearinghouse credential. Choose one in Credential to connect with; ' +
			'if one is already shown there, close this node and open it again: the list then loads with it.'
		);
	}
	if (status === 401) {
		return (
			`The Clearinghouse API${at} did not accept the API Key of ${credential} (401), so this list cannot load. ` +
			`Open the credential, paste this account's API key (${SANDBOX_KEY_HINT}), save, and open the list again.`
		);
	}
	if (status === 403 && code === 'account_not_active') {
		return `The account of ${credential} is not active${at} (403), so this list cannot load. Lists load once the account is ACTIVE with KYB APPROVED.`;
	}
	if (status === 404) {
		return (
			`Nothing${at} answers as the Clearinghouse API (404), so this list cannot load. ` +
			`Set the Base URL of ${credential} to the API origin, for example https://api.example.com, or http://127.0.0.1:4010 for the local sandbox.`
		);
	}
	if (code === 'CONNECTION_FAILED' || code === 'ANSWER_LOST') {
		return (
			`Nothing answered${at}, the Base URL of ${credential}, so this list cannot load. ` +
			'Start the service (the local sandbox starts with npm start) or correct the Base URL in the credential, then open the list again.'
		);
	}
	if (status !== undefined) return `The Clearinghouse API${at} could not load this list for ${credential} (${status}): ${message}`;
	return `This list cannot load with ${credential}: ${message}`;
}

/** The status and code of a transport error (shared/transport.ts builds every error of a request). */
export function failureOf(error: unknown): ListFailure {
	const message = error instanceof Error ? error.message : String(error);
	if (error instanceof NodeApiError) {
		const status = Number(error.httpCode);
		const response = (error.errorResponse ?? {}) as JsonObject;
		const code = typeof response.error === 'string' ? response.error : undefined;
		return { status: Number.isInteger(status) && status > 0 ? status : undefined, code, message };
	}
	return { message };
}

/**
 * The user list (GET /users) is not in the reference: a service without it (404, 405) or with another
 * answer than `{users: [{id, label}]}` gets this message, which says how to go on: By ID. Pure.
 */
export function noUserListMessage(status: number | undefined, target: ListTarget): string {
	const at = target.baseUrl ? ` at ${target.baseUrl}` : '';
	const why =
		status === undefined
			? `The user list of the Clearinghouse API${at} (GET /users) answered in a form this node does not read (users, each with an id)`
			: `The Clearinghouse API${at} offers no user list (GET /users answered ${status}; the API reference shows none)`;
	return `${why}, so the sender cannot be picked here. Choose By ID beside this field and paste the user's ID (the id that User → Create or Update returns, never the label).`;
}

/** The credential's name and Base URL for the message; nothing when the credential cannot be read. */
export async function targetOf(ctx: ILoadOptionsFunctions): Promise<ListTarget> {
	const chosen = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	if (!chosen) return { noCredential: true };
	const credentialName = chosen.name;
	let baseUrl: string | undefined;
	try {
		const credentials: IDataObject = await apiCredentials(ctx);
		const raw = String(credentials.baseUrl ?? '').trim();
		baseUrl = raw === '' ? undefined : raw.replace(/\/+$/, '');
	} catch {
		// The message goes without it.
	}
	return { credentialName, baseUrl };
}

/** Runs a dropdown's or From List's loader; a failure becomes the error n8n's editor shows in full. */
export async function loadForEditor<T>(ctx: ILoadOptionsFunctions, load: () => Promise<T>): Promise<T> {
	try {
		return await load();
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), listFailureMessage(failureOf(error), await targetOf(ctx)));
	}
}
