/**
 * The transport over real HTTP: a scripted server started here answers each request as the test
 * says, and the transport runs inside n8n-core's real ExecuteContext with the real credential. The
 * waits between retries are recorded, not waited (test/support/sleep.ts): each test checks what it asked.
 */
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../support/sleep')>('../support/sleep').n8nWorkflowWithRecordedSleep());

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, IExecuteFunctions, INodeType } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, apiRequestAllItems, type ApiRequest, listPages, type ListRequest, parseRetryAfter, type RetryPolicy } from '../../nodes/shared/transport';
import { runNode, type TestCredentials } from '../../harness/n8nContexts';
import { WRITTEN_RECORDS } from '../../nodes/Clearinghouse/actions/keyedSend';
import { CREDENTIAL_TEST_SAYS } from '../../nodes/shared/serviceErrors';
import { probeNode } from '../support/probeNode';
import { sleeps } from '../support/sleep';

const API_KEY = 'sk_test_transport_secret_value';
const fast: RetryPolicy = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 2_000 };

interface Seen {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}
type Handler = (req: Seen, res: ServerResponse, n: number) => void;

let server: Server;
let origin: string;
let seen: Seen[] = [];
let handler: Handler = (_req, res) => res.end('{}');

beforeAll(async () => {
	server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const entry = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
			seen.push(entry);
			res.setHeader('content-type', 'application/json');
			handler(entry, res, seen.length);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
	seen = [];
});

function reply(status: number, body: unknown, headers: Record<string, string> = {}) {
	return (_req: Seen, res: ServerResponse) => {
		res.statusCode = status;
		for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
		res.end(JSON.stringify(body));
	};
}

/** A node whose execute() makes exactly the request (or list) the test asks for. */
function nodeFor(call: (ctx: IExecuteFunctions) => Promise<unknown>): INodeType {
	return probeNode('Transport probe', async (ctx) => ({ result: (await call(ctx)) as IDataObject['result'] }));
}

function credentials(over: Partial<TestCredentials> = {}): TestCredentials {
	return { apiKey: API_KEY, baseUrl: origin, rewardsUrl: `${origin}/rewards-host`, ...over };
}

async function send(request: ApiRequest, over: Partial<TestCredentials> = {}) {
	const [[item]] = await runNode(
		nodeFor((ctx) => apiRequest(ctx, request, fast)),
		{ parameters: {}, credentials: credentials(over) },
	);
	return item.json.result;
}

async function sendError(request: ApiRequest, over: Partial<TestCredentials> = {}) {
	try {
		await send(request, over);
	} catch (error) {
		return error as NodeApiError;
	}
	throw new Error('expected the request to fail');
}

describe('URLs and authentication', () => {
	test('main API paths go below /api/v1 of the base URL, trailing slashes tolerated, with x-api-key', async () => {
		handler = reply(200, { ok: true });
		expect(await send({ method: 'GET', path: '/account/limits', qs: { subaccountId: 'a b' } }, { baseUrl: `${origin}//` })).toEqual({ ok: true });
		expect(seen).toHaveLength(1);
		expect(seen[0].url).toBe('/api/v1/account/limits?subaccountId=a%20b');
		expect(seen[0].headers['x-api-key']).toBe(API_KEY);
	});

	test('a base URL given with /api/v1 is not doubled', async () => {
		handler = reply(200, {});
		await send({ method: 'GET', path: '/supported-assets' }, { baseUrl: `${origin}/api/v1/` });
		expect(seen[0].url).toBe('/api/v1/supported-assets');
	});

	test('the rewards API uses its own base URL and the same header', async () => {
		handler = reply(200, { rules: [] });
		await send({ api: 'rewards', method: 'GET', path: '/rewards/rules', qs: { status: 'active' } });
		expect(seen[0].url).toBe('/rewards-host/api/v1/rewards/rules?status=active');
		expect(seen[0].headers['x-api-key']).toBe(API_KEY);
	});

	test('JSON bodies and extra headers are sent as given; arrays in the query repeat the key', async () => {
		handler = reply(201, { id: 'x' });
		await send({
			method: 'POST',
			path: '/payment',
			qs: { status: ['FUNDED', 'LOCKED'] },
			body: { amountUsd: 12.5, memo: 'hi' },
			headers: { 'Idempotency-Key': 'k-1' },
		});
		expect(seen[0].url).toBe('/api/v1/payment?status=FUNDED&status=LOCKED');
		expect(JSON.parse(seen[0].body)).toEqual({ amountUsd: 12.5, memo: 'hi' });
		expect(seen[0].headers['idempotency-key']).toBe('k-1');
		expect(seen[0].headers['content-type']).toMatch(/application\/json/);
	});

	test.each([
		['', 'Base URL is empty'],
		['not a url', 'Base URL is not a valid URL'],
		['ftp://example.com', 'Base URL must start with https://'],
		// http:// only for this machine; a query or fragment is refused, not dropped:
		['http://api.example.com', 'Base URL must start with https:// (http:// is allowed only for this machine'],
		['http://10.0.0.5:4010', 'got host "10.0.0.5"'],
		['http://127.0.0.1.nip.io:4010', 'Base URL must start with https://'],
		['https://api.example.com/?region=eu', 'Base URL must be the API origin only, without a query (?) or fragment (#) part'],
		['https://api.example.com#prod', 'without a query (?) or fragment (#) part'],
		['https://api.example.com/?', 'without a query (?) or fragment (#) part'],
		['https://user:pw@api.example.com', 'Base URL must not carry a user name or password'],
	])('a bad credential URL %p fails before any request', async (baseUrl, message) => {
		const error = await sendError({ method: 'GET', path: '/account/limits' }, { baseUrl });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(message);
		expect(seen).toHaveLength(0);
	});

	test.each(['http://localhost:1', 'http://127.0.0.1:1', 'http://127.8.9.10:1', 'http://[::1]:1', 'HTTP://LOCALHOST:1'])(
		'http:// is accepted for the loopback host of %s (the request is sent, and refused by nobody listening)',
		async (baseUrl) => {
			const error = await sendError({ method: 'GET', path: '/account/limits' }, { baseUrl });
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toBe('Could not connect to the Clearinghouse API');
		},
	);

	test('the Rewards URL follows the same rules, and its error names it', async () => {
		const error = await sendError({ api: 'rewards', method: 'GET', path: '/rewards/rules' }, { rewardsUrl: 'http://rewards.example.com' });
		expect(error.message).toContain("The credential's Rewards URL must start with https://");
		const query = await sendError({ api: 'rewards', method: 'GET', path: '/rewards/rules' }, { rewardsUrl: `${origin}?x=1` });
		expect(query.message).toContain('Rewards URL must be the API origin only');
		expect(seen).toHaveLength(0);
	});

	test.each(['/payment-orders/../cancel', '/payment-orders/./cancel', '/payment-orders/%2e%2e/cancel', '/payment-orders/.%2E', '/..'])(
		'a path with a dot step (%s) is refused before sending, whatever built it',
		async (path) => {
			const error = await sendError({ method: 'POST', path, body: {} });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/^Nothing was sent: the request path .* has a "\." or "\.\." step/);
			expect(seen).toHaveLength(0);
		},
	);

	test('the rewards URL is checked only when the rewards API is used', async () => {
		const error = await sendError({ api: 'rewards', method: 'GET', path: '/rewards/rules' }, { rewardsUrl: '' });
		expect(error.message).toContain('Rewards URL is empty');
		expect(seen).toHaveLength(0);
	});
});

describe("the credential's Environment", () => {
	const sandbox = (over: Partial<TestCredentials> = {}) => ({ environment: 'sandbox' as const, ...over });
	const marked = (status: number, body: unknown) => reply(status, body, { 'x-clearinghouse-sandbox': '1' });

	test('Local Sandbox accepts http:// on any host (n8n in Docker reaching the host): the request is attempted', async () => {
		const error = await sendError({ method: 'GET', path: '/account/limits' }, sandbox({ baseUrl: 'http://sandbox-host.invalid:4010' }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('Could not connect to the Clearinghouse API');
	});

	test('Production (the default, and what a credential without the field is) keeps http:// on loopback only', async () => {
		for (const environment of ['production', undefined] as const) {
			const error = await sendError({ method: 'GET', path: '/account/limits' }, { baseUrl: 'http://sandbox-host.invalid:4010', environment });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toContain('http:// is allowed only for this machine');
		}
		expect(seen).toHaveLength(0);
	});

	test.each(['Sandbox', 'local', 'true'])('an Environment of %p is refused before any request, naming the field', async (environment) => {
		const error = await sendError({ method: 'GET', path: '/account/limits' }, { environment: environment as never });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(`The credential's Environment must be "Production (real money)" or "Local Sandbox (no real money)"; got "${environment}"`);
		expect(seen).toHaveLength(0);
	});

	test('Local Sandbox: no write before an answer of that origin carried the sandbox header (one read proves it first)', async () => {
		handler = marked(201, { ok: true });
		await send({ method: 'POST', path: '/payment', body: { a: 1 } }, sandbox());
		expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/account/limits', 'POST /api/v1/payment']);
	});

	test('Local Sandbox: a server that does not mark its answers gets no write, and the error names the Environment', async () => {
		handler = reply(200, { ok: true });
		const error = await sendError({ method: 'POST', path: '/payment', body: { a: 1 } }, sandbox());
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			`The credential's Environment is "Local Sandbox (no real money)", but ${origin} did not answer as the sandbox: nothing was written`,
		);
		expect(error.description).toMatch(/x-clearinghouse-sandbox.*set the credential's Environment to "Production \(real money\)"/);
		expect(seen.map((r) => r.method)).toEqual(['GET']);
	});

	test('Local Sandbox: a read answered without the header is an error too; Production reads it as ever', async () => {
		handler = reply(200, { ok: true });
		await expect(send({ method: 'GET', path: '/supported-assets' }, sandbox())).rejects.toThrow(/did not answer as the sandbox: its answer was not used/);
		expect(await send({ method: 'GET', path: '/supported-assets' })).toEqual({ ok: true });
	});

	test('Local Sandbox: an error answer that carries the header proves it; a read of the run proves it for the write that follows', async () => {
		handler = (req, res) => marked(req.method === 'GET' ? 401 : 201, { ok: req.method !== 'GET' })(req, res);
		expect(await send({ method: 'POST', path: '/payment', body: {} }, sandbox())).toEqual({ ok: true });
		expect(seen.map((r) => r.method)).toEqual(['GET', 'POST']);
		seen = [];
		handler = marked(200, { ok: true });
		const [[item]] = await runNode(
			nodeFor(async (ctx) => {
				await apiRequest(ctx, { method: 'GET', path: '/supported-assets' }, fast);
				return await apiRequest(ctx, { method: 'POST', path: '/payment', body: {} }, fast);
			}),
			{ parameters: {}, credentials: credentials(sandbox()) },
		);
		expect(item.json.result).toEqual({ ok: true });
		expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/supported-assets', 'POST /api/v1/payment']);
	});

	test('Local Sandbox: the rewards host proves itself on its own origin', async () => {
		handler = marked(200, { ok: true });
		await send({ api: 'rewards', method: 'POST', path: '/rewards/rules', body: {} }, sandbox());
		expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /rewards-host/api/v1/rewards/rule-blocks', 'POST /rewards-host/api/v1/rewards/rules']);
	});
});

describe('error mapping', () => {
	test.each([
		[
			400,
			{ error: 'amountUsd must be a multiple of 0.0001' },
			'The Clearinghouse service refused the request: Amount (USD) must be a multiple of 0.0001',
			/invalid/,
		],
		[
			400,
			{ error: 'recipient_not_active', message: 'Recipient 0x11 on ethereum is not a registered wallet of the account', path: 'toAddress' },
			'Recipient Address: recipient 0x11 on ethereum is not a registered wallet of the account',
			/API code recipient_not_active, HTTP 400, field toAddress\)\. The service rejected the request as invalid/,
		],
		[403, { error: 'forbidden', message: 'Subaccount is paused' }, 'Subaccount ID: subaccount is paused', /ACTIVE with KYB APPROVED/],
		[409, { error: 'conflict', message: 'conflict' }, 'The Clearinghouse service refused the request: conflict', /not in a state that allows it now/],
		[
			401,
			{ error: 'missing or malformed x-api-key' },
			// What the credential's Test says (test/unit/credentialWords.test.ts), the service's words in the description.
			`${CREDENTIAL_TEST_SAYS[401]} Then open the Clearinghouse credential and press Test.`,
			/The service said: "missing or malformed x-api-key"/,
		],
		[404, { error: 'payment_order_not_found', message: 'Payment order po_1 not found' }, 'Payment Order po_1 not found', /not visible/],
		[
			409,
			{ error: 'idempotency_key_reused', message: 'idempotencyKey was already used with a different body' },
			'Idempotency Key was already used with a different body',
			/API code idempotency_key_reused, HTTP 409/,
		],
		[
			412,
			{ error: 'subaccount wallet not provisioned' },
			'The Clearinghouse service refused the request: subaccount wallet not provisioned',
			/not provisioned/,
		],
		[
			422,
			{ error: 'tiers_gap', message: 'tiers must be contiguous', path: 'definition.payout.tiers[1].from' },
			'Definition (at payout.tiers[1].from): tiers must be contiguous',
			/API code tiers_gap, HTTP 422, field definition\.payout\.tiers\[1\]\.from\)\. .*breaks a rule/,
		],
		[429, { error: 'too many requests' }, 'The Clearinghouse service refused the request: too many requests', /Retry after/],
		[
			503,
			{ error: 'deposit_address_unavailable', message: 'A deposit address is momentarily unavailable; retry' },
			'The Clearinghouse service failed: A deposit address is momentarily unavailable; retry',
			// A write without a key may have acted: not "retry".
			/API code deposit_address_unavailable, HTTP 503\)\. The service failed and may or may not have acted on this request/,
		],
	])('HTTP %i: the headline in panel words, the service sentence, code and status in the description', async (status, body, text, hint) => {
		handler = reply(status, body);
		// POST without a key: never retried, so every status is seen exactly once
		const error = await sendError({ method: 'POST', path: '/payment-orders/po_1/cancel', body: { reason: 'x' } });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(text);
		expect(error.description).toMatch(hint);
		expect(error.httpCode).toBe(String(status));
		expect(seen).toHaveLength(1);
		expect(JSON.stringify({ ...error, message: error.message, description: error.description })).not.toContain(API_KEY);
	});

	test('a write refused with no field named reads the account limits its request names (limitsOnRefusal), and only then', async () => {
		handler = (req, res) =>
			req.method === 'GET' ? res.end(JSON.stringify({ maxTxUsd: { limit: 100, used: 0, remaining: 100 } })) : reply(400, { error: 'order refused' })(req, res);
		const order = { method: 'POST' as const, path: '/payment', body: { amountUsd: 150, subaccountId: 'sub-1' } };
		const error = await sendError({ ...order, limitsOnRefusal: { path: '/account/limits', qs: { subaccountId: 'sub-1' } } });
		expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v1/payment', 'GET /api/v1/account/limits?subaccountId=sub-1']);
		expect(error.message).toMatch(/^Amount \(USD\) "150" would exceed the account's limits: 150 USD exceeds the per-transaction maximum/);
		// The transport names no endpoint: the same refusal without the hook reads nothing more.
		seen = [];
		await sendError(order);
		expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v1/payment']);
	});

	test('a non-JSON error body is kept as text', async () => {
		handler = (_req, res) => {
			res.statusCode = 502;
			res.setHeader('content-type', 'text/plain');
			res.end('bad gateway');
		};
		const error = await sendError({ method: 'POST', path: '/x' });
		expect(error.message).toBe('The Clearinghouse service failed: bad gateway');
		expect(error.description).toContain('HTTP 502');
	});
});

describe('retries', () => {
	test('a read is retried on 500 and 503 and succeeds', async () => {
		handler = (req, res, n) => (n < 3 ? reply(n === 1 ? 500 : 503, { error: 'flaky' })(req, res) : reply(200, { ok: 1 })(req, res));
		expect(await send({ method: 'GET', path: '/payment-orders/po_1' })).toEqual({ ok: 1 });
		expect(seen).toHaveLength(3);
	});

	test('a keyed write is retried with the same key and body', async () => {
		handler = (req, res, n) => (n === 1 ? reply(500, { error: 'boom' })(req, res) : reply(201, { id: 'po_1' })(req, res));
		await send({ method: 'POST', path: '/payment', body: { idempotencyKey: 'k-9', amountUsd: 1 }, idempotent: true });
		expect(seen).toHaveLength(2);
		expect(seen[1].body).toBe(seen[0].body);
	});

	test('a write without a key is never retried', async () => {
		handler = reply(500, { error: 'boom' });
		const error = await sendError({ method: 'POST', path: '/add-user-record', body: { label: 'a' } });
		expect(error.httpCode).toBe('500');
		expect(seen).toHaveLength(1);
	});

	test('retries are bounded', async () => {
		handler = reply(503, { error: 'down' });
		sleeps.asked = [];
		const error = await sendError({ method: 'GET', path: '/supported-assets' });
		expect(error.httpCode).toBe('503');
		expect(seen).toHaveLength(fast.maxAttempts);
		// The policy's backoff between the tries: doubling from baseDelayMs, capped at maxDelayMs.
		expect(sleeps.asked).toEqual([5, 10, 20]);
	});

	test('4xx other than 429 is not retried, even for reads', async () => {
		handler = reply(404, { error: 'nope' });
		await sendError({ method: 'GET', path: '/payment-orders/x' });
		expect(seen).toHaveLength(1);
	});

	test('429 waits for Retry-After before the retry', async () => {
		handler = (req, res, n) => {
			if (n === 1) reply(429, { error: 'slow down' }, { 'retry-after': '1' })(req, res);
			else reply(200, { ok: true })(req, res);
		};
		sleeps.asked = [];
		const requestsDuringTheWait: number[] = [];
		sleeps.meanwhile = () => void requestsDuringTheWait.push(seen.length);
		try {
			await send({ method: 'PUT', path: '/payment-orders/po/return-details', headers: { 'Idempotency-Key': 'r1' }, idempotent: true, body: {} });
		} finally {
			sleeps.meanwhile = undefined;
		}
		expect(seen).toHaveLength(2);
		// One wait, of the 1 s Retry-After asked (not the policy's 5 ms backoff), between the 429 and the retry.
		expect(sleeps.asked).toEqual([1000]);
		expect(requestsDuringTheWait).toEqual([1]);
	});

	test('a Retry-After longer than we will wait fails at once with the 429', async () => {
		handler = reply(429, { error: 'slow down' }, { 'retry-after': '3600' });
		const error = await sendError({ method: 'GET', path: '/account/limits' });
		expect(error.httpCode).toBe('429');
		expect(seen).toHaveLength(1);
	});

	test('a dropped connection is retried for reads and reported without secrets otherwise', async () => {
		handler = (req, res, n) => (n === 1 ? res.socket!.destroy() : reply(200, { ok: 2 })(req, res));
		expect(await send({ method: 'GET', path: '/supported-assets' })).toEqual({ ok: 2 });
		expect(seen).toHaveLength(2);

		seen = [];
		handler = (_req, res) => res.socket!.destroy();
		const error = await sendError({ method: 'POST', path: '/payment-orders/p/cancel', body: {} });
		expect(seen).toHaveLength(1);
		// A lost answer to a write does not say "Could not reach… check the Base URL": the request did
		// reach the service.
		expect(error.message).toBe('The answer was lost: the service may have made this change. Check before sending it again');
		expect(error.description).toMatch(/^ECONNRESET \(1 try\): the request reached the network .* it was not repeated because repeating it could act twice/);
		expect(error.description).not.toMatch(/Base URL/);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	test('a refused connection says nothing was sent and to check the Base URL', async () => {
		const error = await sendError({ method: 'POST', path: '/x' }, { baseUrl: 'http://127.0.0.1:1' });
		expect(error.message).toBe('Could not connect to the Clearinghouse API: nothing was sent');
		expect(error.description).toMatch(
			/^ECONNREFUSED \(1 try\): the connection could not be opened, so the service did not receive the request and nothing was written\. Check the Base URL/,
		);
	});
});

describe('errors that never invite a second payment', () => {
	// A keyed order as sendKeyed() sends it (actions/keyedSend.ts): the record's words ride on the request.
	const order = (key = 'payout-INV-1') => ({
		method: 'POST' as const,
		path: '/payment',
		body: { amountUsd: 5, idempotencyKey: key },
		idempotent: true,
		record: WRITTEN_RECORDS['payment order'],
	});

	test('a keyed order whose answer is lost on every try (the server reads the body, then drops the connection): the service may have it, only Retry is safe', async () => {
		handler = (_req, res) => res.socket!.destroy();
		const error = await sendError(order());
		// Read, then dropped, on each of the 4 tries, always with the same key and body.
		expect(seen).toHaveLength(4);
		expect(new Set(seen.map((r) => r.body)).size).toBe(1);
		expect(JSON.parse(seen[0].body).idempotencyKey).toBe('payout-INV-1');
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(
			'The answer was lost: the service may have made this payment order. Only Retry of this execution (or a run with the same Business Key) is safe',
		);
		expect(error.description).toContain('(4 tries, each with the idempotency key payout-INV-1)');
		expect(error.description).toContain('Running the workflow anew with a Derived key or a new Business Key may pay twice');
		expect(error.description).toContain('Payment Order → Find by Keys (or Get Many) shows whether the order exists');
		expect(error.description).not.toMatch(/Base URL|nothing was sent/i);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	test('a keyed order whose answer times out: the same warning (a timeout waiting for the answer is not a connect error)', async () => {
		handler = () => undefined; // reads the request, never answers
		let error: NodeApiError | undefined;
		try {
			await runNode(
				nodeFor((ctx) => apiRequest(ctx, { ...order('payout-INV-2'), timeoutMs: 150 }, { ...fast, maxAttempts: 2 })),
				{ parameters: {}, credentials: credentials() },
			);
		} catch (e) {
			error = e as NodeApiError;
		}
		expect(seen).toHaveLength(2);
		expect(error?.message).toMatch(/^The answer was lost: the service may have made this payment order\. Only Retry of this execution/);
		expect(error?.description).toContain('each with the idempotency key payout-INV-2');
	});

	test('a keyed order to a port nobody listens on: nothing was sent, check the Base URL', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((resolve) => closed.close(resolve));
		const error = await sendError(order(), { baseUrl: `http://127.0.0.1:${port}` });
		expect(error.message).toBe('Could not connect to the Clearinghouse API: nothing was sent');
		expect(error.description).toMatch(/^ECONNREFUSED \(4 tries\): .* did not receive the request and nothing was written\. Check the Base URL/);
		expect(error.description).not.toMatch(/may have/);
	});

	test('a host name that does not resolve: nothing was sent', async () => {
		const error = await sendError(order(), { baseUrl: 'https://clearinghouse-e2e.invalid' });
		expect(error.message).toBe('Could not connect to the Clearinghouse API: nothing was sent');
		expect(error.description).toMatch(/^(ENOTFOUND|EAI_AGAIN) \(4 tries\)/);
	});

	test('a first try whose answer was lost, then refused connections: still "may have made", never "nothing was sent"', async () => {
		// The server reads the first request and drops it, then stops listening: later tries are refused.
		const lossy = createServer((req, res) => {
			req.resume();
			req.on('end', () => {
				res.socket!.destroy();
				lossy.close();
			});
		});
		await new Promise<void>((resolve) => lossy.listen(0, '127.0.0.1', resolve));
		const port = (lossy.address() as AddressInfo).port;
		const error = await sendError(order('payout-INV-3'), { baseUrl: `http://127.0.0.1:${port}` });
		expect(error.message).toMatch(/^The answer was lost: the service may have made this payment order/);
		expect(error.description).toMatch(/^ECONNREFUSED \(4 tries, each with the idempotency key payout-INV-3\)/);
	});

	test('a read whose answer is lost says so, without blaming the Base URL', async () => {
		handler = (_req, res) => res.socket!.destroy();
		const error = await sendError({ method: 'GET', path: '/payment-orders' });
		expect(seen).toHaveLength(4);
		expect(error.message).toBe('The Clearinghouse API did not answer: the connection was lost');
		expect(error.description).toMatch(/A read changes nothing; run it again later\.$/);
	});
});

describe('parseRetryAfter', () => {
	test('seconds, dates and junk', () => {
		expect(parseRetryAfter('2')).toBe(2000);
		expect(parseRetryAfter(['0.5'])).toBe(500);
		expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
		expect(parseRetryAfter('soon')).toBeUndefined();
		expect(parseRetryAfter(undefined)).toBeUndefined();
	});
});

describe('pagination', () => {
	const records = Array.from({ length: 25 }, (_, i) => ({ id: `po_${i}` }));
	function pages(withHasMore: boolean) {
		return (req: Seen, res: ServerResponse) => {
			const q = new URL(req.url, 'http://x').searchParams;
			const limit = Number(q.get('limit'));
			const offset = Number(q.get('offset'));
			const page = records.slice(offset, offset + limit);
			const body: IDataObject = { paymentOrders: page, total: records.length, limit, offset };
			if (withHasMore) body.hasMore = offset + page.length < records.length;
			reply(200, body)(req, res);
		};
	}
	async function list(request: Omit<ListRequest, 'path' | 'listKey'>) {
		const [[item]] = await runNode(
			nodeFor((ctx) => apiRequestAllItems(ctx, { path: '/payment-orders', listKey: 'paymentOrders', ...request }, fast)),
			{ parameters: {}, credentials: credentials() },
		);
		return item.json.result as IDataObject[];
	}
	const offsets = () => seen.map((s) => new URL(s.url, 'http://x').searchParams.get('offset'));

	test('follows hasMore across pages until the end', async () => {
		handler = pages(true);
		expect((await list({ pageSize: 10, qs: { status: 'FUNDED' } })).map((r) => r.id)).toEqual(records.map((r) => r.id));
		expect(offsets()).toEqual(['0', '10', '20']);
		expect(seen.every((s) => s.url.includes('status=FUNDED'))).toBe(true);
	});

	test('falls back to total when hasMore is absent', async () => {
		handler = pages(false);
		expect(await list({ pageSize: 10 })).toHaveLength(25);
		expect(seen).toHaveLength(3);
	});

	test('stops at the caller limit and asks only for what is missing', async () => {
		handler = pages(true);
		expect(await list({ pageSize: 10, limit: 15 })).toEqual(records.slice(0, 15));
		expect(seen.map((s) => new URL(s.url, 'http://x').searchParams.get('limit'))).toEqual(['10', '5']);
	});

	test('an empty page ends the loop even if the server claims more', async () => {
		handler = reply(200, { paymentOrders: [], hasMore: true, total: 99 });
		expect(await list({ pageSize: 10 })).toEqual([]);
		expect(seen).toHaveLength(1);
	});

	test('the pager stops early: a caller that leaves its loop asks for no further page; each page says whether more follow', async () => {
		handler = pages(true);
		const [[item]] = await runNode(
			nodeFor(async (ctx) => {
				const seenPages: Array<{ ids: string[]; more: boolean }> = [];
				for await (const page of listPages(ctx, { path: '/payment-orders', listKey: 'paymentOrders', pageSize: 10 }, fast)) {
					seenPages.push({ ids: page.records.map((r) => String(r.id)), more: page.more });
					if (page.records.some((r) => r.id === 'po_12')) break;
				}
				return seenPages;
			}),
			{ parameters: {}, credentials: credentials() },
		);
		expect((item.json.result as Array<{ more: boolean }>).map((p) => p.more)).toEqual([true, true]);
		expect(offsets()).toEqual(['0', '10']);
	});
});

describe('one credential read per run of the node', () => {
	/** Runs a node that counts n8n's credential reads of its context, then makes `requests`. */
	async function runCounting(requests: (ctx: IExecuteFunctions) => Promise<unknown>, over: Partial<TestCredentials> = {}) {
		let reads = 0;
		const [[item]] = await runNode(
			nodeFor(async (ctx) => {
				const read = ctx.getCredentials.bind(ctx);
				ctx.getCredentials = (async (...args: Parameters<IExecuteFunctions['getCredentials']>) => {
					reads++;
					return await read(...args);
				}) as IExecuteFunctions['getCredentials'];
				return await requests(ctx);
			}),
			{ parameters: {}, credentials: credentials(over) },
		);
		return { reads, result: item.json.result };
	}

	test('many requests of one run, in sequence and at once, read the credential once and all carry the key', async () => {
		handler = reply(200, { ok: true });
		const { reads } = await runCounting(async (ctx) => {
			await apiRequest(ctx, { method: 'GET', path: '/account/limits' }, fast);
			await apiRequest(ctx, { api: 'rewards', method: 'GET', path: '/rewards/rules' }, fast);
			return await Promise.all([1, 2, 3].map((i) => apiRequest(ctx, { method: 'GET', path: `/payment-orders/p${i}` }, fast)));
		});
		expect(reads).toBe(1);
		expect(seen).toHaveLength(5);
		expect(seen.map((s) => s.headers['x-api-key'])).toEqual(Array(5).fill(API_KEY));
	});

	test('a changed credential is used by the next run (nothing is kept beyond a run)', async () => {
		handler = reply(200, { ok: true });
		await runCounting((ctx) => apiRequest(ctx, { method: 'GET', path: '/account/limits' }, fast));
		const { reads } = await runCounting((ctx) => apiRequest(ctx, { method: 'GET', path: '/account/limits' }, fast), {
			apiKey: 'sk_test_rotated_key',
			baseUrl: `${origin}/`,
		});
		expect(reads).toBe(1);
		expect(seen.map((s) => s.headers['x-api-key'])).toEqual([API_KEY, 'sk_test_rotated_key']);
	});

	test('an empty API key is sent as an empty header, as the credential type sends it', async () => {
		handler = reply(401, { error: 'missing or malformed x-api-key' });
		const error = await sendError({ method: 'GET', path: '/account/limits' }, { apiKey: '' });
		expect(error.httpCode).toBe('401');
		expect(seen[0].headers['x-api-key']).toBe('');
	});

	test('the key set by the node never reaches an error: API errors, lost answers, refused and timed-out connections', async () => {
		const everything = (error: unknown): string => {
			const seenObjects = new Set<unknown>();
			// Every own property, the cause chain, description, stack and context, however deep.
			const walk = (value: unknown, depth: number): string => {
				if (value === null || typeof value !== 'object' || depth > 6 || seenObjects.has(value)) return String(value);
				seenObjects.add(value);
				return Object.getOwnPropertyNames(value)
					.map((name) => `${name}=${walk((value as Record<string, unknown>)[name], depth + 1)}`)
					.join(';');
			};
			return walk(error, 0) + JSON.stringify(error);
		};
		const failures: unknown[] = [];
		handler = reply(401, { error: 'missing or malformed x-api-key' });
		failures.push(await sendError({ method: 'GET', path: '/account/limits' }));
		handler = (_req, res) => res.socket!.destroy();
		failures.push(await sendError({ method: 'POST', path: '/payment', body: { idempotencyKey: 'k1' }, idempotent: true }));
		failures.push(await sendError({ method: 'GET', path: '/supported-assets' }));
		failures.push(await sendError({ method: 'POST', path: '/payment' }, { baseUrl: 'http://127.0.0.1:1' }));
		handler = () => undefined; // never answers
		failures.push(await sendError({ method: 'GET', path: '/supported-assets', timeoutMs: 50 }));
		expect(failures).toHaveLength(5);
		for (const failure of failures) {
			expect(failure).toBeInstanceOf(NodeApiError);
			expect(everything(failure)).not.toContain(API_KEY);
		}
	});
});

describe('redirects: the key stays on its origin', () => {
	/** A second origin on this machine: whatever reaches it is recorded (the test wants nothing). */
	let elsewhere: Server;
	let elsewhereOrigin: string;
	let reached: Seen[] = [];
	beforeAll(async () => {
		elsewhere = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c) => chunks.push(c));
			req.on('end', () => {
				reached.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
				res.setHeader('content-type', 'application/json');
				res.end('{"paymentOrderId":"po_elsewhere"}');
			});
		});
		await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
		elsewhereOrigin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
	});
	afterAll(() => new Promise((resolve) => elsewhere.close(resolve)));
	beforeEach(() => {
		reached = [];
	});

	test.each([
		[302, 'GET', '/account/limits', undefined],
		[301, 'GET', '/payment-orders/po_1', undefined],
		[307, 'POST', '/payment', { idempotencyKey: 'k-redirect', amountUsd: '10' }],
		[308, 'POST', '/payment', { idempotencyKey: 'k-redirect', amountUsd: '10' }],
	] as const)('%i to another origin on %s %s: an error naming the Location; the other origin receives nothing', async (status, method, path, body) => {
		handler = reply(status, {}, { location: `${elsewhereOrigin}/api/v1${path}?moved=1` });
		const error = await sendError({ method, path, body: body ? { ...body } : undefined, idempotent: method === 'POST' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(`The Clearinghouse API answered ${status}, a redirect to ${elsewhereOrigin}/api/v1${path}?moved=1: not followed`);
		expect(error.description).toContain(`nothing went to ${elsewhereOrigin}/api/v1${path}?moved=1`);
		expect(seen).toHaveLength(1); // asked once: a redirect is not retried either
		expect(reached).toEqual([]);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
	});

	test('a relative Location is named as the URL it resolves to, without any user name or password a Location carries', async () => {
		handler = reply(302, {}, { location: '/login?next=%2Fapi' });
		expect((await sendError({ method: 'GET', path: '/account/limits' })).message).toBe(
			`The Clearinghouse API answered 302, a redirect to ${origin}/login?next=%2Fapi: not followed`,
		);
		handler = reply(302, {}, { location: `http://someone:pw@127.0.0.1:1/x` });
		expect((await sendError({ method: 'GET', path: '/account/limits' })).message).toBe(
			'The Clearinghouse API answered 302, a redirect to http://127.0.0.1:1/x: not followed',
		);
		handler = reply(303, {});
		expect((await sendError({ method: 'GET', path: '/account/limits' })).message).toBe(
			'The Clearinghouse API answered 303, a redirect to (no Location header): not followed',
		);
	});
});
