/** Hostile input, case by case: each malformed request gets its 4xx, the log stays bounded, the operator API refuses browsers. */
import * as net from 'node:net';
import { LIMITS } from '../../sandbox/traffic';
import { Client, walletOf } from '../../harness/sandboxClient';
import { SandboxEnv, createOrder, orders, setup } from './support';

let env: SandboxEnv;
beforeAll(async () => {
	env = await setup({ timeScale: 1000 });
});
afterAll(() => env.sb.close());

/** One raw request on its own connection; the status of the answer, or 'closed'. */
function raw(bytes: string | Buffer, port = Number(new URL(env.sb.mainUrl).port)): Promise<number | 'closed'> {
	return new Promise((resolve) => {
		const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
		let got = '';
		s.on('data', (c) => {
			got += c.toString('latin1');
			const m = /^HTTP\/1\.1 (\d{3}) /.exec(got);
			if (m) {
				s.destroy();
				resolve(Number(m[1]));
			}
		});
		s.on('close', () => resolve('closed'));
		s.on('error', () => resolve('closed'));
	});
}
const alive = async () => expect((await env.api.get('/supported-assets')).status).toBe(200);
const send = async (path: string, body: string | Buffer, headers: Record<string, string> = {}) => {
	const r = await fetch(`${env.sb.mainUrl}/api/v1${path}`, {
		method: 'POST',
		headers: { 'x-api-key': env.sb.apiKey, 'content-type': 'application/json', ...headers },
		body,
	});
	return { status: r.status, body: (await r.json()) as any };
};

describe('malformed requests get a 4xx and the process stays up', () => {
	it.each([
		['GET //[ HTTP/1.1', 400],
		['GET //a:99999/ HTTP/1.1', 400],
		['GET http://evil.example/api/v1/supported-assets HTTP/1.1', 400],
		['GET /api/v1/payment-orders/%E0%A4%A HTTP/1.1', 400],
		['FOO /api/v1/supported-assets HTTP/1.1', 400],
		['CONNECT 127.0.0.1:1 HTTP/1.1', 405],
		[`GET /api/v1/${'a'.repeat(20_000)} HTTP/1.1`, 431],
	])('%s → %d', async (line, status) => {
		expect(await raw(`${line}\r\nHost: ${new URL(env.sb.mainUrl).host}\r\n\r\n`)).toBe(status);
		await alive();
	});

	it('a broken %-escape in a path segment is 400 with the key too', async () => {
		const r = await env.api.get('/payment-orders/%zz');
		expect(r).toMatchObject({ status: 400, body: { error: 'invalid_path_encoding' } });
	});

	it('bodies: non-JSON content type 415, bad UTF-8 400, deep nesting 400, oversized 413', async () => {
		expect((await send('/payment', 'amountUsd=1', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
		expect((await send('/payment', '{}', { 'content-type': 'text/plain' })).status).toBe(415);
		expect((await send('/payment', '{}', { 'content-type': 'application/json; charset=latin1' })).status).toBe(415);
		expect((await send('/payment', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).body.error).toBe('invalid_encoding');
		const deep = '['.repeat(100_000) + ']'.repeat(100_000);
		expect((await send('/payment', deep)).body).toMatchObject({ error: 'nesting_too_deep' });
		expect((await send('/payment', '{"a":'.repeat(65) + '1' + '}'.repeat(65))).body.error).toBe('nesting_too_deep');
		expect(
			await raw(
				`POST /api/v1/payment HTTP/1.1\r\nHost: ${new URL(env.sb.mainUrl).host}\r\nx-api-key: ${env.sb.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${LIMITS.maxBodyBytes + 1}\r\n\r\n`,
			),
		).toBe(413);
		// Nesting within the bound still parses (and fails validation as a payment).
		expect((await send('/payment', '{"a":'.repeat(60) + '1' + '}'.repeat(60))).body.error).toBe('validation_error');
		// The request log still serves after a deep body was sent.
		expect((await env.op.get('/requests')).status).toBe(200);
	});

	it('an unauthenticated body is never read: 401 before the body, nothing of it kept', async () => {
		const mark = (await env.op.get(`/requests?since=${Number.MAX_SAFE_INTEGER}`)).body.lastSeq;
		const r = await fetch(`${env.sb.mainUrl}/api/v1/payment`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ memo: 'x'.repeat(1_000_000) }),
		});
		expect(r.status).toBe(401);
		const [logged] = (await env.op.get(`/requests?since=${mark}`)).body.requests;
		expect(logged).toMatchObject({ status: 401, body: null });
		expect(logged.bodyBytes).toBeUndefined();
	});

	it('a rejected body is logged only as its size and first KiB; an accepted small one whole', async () => {
		const mark = (await env.op.get(`/requests?since=${Number.MAX_SAFE_INTEGER}`)).body.lastSeq;
		const big = JSON.stringify({ memo: 'y'.repeat(100_000) });
		expect((await send('/payment', big)).status).toBe(400);
		await env.api.post('/add-user-record', { label: 'log-whole', wallets: [] });
		const [rejected, accepted] = (await env.op.get(`/requests?since=${mark}`)).body.requests;
		expect(rejected).toMatchObject({ status: 400, body: null, bodyBytes: big.length });
		expect(rejected.bodyHead).toHaveLength(1024);
		expect(accepted).toMatchObject({ status: 201, body: { label: 'log-whole', wallets: [] } });
	});

	it('the request log is bounded in bytes: the oldest entries go', async () => {
		const traffic = env.sb.services.traffic;
		const saved = LIMITS.logMaxBytes;
		LIMITS.logMaxBytes = 200_000;
		try {
			for (let i = 0; i < 40; i++) await env.api.post('/add-user-record', { label: `log-${i}`, wallets: [], pad: 'z'.repeat(20_000) });
			expect(traffic.logBytes).toBeLessThanOrEqual(LIMITS.logMaxBytes);
			const labels = traffic.requests.map((x) => (x.body as any)?.label);
			expect(labels).toContain('log-39');
			expect(labels).not.toContain('log-0');
		} finally {
			LIMITS.logMaxBytes = saved;
		}
	});
});

describe('keys named like Object.prototype members are plain data', () => {
	it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
		'Idempotency-Key %s on return details: 200 at first use, the same answer on replay',
		async (key) => {
			const o = await createOrder(env);
			const body = { userId: env.alice.id, wallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] };
			const put = () => env.api.put(`/payment-orders/${o.id}/return-details`, body, { 'If-Match': '"0"', 'Idempotency-Key': key });
			const first = await put();
			expect(first.status).toBe(200);
			const again = await put();
			expect(again).toMatchObject({ status: 200, body: first.body });
		},
	);

	it.each(['__proto__', 'constructor'])('idempotencyKey %s on a payment, and on a reward rule', async (key) => {
		const r = await env.api.post('/payment', {
			fromUserId: env.alice.id,
			toAddress: walletOf(env.bob, 'ethereum'),
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: 3,
			expiresAt: new Date(Date.now() + 86400_000).toISOString(),
			idempotencyKey: key,
		});
		expect(r.status).toBe(201);
		const rule = {
			name: `proto ${key}`,
			definition: { measure: { type: 'transaction_count', metricKey: 'm' }, condition: { type: 'always' }, payout: { type: 'fixed', amount: '1' }, limits: [] },
		};
		expect((await env.rewards.post('/rewards/rules', rule, { 'Idempotency-Key': key })).status).toBe(201);
		expect(({} as any).polluted).toBeUndefined();
	});

	it('ids such as __proto__ are unknown ids (404), and a __proto__ body key pollutes nothing', async () => {
		expect((await env.api.get('/payment-orders/__proto__')).status).toBe(404);
		expect((await env.api.get('/webhooks/endpoints/constructor')).status).toBe(404);
		expect((await env.api.get(orders('__proto__=x&constructor=y'))).status).toBe(200);
		expect((await send('/payment', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}')).status).toBe(400);
		expect(({} as any).polluted).toBeUndefined();
	});
});

describe('the operator API refuses cross-origin browser requests', () => {
	const reset = (headers: Record<string, string>, body = '{}') => fetch(`${env.sb.operatorUrl}/reset`, { method: 'POST', headers, body });

	it.each([
		['a foreign Origin', 403, { origin: 'http://evil.example', 'content-type': 'application/json' }],
		['Origin null (sandboxed page, file://)', 403, { origin: 'null', 'content-type': 'application/json' }],
		['another loopback port', 403, { origin: 'http://127.0.0.1:1', 'content-type': 'application/json' }],
		['Sec-Fetch-Site cross-site', 403, { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }],
		['a text/plain body (a form or no-cors fetch)', 415, { 'content-type': 'text/plain' }],
		['a form body', 415, { 'content-type': 'application/x-www-form-urlencoded' }],
	])('%s → %d, and nothing is reset', async (_what, status, headers: Record<string, string>) => {
		await env.api.post('/add-user-record', { label: 'survives', wallets: [] });
		expect((await reset(headers)).status).toBe(status);
		expect((await env.op.get('/state')).body.users.map((u: any) => u.label)).toContain('survives');
	});

	it('a rebinding name in Host → 421, and nothing is reset', async () => {
		await env.api.post('/add-user-record', { label: 'survives-rebinding', wallets: [] });
		const port = Number(new URL(env.sb.mainUrl).port);
		expect(await raw('POST /sandbox/reset HTTP/1.1\r\nHost: rebind.evil.example\r\ncontent-length: 0\r\n\r\n', port)).toBe(421);
		expect((await env.op.get('/state')).body.users.map((u: any) => u.label)).toContain('survives-rebinding');
	});

	it('the same origin (a page the sandbox serves) and non-browser clients are allowed', async () => {
		const host = new URL(env.sb.mainUrl).host;
		expect((await fetch(`${env.sb.operatorUrl}/state`, { headers: { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
		expect((await new Client(env.sb.operatorUrl).get('/faults')).status).toBe(200);
	});
});
