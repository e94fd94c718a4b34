/** The sandbox's network edge: every answer marks itself as the sandbox's. */
import * as net from 'node:net';
import { SANDBOX_HEADER } from '../../sandbox/router';
import { Env, setup } from './helpers';

let env: Env;
beforeAll(async () => {
	env = await setup();
});
afterAll(() => env.sb.close());

/** The head of the answer to raw request bytes on their own connection. */
function rawHead(port: number, bytes: string): Promise<string> {
	return new Promise((resolve) => {
		const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
		let got = '';
		s.on('data', (c) => (got += c.toString('latin1')));
		s.on('close', () => resolve(got.split('\r\n\r\n')[0]));
		s.on('error', () => resolve(got));
	});
}

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

	it('and so does the answer to a malformed request, which no handler sees', async () => {
		for (const url of [env.sb.mainUrl, env.sb.rewardsUrl]) {
			const head = await rawHead(Number(new URL(url).port), 'FOO / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
			expect(head).toMatch(/^HTTP\/1\.1 400 /);
			expect(head.toLowerCase()).toContain(`\r\n${SANDBOX_HEADER}: 1`);
		}
	});
});
