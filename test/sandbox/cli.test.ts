/**
 * The CLI contract (first stdout lines, clean exit on signals) and the data file.
 * @slow: starts the CLI under ts-node several times; test:fast leaves it out (scripts/test-fast.sh).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createOrder, SandboxEnv, getOrder, paymentBody, setup, startCli } from './support';
import { Client } from '../../harness/sandboxClient';

/** The CLI run to its end: exit code and output. */
function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'sandbox/main.ts', ...args], { cwd: path.resolve(__dirname, '../..') });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (c) => (stdout += c));
	child.stderr.on('data', (c) => (stderr += c));
	return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The CLI's stdout lines, once it is ready. */
async function startCliLines(args: string[]): Promise<{ lines: string[]; child: ChildProcess }> {
	const { out, child } = await startCli(args);
	return { lines: out.split('\n'), child };
}

describe('CLI', () => {
	it('prints the base URLs and key first, then SANDBOX_READY, serves, and exits cleanly on SIGTERM', async () => {
		const { lines, child } = await startCliLines(['--port', '0', '--rewards-port', '0', '--api-key', 'sk_cli_test', '--time-scale', '10']);
		expect(lines[0]).toMatch(/^CLEARINGHOUSE_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
		expect(lines[1]).toMatch(/^CLEARINGHOUSE_REWARDS_URL=http:\/\/127\.0\.0\.1:\d+$/);
		expect(lines[2]).toBe('CLEARINGHOUSE_API_KEY=sk_cli_test');
		expect(lines[3]).toBe('SANDBOX_READY');
		const base = lines[0].split('=')[1];
		const api = new Client(base + '/api/v1', 'sk_cli_test');
		expect((await api.get('/supported-assets')).status).toBe(200);
		expect((await new Client(lines[1].split('=')[1] + '/api/v1', 'sk_cli_test').get('/rewards/rule-blocks')).status).toBe(200);
		// The browser console: printed, and served on the main origin with its script and styles.
		expect(lines).toContain(`Console:      ${base}/   (in a browser: orders, wallets, deliveries; fund, settle, replay with a click)`);
		for (const [path, type] of [
			['/', 'text/html'],
			['/console/console.js', 'text/javascript'],
			['/console/console.css', 'text/css'],
		]) {
			const page = await fetch(base + path);
			expect([path, page.status, page.headers.get('content-type')?.split(';')[0]]).toEqual([path, 200, type]);
		}
		expect(await (await fetch(base + '/')).text()).toContain('<script src="/console/console.js"></script>');
		const code = await new Promise<number | null>((resolve) => {
			child.on('exit', (c) => resolve(c));
			child.kill('SIGTERM');
		});
		expect(code).toBe(0);
	}, 40_000);

	it.each([
		[['--nope'], 'unknown flag --nope'],
		[['--port', '0', '--api-key'], '--api-key needs a value'],
		[['--data-file'], '--data-file needs a value'],
	])(
		'refuses %j before starting: exit code 2 and a message naming the flag',
		async (args, message) => {
			const { code, stdout, stderr } = await runToExit(args);
			expect([code, stdout]).toEqual([2, '']);
			expect(stderr).toContain(message);
			expect(stderr).toContain('npx n8n-nodes-clearinghouse-sandbox --help');
		},
		40_000,
	);

	it('prints the help for --help and exits 0 without starting', async () => {
		const { code, stdout } = await runToExit(['--help', '--port', '1']);
		expect(code).toBe(0);
		expect(stdout).toMatch(/^Usage: npx n8n-nodes-clearinghouse-sandbox \[flags\]\n/);
		expect(stdout).toContain('--log');
	}, 40_000);
});

/** Stops a CLI process and waits for it to exit. */
function stopCli(child: ChildProcess): Promise<number | null> {
	if (child.exitCode !== null) return Promise.resolve(child.exitCode);
	return new Promise((resolve) => {
		child.on('exit', (c) => resolve(c));
		child.kill('SIGTERM');
	});
}

describe('--host beyond loopback', () => {
	it('0.0.0.0 starts: loopback URLs for this machine, the seed read, the URL a container uses printed', async () => {
		const { lines, child } = await startCliLines(['--port', '0', '--rewards-port', '0', '--host', '0.0.0.0']);
		try {
			expect(lines[0]).toMatch(/^CLEARINGHOUSE_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
			expect(lines[1]).toMatch(/^CLEARINGHOUSE_REWARDS_URL=http:\/\/127\.0\.0\.1:\d+$/);
			const [mainPort, rewardsPort] = [lines[0], lines[1]].map((l) => new URL(l.split('=')[1]).port);
			expect(lines).toContainEqual(expect.stringMatching(/^User alice: id /));
			expect(lines).toContain(
				`n8n in Docker: Base URL http://host.docker.internal:${mainPort}, Rewards URL http://host.docker.internal:${rewardsPort} (start the sandbox with --public-host host.docker.internal first); on Linux run the container with --add-host=host.docker.internal:host-gateway`,
			);
			expect((await new Client(lines[0].split('=')[1] + '/api/v1', 'sk_sandbox_demo_key').get('/supported-assets')).status).toBe(200);
			expect((await fetch(`${lines[0].split('=')[1]}/sandbox/state`)).status).toBe(200);
		} finally {
			expect(await stopCli(child)).toBe(0);
		}
	}, 40_000);

	(process.platform === 'linux' ? it : it.skip)(
		'a specific address (127.0.0.2, a second loopback address on Linux) starts and is its own URL',
		async () => {
			const { lines, child } = await startCliLines(['--port', '0', '--rewards-port', '0', '--host', '127.0.0.2']);
			try {
				expect(lines[0]).toMatch(/^CLEARINGHOUSE_BASE_URL=http:\/\/127\.0\.0\.2:\d+$/);
				expect((await fetch(`${lines[0].split('=')[1]}/sandbox/state`)).status).toBe(200);
			} finally {
				expect(await stopCli(child)).toBe(0);
			}
		},
		40_000,
	);
});

describe('data file', () => {
	const newDataFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-')), 'state.json');
	/** A second sandbox started on the data file the first one left, closed after `check`. */
	async function restartedOn(file: string, check: (b: SandboxEnv) => Promise<void>): Promise<void> {
		const b = await setup({ dataFile: file });
		try {
			await check(b);
		} finally {
			await b.sb.close();
		}
	}

	it('saves on close and loads at start', async () => {
		const file = newDataFile();
		const a = await setup({ dataFile: file });
		const created = await a.api.post('/payment', paymentBody(a, { idempotencyKey: 'persist-1' }));
		expect(created.status).toBe(201);
		await a.sb.close();
		expect(fs.existsSync(file)).toBe(true);
		await restartedOn(file, async (b) => {
			const got = await b.api.get(`/payment-orders/${created.body.paymentOrderId}`);
			expect(got.status).toBe(200);
			expect(got.body.status).toBe('AWAITING_FUNDS');
			const replay = await b.api.post('/payment', paymentBody(a, { idempotencyKey: 'persist-1' }));
			expect(replay.status).toBe(409); // same key, different body (a new expiresAt): the key survived the restart
		});
	});

	it('re-arms the waits in progress once at start: a cancel requested before the restart settles after it', async () => {
		const file = newDataFile();
		const a = await setup({ dataFile: file });
		const order = await createOrder(a);
		expect((await a.api.post(`/payment-orders/${order.id}/cancel`, {})).status).toBe(202);
		await a.sb.close(); // before the cancel's 5 s settle
		await restartedOn(file, async (b) => {
			expect((await getOrder(b, order.id)).status).toBe('AWAITING_FUNDS');
			// The only wait due within 10 s is the cancel's settle: armed once, so one task runs.
			const advanced = await b.op.post('/clock/advance', { seconds: 10 });
			expect(advanced.body.tasksRun).toBe(1);
			expect((await getOrder(b, order.id)).status).toBe('CANCELED');
		});
	});

	it('loads a data file written before Order.internal had its name (orders keep it under x)', async () => {
		const file = newDataFile();
		const a = await setup({ dataFile: file });
		const order = await createOrder(a);
		await a.sb.close();
		const data = JSON.parse(fs.readFileSync(file, 'utf8'));
		for (const o of data.orders) {
			o.x = o.internal;
			delete o.internal;
		}
		fs.writeFileSync(file, JSON.stringify(data));
		await restartedOn(file, async (b) => {
			expect((await getOrder(b, order.id)).status).toBe('AWAITING_FUNDS');
			const operatorView = await b.op.get(`/payment-orders/${order.id}`);
			expect(operatorView.body.x).toMatchObject({ accountId: a.state.accountId, returnRevision: 0 });
			expect(operatorView.body.internal).toBeUndefined();
		});
	});
});
