import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { DryRunStop, isDryRun } from './dryRun';

/** Every n8n context our nodes call the API from. */
export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export const CREDENTIAL_TYPE = 'clearinghouseApi';

export type Api = 'main' | 'rewards';

export interface ApiRequest {
	/** `main` (default) or the separate `rewards` host. */
	api?: Api;
	method: IHttpRequestMethods;
	/** Path below `/api/v1`, starting with `/`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	headers?: Record<string, string>;
	/**
	 * True when repeating the request cannot act twice: it carries an idempotency key (body field
	 * or header), or it is safe by nature (an upsert by label, attributing the same hash, a PATCH
	 * that sets values). Only reads and such writes are ever retried.
	 */
	idempotent?: boolean;
	itemIndex?: number;
	/** Per-attempt timeout; n8n's default otherwise. */
	timeoutMs?: number;
}

export interface RetryPolicy {
	/** Total tries, the first included. */
	maxAttempts: number;
	/** First backoff; doubles on every retry. */
	baseDelayMs: number;
	maxDelayMs: number;
	/** Longest Retry-After we are willing to wait for; longer ones fail the request. */
	maxRetryAfterMs: number;
}

const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 8000,
	maxRetryAfterMs: 60_000,
};

const RETRYABLE_STATUSES = new Set([429, 500, 503]);
const CONNECTION_ERROR_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ENOTFOUND',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
]);

const STATUS_HINTS: Record<number, string> = {
	400: 'The service rejected the request as invalid. Check the fields named in the message.',
	401: 'The API key was missing or not accepted. Check the API Key of the Clearinghouse credential.',
	403: 'The account must be ACTIVE with KYB APPROVED, and the resource or subaccount must belong to this account (a paused subaccount is read-only; webhook management for a subaccount needs its own key).',
	404: 'Not found, or not visible to this account.',
	409: 'Conflict: an idempotency key was reused with a different request, or the resource is not in a state that allows this (for example cancelling an order that is neither AWAITING_FUNDS nor FUNDED, or a stale return-details revision).',
	412: 'Precondition failed: for example the subaccount custody wallet is not provisioned yet.',
	422: 'The request is well-formed but breaks a rule of the service (see the message and path).',
	429: 'Too many requests. Retry after the interval the service asked for, with the same idempotency key.',
	500: 'Unexpected server error. Retry later with the same idempotency key.',
	503: 'Temporarily unavailable (for example an instant-payment deposit address). Retry shortly with the same idempotency key.',
};

/**
 * Origin of one of the two APIs from the credential, without trailing slashes or `/api/v1`,
 * or the reason the field cannot be used (reported before any request is sent).
 */
function apiOrigin(credentials: IDataObject, api: Api): { origin: string } | { problem: string } {
	const field = api === 'rewards' ? 'rewardsUrl' : 'baseUrl';
	const label = api === 'rewards' ? 'Rewards URL' : 'Base URL';
	const raw = String(credentials[field] ?? '').trim();
	if (raw === '') {
		return { problem: `The credential's ${label} is empty; set it to the ${api} API origin (without /api/v1)` };
	}
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return { problem: `The credential's ${label} is not a valid URL; expected http(s)://host[:port]` };
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { problem: `The credential's ${label} must start with https:// or http://` };
	}
	return { origin: raw.replace(/\/+$/, '').replace(/\/api\/v1$/, '') };
}

/** Full URL of a path below `/api/v1`, or the credential problem that prevents building it. */
function apiUrl(credentials: IDataObject, api: Api, path: string): { url: string } | { problem: string } {
	const resolved = apiOrigin(credentials, api);
	if ('problem' in resolved) return resolved;
	return { url: `${resolved.origin}/api/v1${path.startsWith('/') ? path : `/${path}`}` };
}

interface RawResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** Milliseconds asked for by a Retry-After header (seconds or HTTP date), or undefined. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const header = Array.isArray(value) ? value[0] : value;
	if (typeof header !== 'string' || header.trim() === '') return undefined;
	const seconds = Number(header);
	if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
	const date = Date.parse(header);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isConnectionError(error: unknown): boolean {
	const e = error as { code?: string; cause?: { code?: string }; message?: string };
	const code = e?.code ?? e?.cause?.code;
	if (code && CONNECTION_ERROR_CODES.has(code)) return true;
	return /socket hang up|ECONNRESET|ECONNREFUSED|timeout/i.test(e?.message ?? '');
}

function errorBody(body: unknown): JsonObject {
	if (body && typeof body === 'object' && !Array.isArray(body)) return body as JsonObject;
	if (typeof body === 'string' && body.trim() !== '') {
		try {
			const parsed = JSON.parse(body);
			if (parsed && typeof parsed === 'object') return parsed as JsonObject;
		} catch {
			// not JSON: keep the text
		}
		return { error: body.slice(0, 500) };
	}
	return {};
}

/**
 * The NodeApiError for a non-2xx answer. Its message (what n8n shows first, and the `error` of a
 * Continue On Fail item) carries the service's `error` code and, when it sent one, its `message`
 * sentence and `path`; the description adds a hint for the status.
 */
function apiError(ctx: ApiContext, statusCode: number, body: unknown, itemIndex?: number): NodeApiError {
	const payload = errorBody(body);
	const serviceText = typeof payload.error === 'string' ? payload.error : `HTTP ${statusCode}`;
	const explanation = typeof payload.message === 'string' && payload.message.trim() !== '' && payload.message !== serviceText ? `: ${payload.message}` : '';
	const where = payload.path ? ` (at ${String(payload.path)})` : '';
	return new NodeApiError(ctx.getNode(), payload, {
		message: `Clearinghouse API error ${statusCode}: ${serviceText}${explanation}${where}`,
		description: STATUS_HINTS[statusCode] ?? 'The service answered with an unexpected status.',
		httpCode: String(statusCode),
		itemIndex,
	});
}

function requestFailure(ctx: ApiContext, error: unknown, itemIndex?: number): NodeApiError {
	// Built from the code and message only: the raw error can carry the request headers (the key).
	const e = error as { code?: string; cause?: { code?: string }; message?: string };
	if (!isConnectionError(error)) {
		return new NodeApiError(
			ctx.getNode(),
			{ error: 'REQUEST_FAILED' },
			{ message: `The request to the Clearinghouse API failed: ${e?.message ?? 'unknown error'}`, itemIndex },
		);
	}
	const code = e?.code ?? e?.cause?.code ?? 'connection error';
	// The code stays out of the message: NodeApiError would swap a message naming one for its own text.
	return new NodeApiError(
		ctx.getNode(),
		{ error: 'CONNECTION_FAILED' },
		{
			message: 'Could not reach the Clearinghouse API',
			description: `${code}: check the Base URL / Rewards URL of the credential and that the service (or the local sandbox) is running.`,
			itemIndex,
		},
	);
}

/**
 * The one way our nodes talk to the service: authentication through the credential,
 * errors mapped to NodeApiError, and retries only where repeating cannot act twice.
 */
export async function apiRequest(this: ApiContext, request: ApiRequest, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<IDataObject> {
	return (await apiRequestWithStatus.call(this, request, policy)).body as IDataObject;
}

export async function apiRequestWithStatus(
	this: ApiContext,
	request: ApiRequest,
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<{ statusCode: number; body: unknown }> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const target = apiUrl(credentials, request.api ?? 'main', request.path);
	if ('problem' in target) {
		throw new NodeOperationError(this.getNode(), target.problem, { itemIndex: request.itemIndex });
	}
	// Dry run (shared/dryRun.ts): the one place that keeps every write from leaving the node.
	if (request.method !== 'GET' && isDryRun(this)) {
		const { method, path, qs, headers, body } = request;
		throw new DryRunStop({ method, url: target.url, path, qs, headers, body });
	}
	const options: IHttpRequestOptions = {
		method: request.method,
		url: target.url,
		qs: request.qs,
		headers: { accept: 'application/json', ...request.headers },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Repeated query keys as `status=A&status=B`, the form list filters take.
		arrayFormat: 'repeat',
	};
	if (request.body !== undefined) options.body = request.body;
	if (request.timeoutMs !== undefined) options.timeout = request.timeoutMs;
	const safeToRepeat = request.method === 'GET' || request.idempotent === true;

	for (let attempt = 1; ; attempt++) {
		let response: RawResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, options)) as RawResponse;
		} catch (error) {
			if (safeToRepeat && attempt < policy.maxAttempts && isConnectionError(error)) {
				await sleep(backoff(policy, attempt));
				continue;
			}
			throw requestFailure(this, error, request.itemIndex);
		}
		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) return { statusCode, body: response.body };
		if (safeToRepeat && attempt < policy.maxAttempts && RETRYABLE_STATUSES.has(statusCode)) {
			const asked = parseRetryAfter(response.headers?.['retry-after']);
			if (asked === undefined || asked <= policy.maxRetryAfterMs) {
				await sleep(asked ?? backoff(policy, attempt));
				continue;
			}
		}
		throw apiError(this, statusCode, response.body, request.itemIndex);
	}
}

function backoff(policy: RetryPolicy, attempt: number): number {
	return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}

export interface ListRequest extends Omit<ApiRequest, 'method' | 'body'> {
	/** Key of the array in the response, e.g. `paymentOrders` or `deliveries`. */
	listKey: string;
	/** Stop after this many records; undefined means every record. */
	limit?: number;
	/** Records asked for per page (the API allows 1-1000). */
	pageSize?: number;
}

/** Follows limit/offset pages until `hasMore` (or `total`) says there is no more, or `limit` is reached. */
export async function apiRequestAllItems(this: ApiContext, request: ListRequest, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<IDataObject[]> {
	const { listKey, limit, pageSize = 1000, ...rest } = request;
	const records: IDataObject[] = [];
	let offset = Number(request.qs?.offset ?? 0);
	for (;;) {
		const wanted = limit === undefined ? pageSize : Math.min(pageSize, limit - records.length);
		if (wanted <= 0) break;
		const page = await apiRequest.call(this, { ...rest, method: 'GET', qs: { ...rest.qs, limit: wanted, offset } }, policy);
		const batch = (page[listKey] as IDataObject[] | undefined) ?? [];
		records.push(...batch);
		offset += batch.length;
		const hasMore = typeof page.hasMore === 'boolean' ? page.hasMore : typeof page.total === 'number' ? offset < page.total : batch.length === wanted;
		if (!hasMore || batch.length === 0) break;
	}
	return limit === undefined ? records : records.slice(0, limit);
}
