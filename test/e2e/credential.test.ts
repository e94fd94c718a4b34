/**
 * The credential's Test button in a real n8n: `POST /rest/credentials/test` after owner setup, as
 * the editor sends it, for every Base URL form the README accepts, and with a wrong key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';

import { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { maskedSecret } from '../../harness/sandboxClient';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';

jest.setTimeout(240_000);

describe('credential Test button inside n8n', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let cookie = '';
	const credential = () => sandboxCredential(stage.sandbox);
	// n8n binds its auth cookie to the browser-id header of the login.
	const browser = { 'browser-id': 'e2e-credential-test' };

	async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; setCookie: string[] }> {
		const response = await fetch(`${n8n.baseUrl}/rest${path}`, {
			method,
			headers: { ...browser, 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		return { status: response.status, json: text ? JSON.parse(text) : undefined, setCookie: response.headers.getSetCookie() };
	}

	/** What the editor sends when Test is pressed on the stored credential with edited fields. */
	async function pressTest(data: Record<string, unknown>): Promise<{ status: string; message: string }> {
		const { id, name, type } = credential();
		const r = await rest('POST', '/credentials/test', { credentials: { id, name, type, data } });
		if (r.status !== 200) throw new Error(`POST /rest/credentials/test → ${r.status} ${JSON.stringify(r.json)}`);
		return r.json.data;
	}

	beforeAll(async () => {
		stage = await startSandboxStage();
		n8n = await N8nInstance.create();
		await n8n.importCredential(credential());
		await n8n.start();
		const setup = await rest('POST', '/owner/setup', {
			email: 'owner@clearinghouse-nodes.dev',
			firstName: 'E2e',
			lastName: 'Owner',
			password: 'E2e-owner-password-1',
		});
		if (setup.status !== 200) throw new Error(`owner setup → ${setup.status} ${JSON.stringify(setup.json)}`);
		cookie = setup.setCookie.map((c) => c.split(';')[0]).join('; ');
		expect(cookie).toContain('n8n-auth=');
	});

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test.each([
		['the origin', ''],
		['a trailing slash', '/'],
		['the /api/v1 suffix', '/api/v1'],
		['the /api/v1/ suffix with a slash', '/api/v1/'],
	])('Base URL with %s passes, and asks GET /api/v1/account/limits once', async (_what, suffix) => {
		const mark = await stage.operator.mark();
		const result = await pressTest({ ...credential().data, baseUrl: `${stage.sandbox.mainUrl}${suffix}` });
		expect(result).toMatchObject({ status: 'OK' });
		const requests = await stage.operator.requests(mark);
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /api/v1/account/limits 200']);
		expect(requests[0].headers['x-api-key']).toBe(maskedSecret(stage.sandbox.apiKey));
	});

	test('a wrong key fails the test (the sandbox answers 401 to every ask)', async () => {
		const mark = await stage.operator.mark();
		const result = await pressTest({ ...credential().data, apiKey: 'sk_wrong_key' });
		expect(result.status).toBe('Error');
		// n8n may ask more than once before it reports the failure; every ask is refused.
		const requests = await stage.operator.requests(mark);
		expect(requests.length).toBeGreaterThan(0);
		expect(new Set(requests.map((r) => `${r.method} ${r.path} ${r.status}`))).toEqual(new Set(['GET /api/v1/account/limits 401']));
	});

	test('a Base URL the nodes refuse (a ? part here; http:// to another machine alike) fails the test without reaching it', async () => {
		const mark = await stage.operator.mark();
		const result = await pressTest({ ...credential().data, baseUrl: `${stage.sandbox.mainUrl}?region=eu` });
		expect(result.status).toBe('Error');
		// n8n shows only the code here (the node's own error names the Base URL rule): what matters is
		// that the key went nowhere.
		expect(result.message).toBe('ENOTFOUND');
		expect(await stage.operator.requests(mark)).toEqual([]);
	});

	test('a redirect is not followed: the key never reaches the Location, another origin (issue 46)', async () => {
		const reached: Array<{ path: string; key: unknown }> = [];
		const elsewhere = createServer((req, res) => {
			reached.push({ path: req.url ?? '', key: req.headers['x-api-key'] });
			res.writeHead(200, { 'content-type': 'application/json', 'x-clearinghouse-sandbox': '1' }).end('{}');
		});
		await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
		const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
		const asked: string[] = [];
		const redirecting = createServer((req, res) => {
			asked.push(req.url ?? '');
			res.writeHead(302, { location: `${elsewhereUrl}${req.url ?? '/'}` }).end();
		});
		await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
		try {
			const result = await pressTest({ ...credential().data, baseUrl: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}` });
			expect(result.status).toBe('Error');
			expect(asked.length).toBeGreaterThan(0);
			expect(reached).toEqual([]);
		} finally {
			await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
			await new Promise<void>((resolve) => redirecting.close(() => resolve()));
		}
	});

	describe('http:// to another machine (a listener on a non-loopback address of this one)', () => {
		let listener: Server | undefined;
		const asked: Array<{ path: string; key: unknown }> = [];
		let url = '';
		beforeAll(async () => {
			const address = Object.values(networkInterfaces())
				.flatMap((list) => list ?? [])
				.find((a) => a.family === 'IPv4' && !a.internal)?.address;
			if (!address) return;
			listener = createServer((req, res) => {
				asked.push({ path: req.url ?? '', key: req.headers['x-api-key'] });
				res.writeHead(200, { 'content-type': 'application/json', 'x-clearinghouse-sandbox': '1' }).end('{}');
			});
			await new Promise<void>((resolve) => listener!.listen(0, address, resolve));
			url = `http://${address}:${(listener.address() as AddressInfo).port}`;
		});
		afterAll(() => new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve())));

		test('Production (the default) never sends the key there; Local Sandbox (n8n in Docker reaching the host) tests it', async () => {
			if (!listener) return console.warn('no non-loopback IPv4 address on this machine: nothing to listen on, test skipped');
			for (const environment of ['production', undefined]) {
				const result = await pressTest({ ...credential().data, baseUrl: url, environment });
				expect(result).toMatchObject({ status: 'Error', message: 'ENOTFOUND' });
			}
			expect(asked).toEqual([]);
			const result = await pressTest({ ...credential().data, baseUrl: url, environment: 'sandbox' });
			expect(result).toMatchObject({ status: 'OK' });
			expect(asked).toEqual([{ path: '/api/v1/account/limits', key: stage.sandbox.apiKey }]);
		});
	});
});
