import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { DryRunStop, isDryRun } from './dryRun';
import { isLoopbackUrl } from './idempotency';
import { hasDotSegment } from './pathId';
import type { SupportedAsset } from './serviceErrors';
import { describeServiceError, namesNoField, needsSupportedAssets, sentKey, supportedAssetsOf } from './serviceErrors';

/** Every n8n context our nodes call the API from. */
export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions | ITriggerFunctions;

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
	/** True when repeating it cannot act twice (an idempotency key, or safe by nature): only reads and such writes are retried. */
	idempotent?: boolean;
	/** What a write makes, in the words of its lost-answer error (the keyed writes: actions/keyedSend.ts). */
	record?: WrittenRecord;
	/** A read (Create: GET /account/limits) whose answer may explain a 400 that names no field (serviceErrors). */
	limitsOnRefusal?: LimitsRead;
	itemIndex?: number;
	/** Per-attempt timeout; n8n's default otherwise. */
	timeoutMs?: number;
}

/** A write's record in an error's words: "the service may have made {what}", and how to find out ({lookUp}). */
export interface WrittenRecord {
	what: string;
	lookUp: string;
}

/** A read of the account's limits (path and query below `/api/v1`). */
export interface LimitsRead {
	path: string;
	qs?: IDataObject;
}

/** A write that names no record of its own. */
const SOME_CHANGE: WrittenRecord = { what: 'this change', lookUp: 'the matching Get or Get Many operation shows whether it was made' };

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

/** The credential's Environment (unset means production). Any other value is refused: a switch that decides which safeguards hold is not guessed. */
export type Environment = 'production' | 'sandbox';

const ENVIRONMENT_LABELS: Record<Environment, string> = {
	production: 'Production (real money)',
	sandbox: 'Local Sandbox (no real money)',
};

/** The header every answer of the package's sandbox carries (sandbox/router.ts); the service never sends it. */
export const SANDBOX_HEADER = 'x-clearinghouse-sandbox';

function credentialEnvironment(credentials: IDataObject): { environment: Environment } | { problem: string } {
	const raw = credentials.environment;
	if (raw === undefined || raw === null || raw === '' || raw === 'production') return { environment: 'production' };
	if (raw === 'sandbox') return { environment: 'sandbox' };
	return {
		problem: `The credential's Environment must be "${ENVIRONMENT_LABELS.production}" or "${ENVIRONMENT_LABELS.sandbox}"; got ${JSON.stringify(raw)}. Nothing was sent`,
	};
}

/** Origin of one of the two APIs, without trailing slashes or `/api/v1`, or why the field cannot be used. */
function apiOrigin(credentials: IDataObject, api: Api): { origin: string } | { problem: string } {
	const environment = credentialEnvironment(credentials);
	if ('problem' in environment) return environment;
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
		return { problem: `The credential's ${label} is not a valid URL; expected https://host[:port]` };
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { problem: `The credential's ${label} must start with https://` };
	}
	// The API key goes in clear text only to this machine, or to a credential that says Local Sandbox
	// (n8n in Docker reaches the host by name), whose answers must then prove it (verifySandboxAnswer).
	if (url.protocol === 'http:' && environment.environment === 'production' && !isLoopbackUrl(url.href)) {
		return {
			problem: `The credential's ${label} must start with https:// (http:// is allowed only for this machine: localhost, 127.x.x.x or [::1], or with Environment set to ${ENVIRONMENT_LABELS.sandbox}); got host "${url.hostname}"`,
		};
	}
	// A query or fragment would be silently dropped or glued to every path: refuse it.
	if (url.search !== '' || url.hash !== '' || /[?#]/.test(raw)) {
		return { problem: `The credential's ${label} must be the API origin only, without a query (?) or fragment (#) part` };
	}
	if (url.username !== '' || url.password !== '') {
		return { problem: `The credential's ${label} must not carry a user name or password; the API key goes in the API Key field` };
	}
	return { origin: raw.replace(/\/+$/, '').replace(/\/api\/v1$/, '') };
}

/** Full URL of a path below `/api/v1`, or the credential problem that prevents building it. */
function apiUrl(credentials: IDataObject, api: Api, path: string): { url: string; origin: string } | { problem: string } {
	const resolved = apiOrigin(credentials, api);
	if ('problem' in resolved) return resolved;
	// The last guard for IDs put into paths (the operations check them with the field's label first).
	if (hasDotSegment(path)) return { problem: `Nothing was sent: the request path ${path} has a "." or ".." step, which would reach another endpoint` };
	return { url: `${resolved.origin}/api/v1${path.startsWith('/') ? path : `/${path}`}`, origin: resolved.origin };
}

/** Per n8n context, the origins whose answers carried the sandbox's header: no write goes to an origin before it is here. */
const sandboxOrigins = new WeakMap<ApiContext, Set<string>>();

/** Names the proof read in the server's log: it reads nothing the run uses. */
export const SANDBOX_PROOF_HEADER = 'x-clearinghouse-sandbox-proof';

/** A read that answers on each API whatever the key may do, to see the header before a write. */
const SANDBOX_PROBE: Record<Api, string> = { main: '/account/limits', rewards: '/rewards/rule-blocks' };

function sandboxNotProven(ctx: ApiContext, origin: string, request: ApiRequest): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The credential's Environment is "${ENVIRONMENT_LABELS.sandbox}", but ${origin} did not answer as the sandbox: ${request.method === 'GET' && !request.headers?.[SANDBOX_PROOF_HEADER] ? 'its answer was not used' : 'nothing was written'}`,
		{
			itemIndex: request.itemIndex,
			description: `Its answer to ${request.method} ${request.path} has no ${SANDBOX_HEADER} header, which every answer of this package's sandbox carries. If this URL is the real service, set the credential's Environment to "${ENVIRONMENT_LABELS.production}" (and use https://); if it is the sandbox, check that the Base URL / Rewards URL reach it and not something in front of it.`,
		},
	);
}

/**
 * True when the credential says Local Sandbox (throws for an unknown value): the one switch a guard may
 * relax on, never a loopback URL; the transport writes nothing before the server proved it is the sandbox.
 */
export async function isSandboxCredential(ctx: ApiContext, itemIndex?: number): Promise<boolean> {
	const environment = credentialEnvironment(await apiCredentials(ctx));
	if ('problem' in environment) throw new NodeOperationError(ctx.getNode(), environment.problem, { itemIndex });
	return environment.environment === 'sandbox';
}

async function proveSandbox(ctx: ApiContext, api: Api, origin: string, itemIndex?: number): Promise<void> {
	if (sandboxOrigins.get(ctx)?.has(origin)) return;
	const headers = { [SANDBOX_PROOF_HEADER]: '1' };
	// An error answer that carried the header proves the sandbox as well as a 200 (the write will meet
	// the same refusal); anything else (no header, no connection) stops the write here.
	const failure = await apiRequestWithStatus(
		ctx,
		{ api, method: 'GET', path: SANDBOX_PROBE[api], headers, itemIndex },
		{ ...DEFAULT_RETRY_POLICY, maxAttempts: 2 },
	).then(
		() => undefined,
		(error: NodeApiError | NodeOperationError) => error,
	);
	if (failure && !sandboxOrigins.get(ctx)?.has(origin)) throw failure;
}

/** Records the header of one answer of a Local Sandbox credential's origin, or refuses an answer without it. */
function verifySandboxAnswer(ctx: ApiContext, origin: string, response: RawResponse, request: ApiRequest): void {
	const marked = response.headers?.[SANDBOX_HEADER];
	if ((Array.isArray(marked) ? marked[0] : marked) !== '1') throw sandboxNotProven(ctx, origin, request);
	let origins = sandboxOrigins.get(ctx);
	if (!origins) sandboxOrigins.set(ctx, (origins = new Set()));
	origins.add(origin);
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
	const code = errorCode(error);
	if (code && CONNECTION_ERROR_CODES.has(code)) return true;
	return /socket hang up|ECONNRESET|ECONNREFUSED|timeout/i.test((error as { message?: string })?.message ?? '');
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

/** The NodeApiError for a non-2xx answer, in the panel's words (serviceErrors.ts); n8n shows `context.parameter` as "In or underneath Parameter". */
async function apiError(ctx: ApiContext, statusCode: number, body: unknown, request: ApiRequest): Promise<NodeApiError> {
	const payload = errorBody(body);
	// Reads that tell which field a refusal is about from what was sent (never from the answer's words).
	const read = async (path: string, qs?: IDataObject): Promise<unknown> => {
		try {
			return (await apiRequestWithStatus(ctx, { method: 'GET', path, qs }, { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 })).body;
		} catch {
			return undefined; // they only help: the error is reported without them
		}
	};
	let assets: SupportedAsset[] | undefined;
	if (statusCode < 500 && needsSupportedAssets(payload, statusCode, request) && request.path !== '/supported-assets') {
		assets = supportedAssetsOf(await read('/supported-assets'));
	}
	let limits: IDataObject | undefined;
	if (statusCode === 400 && request.limitsOnRefusal && namesNoField(payload)) {
		const answer = await read(request.limitsOnRefusal.path, request.limitsOnRefusal.qs);
		if (answer && typeof answer === 'object' && !Array.isArray(answer)) limits = answer as IDataObject;
	}
	const { message, description, apiField } = describeServiceError(statusCode, payload, request, assets, limits);
	const error = new NodeApiError(ctx.getNode(), payload, { message, description, httpCode: String(statusCode), itemIndex: request.itemIndex });
	if (apiField && apiField in (ctx.getNode().parameters ?? {})) error.context.parameter = apiField;
	return error;
}

/** Connection errors raised before a byte of the request left this machine: nothing can have acted. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
	const e = error as { code?: string; cause?: { code?: string } };
	return e?.code ?? e?.cause?.code;
}

/** True when it failed while connecting, so the service never got the request; a reset or a read timeout may come after it acted. */
function failedBeforeSending(error: unknown): boolean {
	const e = error as { syscall?: string; cause?: { syscall?: string }; message?: string };
	const code = errorCode(error);
	if (code && NOT_SENT_CODES.has(code)) return true;
	const syscall = e?.syscall ?? e?.cause?.syscall;
	return code === 'ETIMEDOUT' && (syscall === 'connect' || /^connect ETIMEDOUT/.test(e?.message ?? ''));
}

interface FailureContext {
	request: ApiRequest;
	attempts: number;
	/** True when an earlier try of this request may have reached the service (a lost answer, a 5xx). */
	reachedBefore: boolean;
}

function requestFailure(ctx: ApiContext, error: unknown, { request, attempts, reachedBefore }: FailureContext): NodeApiError {
	// Built from the code and message only: the raw error can carry the request headers (the key).
	const e = error as { message?: string };
	const failure = (code: string, message: string, description?: string) =>
		new NodeApiError(ctx.getNode(), { error: code }, { message, description, itemIndex: request.itemIndex });
	if (!isConnectionError(error)) return failure('REQUEST_FAILED', `The request to the Clearinghouse API failed: ${e?.message ?? 'unknown error'}`);
	const code = errorCode(error) ?? (/timeout/i.test(e?.message ?? '') ? 'timeout' : 'connection lost');
	const tries = attempts === 1 ? '1 try' : `${attempts} tries`;
	const isWrite = request.method !== 'GET';
	const notSent = failedBeforeSending(error) && !reachedBefore;
	// The codes stay out of the messages: NodeApiError swaps a message naming one for its own text.
	if (notSent) {
		return failure(
			'CONNECTION_FAILED',
			isWrite ? 'Could not connect to the Clearinghouse API: nothing was sent' : 'Could not connect to the Clearinghouse API',
			`${code} (${tries}): the connection could not be opened, so the service did not receive the request${isWrite ? ' and nothing was written' : ''}. Check the Base URL / Rewards URL of the credential and that the service (or the local sandbox) is running, then run it again.`,
		);
	}
	if (!isWrite) {
		return failure(
			'ANSWER_LOST',
			'The Clearinghouse API did not answer: the connection was lost',
			`${code} (${tries}): the request was sent but its answer never arrived. A read changes nothing; run it again later.`,
		);
	}
	const key = sentKey(request);
	const { what, lookUp } = request.record ?? SOME_CHANGE;
	if (key && request.idempotent) {
		return failure(
			'ANSWER_LOST',
			`The answer was lost: the service may have made ${what}. Only Retry of this execution (or a run with the same Business Key) is safe`,
			`${code} (${tries}, each with the idempotency key ${key}): the request reached the network but no answer came back, so the service may have acted on it. ` +
				'Safe next steps: Retry this execution from the executions list, or run again with the same Business Key: the same key makes the service return what it made instead of making it again. ' +
				`Running the workflow anew with a Derived key or a new Business Key may pay twice. ${lookUp}.`,
		);
	}
	return failure(
		'ANSWER_LOST',
		`The answer was lost: the service may have made ${what}. Check before sending it again`,
		`${code} (${tries}): the request reached the network but no answer came back, so the service may have acted on it; it was not repeated because repeating it could act twice. ${lookUp}.`,
	);
}

/** The one way the nodes talk to the service: errors mapped to NodeApiError, retries only where repeating cannot act twice. */
export async function apiRequest(ctx: ApiContext, request: ApiRequest, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<IDataObject> {
	return (await apiRequestWithStatus(ctx, request, policy)).body as IDataObject;
}

/**
 * The credential, read once per n8n context (a run, a webhook call, a load-options call: n8n makes a new
 * one each time, so an edited credential is read anew). Held weakly; a failed read is not kept.
 */
const credentialsByContext = new WeakMap<ApiContext, Promise<IDataObject>>();

export async function apiCredentials(ctx: ApiContext): Promise<IDataObject> {
	let read = credentialsByContext.get(ctx);
	if (!read) {
		read = ctx.getCredentials(CREDENTIAL_TYPE) as Promise<IDataObject>;
		credentialsByContext.set(ctx, read);
		read.catch(() => credentialsByContext.delete(ctx));
	}
	return await read;
}

/** Hands a context a credential read moments ago by the same node (the trigger's opened secret, endpointSecret.ts), unless it read its own. */
export function reuseCredentials(ctx: ApiContext, credentials: IDataObject): void {
	if (!credentialsByContext.has(ctx)) credentialsByContext.set(ctx, Promise.resolve(credentials));
}

/**
 * One try with n8n's plain request helper and the key set as the credential's `authenticate` sets it
 * (`httpRequestWithAuthentication` would decrypt the credential on every request). The raw error holds
 * the headers, so it never leaves the transport.
 */
async function send(ctx: ApiContext, options: IHttpRequestOptions, apiKey: string): Promise<RawResponse> {
	const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
	const withKey: IHttpRequestOptions = { ...options, headers: { ...options.headers, 'x-api-key': apiKey } };
	// Stopping the execution aborts the request in flight, as n8n's authenticated helper does.
	if (signal) withKey.abortSignal = signal;
	return (await ctx.helpers.httpRequest(withKey)) as RawResponse;
}

export async function apiRequestWithStatus(
	ctx: ApiContext,
	request: ApiRequest,
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<{ statusCode: number; body: unknown; date?: string }> {
	const credentials = await apiCredentials(ctx);
	const target = apiUrl(credentials, request.api ?? 'main', request.path);
	if ('problem' in target) {
		throw new NodeOperationError(ctx.getNode(), target.problem, { itemIndex: request.itemIndex });
	}
	// Dry run (shared/dryRun.ts): the one place that keeps every write from leaving the node.
	if (request.method !== 'GET' && isDryRun(ctx)) {
		const { method, path, qs, headers, body } = request;
		throw new DryRunStop({ method, url: target.url, path, qs, headers, body });
	}
	// Local Sandbox: no write before an answer of this origin proved it is the sandbox.
	const sandbox = credentials.environment === 'sandbox';
	if (sandbox && request.method !== 'GET') await proveSandbox(ctx, request.api ?? 'main', target.origin, request.itemIndex);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: target.url,
		qs: request.qs,
		headers: { accept: 'application/json', ...request.headers },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// The key goes only to the credential's origin: a redirect (to another host, or to http://)
		// would carry the x-api-key header, and a 307/308 the write's body, wherever Location says.
		disableFollowRedirect: true,
		// Repeated query keys as `status=A&status=B`, the form list filters take.
		arrayFormat: 'repeat',
	};
	if (request.body !== undefined) options.body = request.body;
	if (request.timeoutMs !== undefined) options.timeout = request.timeoutMs;
	const safeToRepeat = request.method === 'GET' || request.idempotent === true;
	const apiKey = credentials.apiKey ? String(credentials.apiKey) : '';

	let reachedBefore = false;
	for (let attempt = 1; ; attempt++) {
		let response: RawResponse;
		try {
			response = await send(ctx, options, apiKey);
		} catch (error) {
			if (safeToRepeat && attempt < policy.maxAttempts && isConnectionError(error)) {
				reachedBefore ||= !failedBeforeSending(error);
				await sleep(backoff(policy, attempt));
				continue;
			}
			throw requestFailure(ctx, error, { request, attempts: attempt, reachedBefore });
		}
		reachedBefore = true;
		if (sandbox) verifySandboxAnswer(ctx, target.origin, response, request);
		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) {
			const date = response.headers?.date;
			return { statusCode, body: response.body, date: typeof date === 'string' ? date : undefined };
		}
		if (statusCode >= 300 && statusCode < 400) throw redirectRefused(ctx, response, request, target.url);
		if (safeToRepeat && attempt < policy.maxAttempts && RETRYABLE_STATUSES.has(statusCode)) {
			const asked = parseRetryAfter(response.headers?.['retry-after']);
			if (asked === undefined || asked <= policy.maxRetryAfterMs) {
				await sleep(asked ?? backoff(policy, attempt));
				continue;
			}
		}
		throw await apiError(ctx, statusCode, response.body, request);
	}
}

/** Where a refused redirect pointed: its Location as an absolute URL without user name or password, cut to 300 characters. */
function redirectTarget(location: unknown, requestUrl: string): string {
	const raw = Array.isArray(location) ? location[0] : location;
	if (typeof raw !== 'string' || raw.trim() === '') return '(no Location header)';
	try {
		const url = new URL(raw.trim(), requestUrl);
		url.username = '';
		url.password = '';
		return url.href.slice(0, 300);
	} catch {
		return JSON.stringify(raw.slice(0, 300));
	}
}

function redirectRefused(ctx: ApiContext, response: RawResponse, request: ApiRequest, requestUrl: string): NodeApiError {
	const { statusCode } = response;
	const location = redirectTarget(response.headers?.location, requestUrl);
	const isWrite = request.method !== 'GET';
	return new NodeApiError(
		ctx.getNode(),
		{ error: 'REDIRECT_NOT_FOLLOWED', status: statusCode, location },
		{
			message: `The Clearinghouse API answered ${statusCode}, a redirect to ${location}: not followed`,
			description:
				`${request.method} ${request.path} was answered with a redirect. The node follows no redirect: it sends the API key${isWrite ? ' and the request body' : ''} only to the credential's ${request.api === 'rewards' ? 'Rewards URL' : 'Base URL'}, so nothing went to ${location}. ` +
				"If the API has moved, set the credential's URL to its new origin (https://, without /api/v1); if something in front of the API redirects (a proxy, a login page), point the credential past it.",
			httpCode: String(statusCode),
			itemIndex: request.itemIndex,
		},
	);
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

/**
 * The one pager: limit/offset pages until `hasMore` (or `total`) says no more or `limit` records came,
 * with the service's Date header; a caller stops early by leaving its loop.
 */
export async function* listPages(
	ctx: ApiContext,
	request: ListRequest,
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): AsyncGenerator<{ records: IDataObject[]; date?: string; more: boolean }> {
	const { listKey, limit, pageSize = 1000, ...rest } = request;
	let offset = Number(request.qs?.offset ?? 0);
	for (let count = 0; ; ) {
		const wanted = limit === undefined ? pageSize : Math.min(pageSize, limit - count);
		if (wanted <= 0) return;
		const answer = await apiRequestWithStatus(ctx, { ...rest, method: 'GET', qs: { ...rest.qs, limit: wanted, offset } }, policy);
		const page = (answer.body ?? {}) as IDataObject;
		const records = Array.isArray(page[listKey]) ? (page[listKey] as IDataObject[]) : [];
		count += records.length;
		offset += records.length;
		const hasMore = typeof page.hasMore === 'boolean' ? page.hasMore : typeof page.total === 'number' ? offset < page.total : records.length === wanted;
		const more = hasMore && records.length > 0;
		yield { records, date: answer.date, more };
		if (!more) return;
	}
}

/** Every record of a list (or the first `limit`), through the pager. */
export async function apiRequestAllItems(ctx: ApiContext, request: ListRequest, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	for await (const page of listPages(ctx, request, policy)) records.push(...page.records);
	return request.limit === undefined ? records : records.slice(0, request.limit);
}
