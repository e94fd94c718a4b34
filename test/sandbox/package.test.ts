/**
 * The published sandbox package, n8n-nodes-clearinghouse-sandbox, as a user gets it: built
 * (`sandbox/build.sh`), packed with `npm pack`, installed from the tarball into an empty folder
 * (its dependencies from npm's cache, the registry only when missing), started through its bin with the
 * Node that runs this test (20 in CI's oldest leg) and no ts-node, then a few requests of the sandbox
 * suite against it: supported assets, a keyed payment order (repeated: one order), the list, the
 * operator API, the rewards API and the console; then through `npx` as users start it: --help, a flag
 * without its value, and SIGTERM to the npx process. CI runs this file on Linux, macOS and Windows too
 * (ci.yml, job sandbox-package); on Windows npm and the bin are .cmd files, run through the shell.
 * @slow: builds, packs and installs the sandbox package; test:fast leaves it out (scripts/test-fast.sh).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, walletOf } from '../../harness/sandboxClient';
import { waitFor } from '../../harness/wait';
import { ALL_STATUSES, sandboxImports, sandboxReady } from './support';

const ROOT = path.resolve(__dirname, '../..');
const rootPkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const NAME = 'n8n-nodes-clearinghouse-sandbox';

const windows = process.platform === 'win32';
let work: string;
let tarball: string;
let packed: string[];
let child: ChildProcess | undefined;

beforeAll(() => {
	work = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-package-'));
	execFileSync('bash', ['sandbox/build.sh', path.join(work, 'build')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
	const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work, path.join(work, 'build')], { cwd: work, encoding: 'utf8', shell: windows });
	const [pack] = JSON.parse(out);
	tarball = path.join(work, pack.filename);
	packed = pack.files.map((f: { path: string }) => f.path).sort();
}, 120_000);

afterAll(() => {
	child?.kill('SIGKILL');
	fs.rmSync(work, { recursive: true, force: true });
});

test('the tarball holds compiled JavaScript, the console, README and licence', () => {
	const stray = packed.filter((f) => !/^(package\.json|README\.md|LICENSE\.md|dist\/(.+\.js|console\/(index\.html|console\.js|console\.css)))$/.test(f));
	expect(stray).toEqual([]);
	expect(packed).toEqual(expect.arrayContaining(['dist/bin.js', 'dist/main.js', 'dist/server.js', 'dist/console/index.html']));
});

test('installed from the tarball into an empty folder, its bin serves the API, the operator API and the console', async () => {
	const app = path.join(work, 'app');
	fs.mkdirSync(app);
	fs.writeFileSync(path.join(app, 'package.json'), '{"name":"try-the-sandbox","private":true}\n');
	execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], {
		cwd: app,
		stdio: ['ignore', 'ignore', 'pipe'],
		shell: windows,
	});
	// Nothing but the package and its two dependencies: no TypeScript, no ts-node.
	expect(
		fs
			.readdirSync(path.join(app, 'node_modules'))
			.filter((n) => !n.startsWith('.'))
			.sort(),
	).toEqual([NAME, ...sandboxImports()].sort());
	// Its manifest, as installed: a public package with a bin, the nodes package's version and repository,
	// provenance on publish, and runtime dependencies that are exactly the sandbox's imports.
	const installed = path.join(app, 'node_modules', NAME);
	const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
	expect(manifest).toMatchObject({
		name: NAME,
		version: rootPkg.version,
		bin: { [NAME]: 'dist/bin.js' },
		publishConfig: { provenance: true, access: 'public' },
	});
	expect(manifest.repository.url).toBe(rootPkg.repository.url);
	expect(manifest.private).toBeUndefined();
	expect(Object.keys(manifest.dependencies).sort()).toEqual(sandboxImports());
	// The same versions as the development install, which every sandbox test runs against.
	for (const [dep, version] of Object.entries(manifest.dependencies)) expect([dep, version]).toEqual([dep, rootPkg.devDependencies[dep]]);
	expect(manifest.devDependencies).toBeUndefined();
	expect(fs.readFileSync(path.join(installed, 'dist', 'bin.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\r?\n/);

	child = spawn(
		path.join(app, 'node_modules', '.bin', windows ? `${NAME}.cmd` : NAME),
		['--port', '0', '--rewards-port', '0', '--api-key', 'sk_package_test'],
		{
			cwd: app,
			stdio: ['ignore', 'pipe', 'pipe'],
			shell: windows,
		},
	);
	const lines = (await sandboxReady(child)).split(/\r?\n/);
	// The credential's three values first, then the console's address.
	expect(lines[0]).toMatch(/^CLEARINGHOUSE_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
	expect(lines[1]).toMatch(/^CLEARINGHOUSE_REWARDS_URL=http:\/\/127\.0\.0\.1:\d+$/);
	expect(lines[2]).toBe('CLEARINGHOUSE_API_KEY=sk_package_test');
	const base = lines[0].split('=')[1];
	expect(lines.some((l) => l.startsWith(`Console:      ${base}/`))).toBe(true);

	const api = new Client(`${base}/api/v1`, 'sk_package_test');
	const op = new Client(`${base}/sandbox`);
	const assets = await api.get('/supported-assets');
	expect(assets.status).toBe(200);
	expect(JSON.stringify(assets.body)).toContain('USDC');
	expect((await new Client(`${base}/api/v1`, 'sk_wrong').get('/account/limits')).status).toBe(401);

	const state = (await op.get('/state')).body;
	const alice = state.users.find((u: any) => u.label === 'alice');
	const bob = state.users.find((u: any) => u.label === 'bob');
	const body = {
		fromUserId: alice.id,
		toAddress: walletOf(bob, 'ethereum'),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: 100,
		expiresAt: new Date(Date.now() + 3600_000).toISOString(),
		memo: 'package test',
		idempotencyKey: 'package-test-1',
	};
	const created = await api.post('/payment', body);
	expect(created.status).toBe(201);
	const id = created.body.paymentOrder.id;
	expect(created.body.paymentOrder.status).toBe('AWAITING_FUNDS');
	// The same key and body: the same order, not a second one.
	const again = await api.post('/payment', body);
	expect(again.body.paymentOrder.id).toBe(id);
	const list = await api.get(`/payment-orders?${ALL_STATUSES}`);
	expect(list.status).toBe(200);
	expect(JSON.stringify(list.body).split(id).length - 1).toBe(1);
	expect((await api.get(`/payment-orders?${ALL_STATUSES.replace('status=', 'nope=')}`)).status).toBe(400);
	expect((await api.get(`/payment-orders/${id}`)).body.status).toBe('AWAITING_FUNDS');

	expect((await new Client(`${lines[1].split('=')[1]}/api/v1`, 'sk_package_test').get('/rewards/rule-blocks')).status).toBe(200);
	const page = await fetch(`${base}/`);
	expect(page.status).toBe(200);
	expect(await page.text()).toContain('<script src="/console/console.js"></script>');
	expect((await fetch(`${base}/console/console.js`)).status).toBe(200);

	if (windows) return; // no SIGTERM there: afterAll ends it
	const code = await new Promise<number | null>((resolve) => {
		child!.removeAllListeners('exit');
		child!.on('exit', (c) => resolve(c));
		child!.kill('SIGTERM');
	});
	expect(code).toBe(0);
	child = undefined;
}, 120_000);

/** `npx <args>` in the folder the tarball was installed into (npm exec finds the local bin): exit code and output. */
function npx(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const run = spawn('npx', ['--no-install', NAME, ...args], { cwd: path.join(work, 'app'), shell: windows });
	let stdout = '';
	let stderr = '';
	run.stdout.on('data', (c) => (stdout += c));
	run.stderr.on('data', (c) => (stderr += c));
	return new Promise((resolve) => run.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Whether something accepts connections on the port of this URL. */
function listening(url: string): Promise<boolean> {
	const { hostname, port } = new URL(url);
	return new Promise((resolve) => {
		const socket = net.connect(Number(port), hostname);
		socket.once('connect', () => (socket.destroy(), resolve(true)));
		socket.once('error', () => resolve(false));
	});
}

test('npx n8n-nodes-clearinghouse-sandbox --help names the npx command and every flag', async () => {
	const { code, stdout } = await npx(['--help']);
	expect(code).toBe(0);
	expect(stdout).toContain('Usage: npx n8n-nodes-clearinghouse-sandbox [flags]');
	for (const flag of [
		'--port',
		'--rewards-port',
		'--host',
		'--public-host',
		'--api-key',
		'--seed',
		'--data-file',
		'--time-scale',
		'--allow-loopback-webhooks',
		'--resolve-webhook-hosts',
		'--log',
		'--help',
	])
		expect(stdout).toContain(flag);
}, 60_000);

test('a value flag without its value stops npx non-zero with a message naming the flag, before anything listens', async () => {
	const { code, stderr } = await npx(['--port', '0', '--api-key']);
	expect(code).not.toBe(0);
	expect(stderr).toContain('--api-key needs a value');
}, 60_000);

(windows ? test.skip : test)(
	'SIGTERM to the npx process frees both ports (npm passes it to its shell only; the sandbox follows npm)',
	async () => {
		const run = spawn('npx', ['--no-install', NAME, '--port', '0', '--rewards-port', '0'], { cwd: path.join(work, 'app'), stdio: ['ignore', 'pipe', 'pipe'] });
		child = run;
		const lines = (await sandboxReady(run)).split('\n');
		const urls = [lines[0].split('=')[1], lines[1].split('=')[1]];
		expect(await Promise.all(urls.map(listening))).toEqual([true, true]);
		run.kill('SIGTERM');
		await waitFor(async () => !(await listening(urls[0])) && !(await listening(urls[1])), 10_000, 'both sandbox ports to be free after SIGTERM to npx', 100);
		child = undefined;
	},
	60_000,
);
