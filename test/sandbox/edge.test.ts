/**
 * The sandbox's network edge: every answer marks itself as the sandbox's; both servers answer only their
 * own host names (a DNS-rebinding page gets a bare 421 and changes nothing); loopback webhook targets
 * only on the ports named; of a receiver's answer only what the console words need is kept.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile as execFileCb } from 'node:child_process';
import { promisify } from 'node:util';
import { createNetns, netnsUnavailable, type Netns } from '../../harness/netns';
import { ownHostNames, publicHostName } from '../../sandbox/edge';
import { SANDBOX_HEADER } from '../../sandbox/router';
import { keptAnswer } from '../../sandbox/webhooks';
import { Receiver } from '../../harness/receiver';
import { waitFor } from '../../harness/wait';
import { SandboxEnv, addEndpoint, createOrder, setup } from './support';

let env: SandboxEnv;
beforeAll(async () => {
	env = await setup();
});
afterAll(() => env.sb.close());

/** The answer to raw request bytes on their own connection to 127.0.0.1:port: head and body. */
function rawAnswer(port: number, bytes: string, host = '127.0.0.1'): Promise<{ status: number; head: string; body: string }> {
	return new Promise((resolve) => {
		const s = net.connect(port, host, () => s.write(bytes));
		let got = '';
		s.on('data', (c) => (got += c.toString('latin1')));
		const done = () => {
			const [head, ...body] = got.split('\r\n\r\n');
			resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1] ?? 0), head: head.toLowerCase(), body: body.join('\r\n\r\n') });
		};
		s.on('close', done);
		s.on('error', done);
	});
}
const execFile = promisify(execFileCb);
const portOf = (url: string) => Number(new URL(url).port);
const get = (port: number, target: string, host: string, extra = '') =>
	rawAnswer(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${env.sb.apiKey}\r\n${extra}connection: close\r\n\r\n`);

describe(`every answer of both servers carries ${SANDBOX_HEADER}: 1`, () => {
	const key = () => ({ 'x-api-key': env.sb.apiKey });
	it.each([
		['main: an API answer', () => [`${env.sb.mainUrl}/api/v1/supported-assets`, key()], 200],
		['main: an unknown route', () => [`${env.sb.mainUrl}/api/v1/nope`, key()], 404],
		['main: no key', () => [`${env.sb.mainUrl}/api/v1/supported-assets`, {}], 401],
		['main: the console page', () => [`${env.sb.mainUrl}/`, {}], 200],
		['main: the operator API', () => [`${env.sb.operatorUrl}/state`, {}], 200],
		['rewards: an API answer', () => [`${env.sb.rewardsUrl}/api/v1/rewards/rule-blocks`, key()], 200],
		['rewards: no key', () => [`${env.sb.rewardsUrl}/api/v1/rewards/rule-blocks`, {}], 401],
	] as const)('%s', async (_name, target, status) => {
		const [url, headers] = target();
		const r = await fetch(url as string, { headers: headers as Record<string, string> });
		expect([r.status, r.headers.get(SANDBOX_HEADER)]).toEqual([status, '1']);
	});

	it('and so does the answer to a malformed request, which no handler sees, and a refused Host', async () => {
		for (const url of [env.sb.mainUrl, env.sb.rewardsUrl]) {
			const malformed = await rawAnswer(portOf(url), `FOO / HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`);
			expect([malformed.status, malformed.head]).toEqual([400, expect.stringContaining(`\r\n${SANDBOX_HEADER}: 1`)]);
			const foreign = await get(portOf(url), '/', 'rebind.evil.example');
			expect([foreign.status, foreign.head]).toEqual([421, expect.stringContaining(`\r\n${SANDBOX_HEADER}: 1`)]);
		}
	});
});

describe('both servers answer only their own host names', () => {
	const main = () => portOf(env.sb.mainUrl);
	const rewards = () => portOf(env.sb.rewardsUrl);

	it.each([
		['a rebinding name', (p: number) => `rebind.evil.example:${p}`],
		['a rebinding name without port', () => 'rebind.evil.example'],
		['a loopback name with another port', () => '127.0.0.1:1'],
		['localhost with another port', (p: number) => `localhost:${p + 1}`],
		['0.0.0.0', (p: number) => `0.0.0.0:${p}`],
		['a name ending in localhost', (p: number) => `evil.localhost:${p}`],
		['an empty Host', () => ''],
	])('%s: 421 and a fixed sentence from the API, the console, the operator API and rewards', async (_what, host) => {
		for (const [port, target] of [
			[main(), '/api/v1/supported-assets'],
			[main(), '/'],
			[main(), '/console/console.js'],
			[main(), '/sandbox/state'],
			[main(), '/sandbox/requests'],
			[rewards(), '/api/v1/rewards/rule-blocks'],
		] as const) {
			const r = await get(port, target, host(port));
			expect([target, r.status, r.body]).toEqual([
				target,
				421,
				'Misdirected request: this sandbox answers only its own host names (add one with --public-host)\n',
			]);
		}
	});

	it('a request without a Host header (HTTP/1.0) is refused too', async () => {
		const r = await rawAnswer(main(), `GET /api/v1/supported-assets HTTP/1.0\r\nx-api-key: ${env.sb.apiKey}\r\n\r\n`);
		expect(r.body).not.toContain('USDC');
		expect(r.status).toBe(421);
	});

	it('a refused request changes nothing, consumes no fault and is not logged', async () => {
		const users = async () => (await env.op.get('/state')).body.users.length;
		const before = await users();
		await env.op.post('/faults', { method: 'GET', path: '/api/v1/supported-assets', status: 503, count: 1 });
		const mark = (await env.op.get(`/requests?since=${Number.MAX_SAFE_INTEGER}`)).body.lastSeq;
		const host = `rebind.evil.example:${main()}`;
		const body = JSON.stringify({ label: 'from-a-rebinding-page', wallets: [] });
		const post = await rawAnswer(
			main(),
			`POST /api/v1/add-user-record HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${env.sb.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
		);
		const reset = await rawAnswer(main(), `POST /sandbox/reset HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`);
		const read = await get(main(), '/api/v1/supported-assets', host);
		expect([post.status, reset.status, read.status]).toEqual([421, 421, 421]);
		expect(await users()).toBe(before);
		expect((await env.op.get(`/requests?since=${mark}`)).body.requests).toEqual([]);
		// The fault is still there for the first request with a right Host.
		expect((await env.api.get('/supported-assets')).status).toBe(503);
	});

	it.each([
		['127.0.0.1', (p: number) => `127.0.0.1:${p}`],
		['localhost', (p: number) => `localhost:${p}`],
		['LocalHost (case does not matter)', (p: number) => `LocalHost:${p}`],
		['[::1]', (p: number) => `[::1]:${p}`],
	])('%s with the server’s own port is answered by both servers', async (_what, host) => {
		expect((await get(main(), '/api/v1/supported-assets', host(main()))).status).toBe(200);
		expect((await get(main(), '/', host(main()))).status).toBe(200);
		expect((await get(rewards(), '/api/v1/rewards/rule-blocks', host(rewards()))).status).toBe(200);
		// The main server's port is not the rewards server's name, and the other way round.
		expect((await get(rewards(), '/api/v1/rewards/rule-blocks', host(main()))).status).toBe(421);
	});

	it('a name given with publicHosts (--public-host) is answered; the operator API still needs a client on this machine', async () => {
		const other = await setup({ publicHosts: ['host.docker.internal', 'N8N-Sandbox.lan'] });
		try {
			const p = portOf(other.sb.mainUrl);
			const ask = (host: string, target = '/api/v1/supported-assets') =>
				rawAnswer(p, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${other.sb.apiKey}\r\nconnection: close\r\n\r\n`);
			expect((await ask(`host.docker.internal:${p}`)).status).toBe(200);
			expect((await ask(`n8n-sandbox.lan:${p}`)).status).toBe(200);
			expect((await ask(`host.docker.internal:${p}`, '/sandbox/state')).status).toBe(200); // from loopback
			expect((await ask(`rebind.evil.example:${p}`)).status).toBe(421);
			expect(other.sb.hostNames.rewards).toContain(`host.docker.internal:${portOf(other.sb.rewardsUrl)}`);
		} finally {
			await other.sb.close();
		}
	});

	it('a malformed public host name is refused before anything listens', async () => {
		for (const bad of ['http://host.docker.internal', 'host.docker.internal:4010', 'a b', '']) {
			await expect(setup({ publicHosts: [bad] })).rejects.toThrow(/--public-host takes a host name or an IP address/);
		}
	});
});

describe('the names a server answers (ownHostNames)', () => {
	it('loopback binding: the loopback names with the port', () => {
		expect([...ownHostNames('127.0.0.1', 4010)].sort()).toEqual(['127.0.0.1:4010', '[::1]:4010', 'localhost:4010']);
	});
	it('every interface: the loopback names and the names given, never 0.0.0.0', () => {
		expect([...ownHostNames('0.0.0.0', 4010, ['host.docker.internal'])].sort()).toEqual([
			'127.0.0.1:4010',
			'[::1]:4010',
			'host.docker.internal:4010',
			'localhost:4010',
		]);
		expect([...ownHostNames('::', 4010)]).not.toContain('[::]:4010');
	});
	it('a bound address is a name; IPv6 in brackets; port 80 also without the port', () => {
		expect(ownHostNames('10.200.0.1', 4010).has('10.200.0.1:4010')).toBe(true);
		expect(ownHostNames('fd00::1', 4010).has('[fd00::1]:4010')).toBe(true);
		expect(ownHostNames('127.0.0.1', 80).has('localhost')).toBe(true);
		expect(ownHostNames('127.0.0.1', 4010).has('localhost')).toBe(false);
		expect(publicHostName('[FD00::2]')).toBe('[fd00::2]');
	});
});

const unavailable = netnsUnavailable();
(unavailable ? describe.skip : describe)(
	`bound to an address of a network namespace this test makes (a container's host.docker.internal)${unavailable ? `: skipped, ${unavailable}` : ''}`,
	() => {
		let ns: Netns;
		let bound: SandboxEnv;
		beforeAll(async () => {
			ns = createNetns('edge');
			bound = await setup({ host: ns.hostAddress, publicHosts: ['host.docker.internal'] });
		});
		afterAll(async () => {
			await bound?.sb.close();
			ns?.remove();
		});
		/** curl inside the namespace (the container): the status and body. */
		async function fromInside(url: string, host?: string, post?: unknown): Promise<{ status: number; body: string }> {
			const args = [
				'curl',
				'-s',
				'--max-time',
				'20',
				'-H',
				`x-api-key: ${bound.sb.apiKey}`,
				...(host ? ['-H', `Host: ${host}`] : []),
				...(post === undefined ? [] : ['-H', 'content-type: application/json', '--data', JSON.stringify(post)]),
				'-w',
				'\n%{http_code}',
				url,
			];
			const { stdout } = await execFile(ns.execPrefix[0], [...ns.execPrefix.slice(1), ...args]);
			const at = stdout.lastIndexOf('\n');
			return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
		}

		it('the API answers the container at the bound address and at host.docker.internal; any other name gets 421', async () => {
			const port = portOf(bound.sb.mainUrl);
			expect(bound.sb.mainUrl).toBe(`http://${ns.hostAddress}:${port}`);
			// Four curls at once (each two processes): independent requests.
			const answers = await Promise.all([
				fromInside(`${bound.sb.mainUrl}/api/v1/supported-assets`),
				fromInside(`${bound.sb.rewardsUrl}/api/v1/rewards/rule-blocks`),
				fromInside(`${bound.sb.mainUrl}/api/v1/supported-assets`, `host.docker.internal:${port}`),
				fromInside(`${bound.sb.mainUrl}/api/v1/supported-assets`, `rebind.evil.example:${port}`),
			]);
			expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 421]);
		});

		it('the operator API and the console answer this machine only, not the container', async () => {
			expect((await fetch(`${bound.sb.operatorUrl}/state`)).status).toBe(200);
			expect((await fetch(`${bound.sb.mainUrl}/`)).status).toBe(200);
			const [operator, page] = await Promise.all([fromInside(`${bound.sb.operatorUrl}/state`), fromInside(`${bound.sb.mainUrl}/`)]);
			expect([operator.status, operator.body]).toEqual([
				403,
				JSON.stringify({ error: 'forbidden', message: 'operator API answers only clients on this machine' }),
			]);
			expect(page.status).toBe(403);
		});

		it("the container posts the examples' messages to the outbox at host.docker.internal, and cannot read it back", async () => {
			const port = portOf(bound.sb.mainUrl);
			const posted = await fromInside(`${bound.sb.mainUrl}/sandbox/outbox/payouts`, `host.docker.internal:${port}`, { created: 3 });
			expect(posted.status).toBe(201);
			const { messages } = (await (await fetch(`${bound.sb.operatorUrl}/outbox?channel=payouts`)).json()) as { messages: Array<{ body: unknown }> };
			expect(messages.map((m) => m.body)).toEqual([{ created: 3 }]);
			expect((await fromInside(`${bound.sb.mainUrl}/sandbox/outbox?channel=payouts`, `host.docker.internal:${port}`)).status).toBe(403);
			expect((await fromInside(`${bound.sb.operatorUrl}/orders/x/fund`, undefined, {})).status).toBe(403);
		});
	},
);

describe('loopback webhook targets only on the named ports', () => {
	let named: SandboxEnv;
	let n8n: Receiver;
	let other: Receiver;
	beforeAll(async () => {
		n8n = await new Receiver().start();
		other = await new Receiver().start();
		named = await setup({ allowLoopbackWebhooks: [portOf(n8n.url)], timeScale: 100_000, attemptTimeoutMs: 2_000 });
	});
	afterAll(async () => {
		await named.sb.close();
		await n8n.close();
		await other.close();
	});
	const register = (url: string) => named.api.post('/webhooks/endpoints', { url, description: 'x', eventTypes: ['payment_order'] });

	it.each([
		['another port on 127.0.0.1', () => `${other.url}/hook`],
		['another port on localhost', () => `http://localhost:${portOf(other.url)}/hook`],
		['another port on [::1]', () => `http://[::1]:${portOf(other.url)}/hook`],
		['another address of 127/8', () => `http://127.0.0.2:${portOf(other.url)}/hook`],
		['the default http port', () => 'http://127.0.0.1/hook'],
		['the named port over https? no: 443 is another port', () => 'https://localhost/hook'],
	])('%s is refused at registration (400, naming the flag)', async (_what, url) => {
		const r = await register(url());
		expect(r.status).toBe(400);
		expect(r.body).toMatchObject({ error: 'invalid_webhook_url', path: 'url' });
		expect(r.body.message).toContain(`delivers to loopback only on port ${portOf(n8n.url)} (--allow-loopback-webhooks=${portOf(n8n.url)})`);
	});

	it('the named port is accepted on 127.0.0.1 and localhost, and receives the delivery', async () => {
		expect((await register(`http://localhost:${portOf(n8n.url)}/hook`)).status).toBe(201);
		const e = await addEndpoint(named, `${n8n.url}/hook`);
		const o = await createOrder(named);
		await named.op.post('/webhooks/flush');
		await waitFor(() => n8n.received.find((r) => r.body?.data?.payment_order?.id === o.id));
		await named.api.del(`/webhooks/endpoints/${e.id}`);
	});

	it('an endpoint kept in a data file from a start with another port is not sent to: each attempt is refused', async () => {
		const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-edge-')), 'state.json');
		const before = await setup({ dataFile: file }); // every loopback port (in-process tests)
		const e = await addEndpoint(before, `${other.url}/hook`);
		await before.sb.close();
		const after = await setup({ dataFile: file, allowLoopbackWebhooks: [portOf(n8n.url)] });
		try {
			const ping = await after.api.post(`/webhooks/endpoints/${e.id}/test`);
			expect(ping.body).toMatchObject({ delivered: false, statusCode: null, error: expect.stringMatching(/^not sent: url points at loopback port \d+/) });
			await createOrder(after);
			await after.op.post('/webhooks/flush');
			const [d] = (await after.api.get(`/webhooks/deliveries?endpointId=${e.id}`)).body.deliveries;
			expect(d).toMatchObject({ lastStatusCode: null, lastError: expect.stringMatching(/^not sent: /) });
			expect(other.received).toEqual([]);
		} finally {
			await after.sb.close();
		}
	});
});

describe("of a receiver's answer only what the console words need is kept", () => {
	let receiver: Receiver;
	beforeAll(async () => {
		receiver = await new Receiver().start();
	});
	afterAll(() => receiver.close());

	it.each([
		['a text page with a token (a JSON string, not an object)', 200, '<html>admin token: tok_SECRET_123</html>', null],
		['JSON with other fields', 200, { token: 'tok_SECRET_123', data: [1] }, null],
		['JSON array', 500, ['tok_SECRET_123'], null],
		['the trigger’s drop', 200, { received: true, ignored: 'duplicate', token: 'tok_SECRET_123' }, { received: true, ignored: 'duplicate' }],
		['an error sentence', 401, { error: 'Unauthorized', extra: 'tok_SECRET_123' }, { error: 'Unauthorized' }],
		['n8n’s message', 200, { message: 'Workflow was started' }, { message: 'Workflow was started' }],
		['an ignored value that is not a reason token', 200, { received: true, ignored: 'tok SECRET 123 <b>' }, { received: true }],
	] as const)('%s (HTTP %d): only the fields the console words need are kept, over the public API too', async (_what, status, body, kept) => {
		receiver.respond = () => ({ status, body });
		const e = await addEndpoint(env, `${receiver.url}/${status}`);
		try {
			await createOrder(env);
			await env.op.post('/webhooks/flush');
			const d = await waitFor(async () =>
				(await env.api.get(`/webhooks/deliveries?endpointId=${e.id}&limit=1000`)).body.deliveries.find((x: any) => x.lastStatusCode !== null),
			);
			const full = (await env.api.get(`/webhooks/deliveries/${d.id}`)).body;
			expect(full.attempts[0].responseSnippet).toEqual(kept === null ? null : JSON.stringify(kept));
			expect(JSON.stringify(full)).not.toContain('tok_SECRET_123');
			expect(JSON.stringify((await env.op.get('/webhooks/attempts')).body)).not.toContain('tok_SECRET_123');
		} finally {
			await env.api.del(`/webhooks/endpoints/${e.id}`);
		}
	});

	it('keptAnswer: nothing of a page that is not JSON; a long sentence cut to 160 characters; a cut-off answer is not JSON', () => {
		expect(keptAnswer('<html>admin token: tok_SECRET_123</html>')).toBeNull();
		expect(JSON.parse(keptAnswer(JSON.stringify({ message: 'm'.repeat(500) }))!).message).toHaveLength(161);
		expect(keptAnswer('{"received":true')).toBeNull();
	});

	it('an answer over 4 KiB is read no further and kept as nothing', async () => {
		receiver.respond = () => ({ status: 200, body: { received: true, pad: 'x'.repeat(10_000) } });
		const e = await addEndpoint(env, `${receiver.url}/big`);
		try {
			await createOrder(env);
			await env.op.post('/webhooks/flush');
			const d = await waitFor(async () =>
				(await env.api.get(`/webhooks/deliveries?endpointId=${e.id}&limit=1000`)).body.deliveries.find((x: any) => x.lastStatusCode !== null),
			);
			expect(d.lastStatusCode).toBe(200);
			expect((await env.api.get(`/webhooks/deliveries/${d.id}`)).body.attempts[0].responseSnippet).toBeNull();
		} finally {
			await env.api.del(`/webhooks/endpoints/${e.id}`);
		}
	});
});
