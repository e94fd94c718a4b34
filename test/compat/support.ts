/**
 * The compatibility suite, run once per n8n version (test/compat/compat.test.ts): the packed package installed into that n8n's
 * user folder as a user's install would be, both nodes and the credential used by real runs
 * against the sandbox. Create with a business key (twice: one order), Get Many with Return All
 * over several pages, an API error under Continue On Fail, and the trigger verifying a signed
 * delivery in a running n8n (and refusing a forged one).
 *
 * The runtime is chosen through the environment the n8n harness (harness/) reads (N8N_BIN, RUNTIME_NODE_DIR),
 * so the same harness runs n8n 1.x and 2.x; what differs between the lines is in lineEnv() and activate().
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { nodeItems } from '../../harness/executions';
import { N8nRest } from '../../harness/n8nRest';
import { N8nInstance, sleep } from '../../harness/n8nProcess';
import { sandboxCredential, startSandbox, type SandboxHandle } from '../../harness/sandbox';
import { maskedSecret, SandboxClient } from '../../harness/sandboxClient';
import { repoRoot, runtime } from '../../harness/runtime';
import { action, chain, graph, TRIGGER_NODE } from '../../harness/workflows';
import { PAYMENT_ORDER_STATUSES } from '../../nodes/shared/paymentOrderStatus';

/** The n8n the suite runs: what scripts/runtime.sh installed for the version (or dist-tag) asked. */
export interface CompatRuntime {
	/** What was asked: a version, an npm dist-tag such as `latest`, or '' (the pinned version). */
	spec: string;
	/** The version installed (a dist-tag resolved on the registry). */
	version: string;
	major: number;
}

/**
 * Installs (when missing) and selects the n8n of `spec` through scripts/runtime.sh, the project's one
 * installer, and points the harness at it (N8N_BIN, RUNTIME_NODE_DIR). The Node it runs on is the
 * script's choice for that line (22 for 1.x, 24 for 2.x).
 */
function useRuntime(spec: string): CompatRuntime {
	const out = execFileSync(
		'bash',
		['-c', 'source scripts/runtime.sh >/dev/null && echo "$N8N_BIN" && echo "$RUNTIME_NODE_DIR" && echo "$N8N_RUNTIME_VERSION"'],
		{
			cwd: repoRoot,
			encoding: 'utf8',
			env: { ...process.env, CLEARINGHOUSE_N8N_VERSION: spec },
			stdio: ['ignore', 'pipe', 'inherit'],
			timeout: 40 * 60_000,
		},
	);
	const [bin, nodeDir, version] = out.trim().split('\n');
	process.env.N8N_BIN = bin;
	process.env.RUNTIME_NODE_DIR = nodeDir;
	return { spec, version, major: Number(version.split('.')[0]) };
}

/** Extra environment per n8n line. */
function lineEnv(rt: CompatRuntime): Record<string, string> {
	// A read pool puts 1.x's SQLite in WAL mode (2.x's default), so the suite can read executions
	// while n8n writes; without it a read meets "database is locked".
	return rt.major < 2 ? { DB_SQLITE_POOL_SIZE: '2' } : {};
}

/**
 * Activates a workflow in the running n8n, as a user does from the editor: that is when the
 * trigger's create() registers its endpoint (at start-up n8n calls no webhook method).
 */
async function activate(rt: CompatRuntime, n8n: N8nInstance, id: string): Promise<void> {
	// 2.x: a running n8n picks up publish:workflow at its next reconcile.
	if (rt.major >= 2) return await n8n.publish(id);
	// 1.x has no publish:workflow, and its update:workflow is read only at start: activate through
	// the editor's REST call instead. 1.x answers /healthz/readiness before it has mounted its REST
	// controllers (404 until then; a connection may also be reset meanwhile, seen once under load).
	const restStatus = async () => {
		try {
			const response = await fetch(`${n8n.baseUrl}/rest/settings`);
			await response.arrayBuffer();
			return response.status;
		} catch {
			return 0;
		}
	};
	const deadline = Date.now() + 60_000;
	while ((await restStatus()) !== 200) {
		if (Date.now() > deadline) throw new Error('n8n mounted no REST API within 60 s');
		await sleep(250);
	}
	const rest = new N8nRest(n8n.baseUrl);
	await rest.setupOwner('owner@compat.test', 'Compat-Suite-Passw0rd');
	const { data } = await rest.call<{ data: { versionId: string } }>('GET', `/workflows/${id}`);
	try {
		await rest.call('POST', `/workflows/${id}/activate`, { versionId: data.versionId });
	} catch (error) {
		// Older 1.x has no activate route: the editor saves the workflow with `active: true`.
		if (!/→ 404 /.test((error as Error).message)) throw error;
		await rest.call('PATCH', `/workflows/${id}`, { active: true, versionId: data.versionId });
	}
}

/** The suite for one n8n version or dist-tag ('' for the pinned one); `npm run test:compat` runs it per version. */
export function compatSuite(spec: string): void {
	describe(`the packed package in n8n ${spec || '(pinned)'}`, () => {
		let rt: CompatRuntime;
		let sandbox: SandboxHandle;
		let operator: SandboxClient;
		let n8n: N8nInstance;
		let alice: any;
		let bob: any;
		const run = randomBytes(4).toString('hex');
		const businessKey = `compat-${spec || 'pinned'}-${run}`;
		const ids = { orders: 'compatOrders0001', error: 'compatError00001', trigger: 'compatTrigger001' };
		const webhookId = `c0a7c0a7-0000-4000-8000-${randomBytes(6).toString('hex')}`;
		const webhookPath = `${webhookId}/webhook`;

		const execute = async (id: string) => {
			const result = await n8n.execute(id);
			if (result.code !== 0 || !result.run) {
				throw new Error(`n8n execute ${id} ended with ${result.code ?? result.signal}\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-3000)}`);
			}
			return result;
		};
		const ordersFrom = async (userId: string) =>
			(await operator.api<{ paymentOrders: any[] }>('GET', `/payment-orders?fromUserId=${userId}&limit=1000&status=${PAYMENT_ORDER_STATUSES.join(',')}`))
				.paymentOrders;

		beforeAll(async () => {
			rt = useRuntime(spec);
			expect(runtime().version).toBe(rt.version);
			if (/^\d+\.\d+\.\d+$/.test(spec)) expect(rt.version).toBe(spec);
			// Time runs 2x, as in the e2e trigger suite: the sandbox's delivery timeout stays above
			// n8n's answer time on a busy machine.
			sandbox = await startSandbox({ allowLoopbackWebhooks: true, timeScale: 2 });
			operator = new SandboxClient(sandbox);
			[alice, bob] = (await operator.state()).users;
			// Orders to page through: with Page Size 2 these take several pages.
			for (let i = 0; i < 4; i++) await operator.createOrder(1 + i, `compat seed ${i}`, `compat-seed-${run}-${i}`);

			n8n = await N8nInstance.create({ env: lineEnv(rt) });
			const credential = sandboxCredential(sandbox);
			await n8n.importCredential(credential);
			const ref = { id: credential.id, name: credential.name };
			const bobWallet = bob.wallets[0];
			const payment = {
				mode: 'standard',
				fromUserId: alice.id,
				toAddress: bobWallet.address,
				toChain: bobWallet.chain,
				asset: 'USDC',
				amountUsd: '12.34',
				expiry: 'at',
				expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
				memo: `compat ${run}`,
			};
			await n8n.importWorkflows([
				chain(
					ids.orders,
					'compat: create with a business key, list all',
					[
						action('Create', 'paymentOrder', 'create', { ...payment, idempotencyKeyMode: 'custom', idempotencyKey: businessKey }),
						action('List all', 'paymentOrder', 'getMany', { returnAll: true, filters: { fromUserId: alice.id }, options: { pageSize: 2 } }),
					],
					ref,
				),
				chain(
					ids.error,
					'compat: an API error under Continue On Fail',
					[
						action(
							'Create for nobody',
							'paymentOrder',
							'create',
							{ ...payment, fromUserId: `usr_missing_${run}`, idempotencyKeyMode: 'custom', idempotencyKey: `${businessKey}-missing` },
							{ onError: 'continueRegularOutput' },
						),
						{ name: 'After', type: 'n8n-nodes-base.noOp', typeVersion: 1 },
					],
					ref,
				),
				graph(
					ids.trigger,
					'compat: payment-order events',
					[
						{ name: 'Clearinghouse Trigger', type: TRIGGER_NODE, webhookId, parameters: {} },
						{ name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1 },
					],
					[['Clearinghouse Trigger', 'Received']],
					ref,
				),
			]);
		});

		afterAll(async () => {
			await n8n?.dispose();
			await sandbox?.close();
		});

		test("the Node this n8n runs on is within the package's engines.node", () => {
			const [major, minor] = execFileSync(runtime().node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim().split('.').map(Number);
			const [floorMajor, floorMinor] = enginesFloor();
			expect(major > floorMajor || (major === floorMajor && minor >= floorMinor)).toBe(true);
		});

		test('Create with a business key makes one order, and the same key in a second execution returns it', async () => {
			const first = await execute(ids.orders);
			const [created] = nodeItems(first.run!.data, 'Create');
			// Flat, as Get returns it.
			expect(created).toMatchObject({ id: created.paymentOrderId, status: 'AWAITING_FUNDS', amountUsd: 12.34, idempotencyKey: businessKey });

			const second = await execute(ids.orders);
			expect(nodeItems(second.run!.data, 'Create')[0].paymentOrderId).toBe(created.paymentOrderId);
			const withMemo = (await ordersFrom(alice.id)).filter((o) => o.memo === `compat ${run}`);
			expect(withMemo.map((o) => o.id)).toEqual([created.paymentOrderId]);
		});

		test('Get Many with Return All returns every order across pages', async () => {
			const mark = await operator.mark();
			const result = await execute(ids.orders);
			const listed = nodeItems(result.run!.data, 'List all');
			const expected = await ordersFrom(alice.id);
			expect(expected.length).toBeGreaterThanOrEqual(5);
			expect(listed.map((o) => o.id).sort()).toEqual(expected.map((o) => o.id).sort());
			const pages = (await operator.requests(mark)).filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/payment-orders'));
			expect(pages.length).toBeGreaterThanOrEqual(3);
			// The credential reached the service: every request carried the key.
			// (The request log keeps it masked: its last characters and a fingerprint, sandbox/traffic.ts.)
			for (const page of pages) expect(page.headers['x-api-key']).toBe(maskedSecret(sandbox.apiKey));
		});

		test('an API error under Continue On Fail becomes the item and the run goes on', async () => {
			const mark = await operator.mark();
			const result = await execute(ids.error);
			const [item] = nodeItems(result.run!.data, 'Create for nobody');
			expect(String(item.error)).toMatch(/\S/);
			expect(nodeItems(result.run!.data, 'After')).toHaveLength(1);
			const posts = (await operator.requests(mark)).filter((r) => r.method === 'POST');
			expect(posts).toHaveLength(1);
			expect(posts[0].status).toBeGreaterThanOrEqual(400);
		});

		test('the trigger registers its endpoint, runs on a signed delivery and refuses a forged one', async () => {
			await n8n.start();
			await activate(rt, n8n, ids.trigger);
			await n8n.waitForWebhook(webhookPath, true, 60_000);
			// The webhook path can be live a moment before create() has registered the endpoint.
			const liveEndpoints = async () => (await operator.api<{ endpoints: any[] }>('GET', '/webhooks/endpoints')).endpoints.filter((e) => !e.deletedAt);
			let endpoints = await liveEndpoints();
			for (const deadline = Date.now() + 60_000; endpoints.length === 0 && Date.now() < deadline; endpoints = await liveEndpoints()) await sleep(250);
			expect(endpoints.map((e) => e.url)).toEqual([n8n.webhookUrl(webhookPath)]);

			// A forged signature: refused before any run starts.
			const forged = await fetch(n8n.webhookUrl(webhookPath), {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-service-webhook-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
				body: JSON.stringify({ id: 'evt_forged_payment_order', type: 'payment_order', data: {} }),
			});
			expect(forged.status).toBe(401);

			const order = await operator.createOrder(7.25, 'compat trigger', `compat-trigger-${run}`);
			const deadline = Date.now() + 90_000;
			let received: Record<string, any> | undefined;
			while (!received && Date.now() < deadline) {
				await operator.call('POST', 'webhooks/flush');
				received = n8n
					.finishedExecutions(ids.trigger)
					.filter((e) => e.status === 'success')
					.flatMap((e) => nodeItems(e.data, 'Clearinghouse Trigger'))
					.find((i: any) => i.paymentOrder?.id === order.id);
				if (!received) await sleep(500);
			}
			expect(received).toMatchObject({ type: 'payment_order', paymentOrder: { id: order.id, status: 'AWAITING_FUNDS' } });
			expect(String(received!.eventId)).toMatch(/^evt_/);
			// Only signed deliveries ran: the forged event never did.
			const all = n8n.finishedExecutions(ids.trigger).flatMap((e) => nodeItems(e.data, 'Clearinghouse Trigger'));
			expect(all.some((i: any) => i.eventId === 'evt_forged_payment_order')).toBe(false);
		});
	});
}

/** The `engines.node` floor of package.json (">=X.Y"), checked against the Node a runtime uses. */
function enginesFloor(): [number, number] {
	const range = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
	const match = /^>=(\d+)\.(\d+)$/.exec(range);
	if (!match) throw new Error(`engines.node is "${range}"; this check reads only ">=X.Y"`);
	return [Number(match[1]), Number(match[2])];
}
