import type { IDataObject, ILoadOptionsFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiCredentials, CREDENTIAL_TYPE } from '../../shared/transport';

/**
 * Errors of the editor's dropdowns and From List searches, said so that n8n 2.40.7 shows them: it shows
 * only the thrown `message`, and a NodeApiError reaches a dropdown as "[object Object]", so these throw a
 * NodeOperationError whose message holds everything. The From List view splits a message at dashes and
 * drops sentences saying "check your credentials", so the messages avoid both.
 */

export interface ListFailure {
	status?: number;
	/** The service's error code (`account_not_active`, ...) or the transport's (`CONNECTION_FAILED`). */
	code?: string;
	message: string;
}

export interface ListTarget {
	/** As the user typed it (no secret in it). */
	baseUrl?: string;
	credentialName?: string;
	/**
	 * No credential yet: n8n 2.40.7 loads a new node's lists as the panel opens, and does not load them again
	 * when the only credential of its type arrives during the load: the list stays failed until the node reopens.
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

/** The status and code of a transport error. */
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

/** GET /users is not in the reference: a service without it, or with another answer than `{users: [{id}]}`, gets this message: By ID. */
export function noUserListMessage(status: number | undefined, target: ListTarget): string {
	const at = target.baseUrl ? ` at ${target.baseUrl}` : '';
	const why =
		status === undefined
			? `The user list of the Clearinghouse API${at} (GET /users) answered in a form this node does not read (users, each with an id)`
			: `The Clearinghouse API${at} offers no user list (GET /users answered ${status}; the API reference shows none)`;
	return `${why}, so the sender cannot be picked here. Choose By ID beside this field and paste the user's ID (the id that User → Create or Update returns, never the label).`;
}

/** The credential's name and Base URL for the message. */
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
