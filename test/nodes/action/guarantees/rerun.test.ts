/**
 * Re-runs a person starts, inside n8n-core's real contexts against the sandbox: the
 * Business Key default, Derived keys refused in editor and sub-workflow runs off the sandbox, node
 * identity under "Retry with currently saved workflow", a Business Key batch finished after a failure,
 * `created` by lineage, and replayed answers read anew. The real-n8n proof: test/e2e/rerun.test.ts.
 * @slow: many full node runs in n8n-core's contexts; test:fast leaves it out (scripts/test-fast.sh).
 */
import { ExecuteContext } from 'n8n-core';
import { createRunExecutionData } from 'n8n-workflow';

import { Clearinghouse } from '../../../../nodes/Clearinghouse/Clearinghouse.node';
import { LINEAGE_CUSTOM_DATA_KEY } from '../../../../nodes/shared/idempotency';
import { Receiver } from '../../../../harness/receiver';
import { runNode } from '../../../../harness/n8nContexts';
import { walletOf } from '../../../../harness/sandboxClient';
import { json, node, orderCount, payment, UNKNOWN_WALLET, useEnv } from '../support';

const env = useEnv();

const posts = async () => (await env.requests()).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
/** Payment parameters as a new node has them: no Idempotency Key choice saved. */
const newPayment = (extra = {}) => {
	const params = payment(env, extra);
	delete params.idempotencyKeyMode;
	return params;
};

describe('Idempotency Key defaults to a Business Key', () => {
	test('a new node without a mapped key fails before sending, naming Business Key', async () => {
		await expect(env.run(newPayment())).rejects.toThrow('Business Key must not be empty');
		expect(await env.requests()).toEqual([]);
	});

	test('with Map Automatically the key is read from the input field `reference` by default', async () => {
		const item = {
			fromUserId: env.alice.id,
			toAddress: walletOf(env.bob, 'ethereum'),
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: '5',
			reference: 'INV-auto-1',
		};
		const [out] = json(await env.run(newPayment({ dataMode: 'autoMapInputData' }), { items: [{ json: item }] }));
		expect(out).toMatchObject({ idempotencyKey: 'INV-auto-1', created: true });
	});

	test("the panel: Business Key the default, Derived's one-line warning; one version, no version condition", () => {
		const modes = node.description.properties.filter(
			(p) => p.name === 'idempotencyKeyMode' && (p.displayOptions?.show?.operation as string[]).includes('create'),
		);
		const create = modes.find((p) => (p.displayOptions?.show?.resource as string[]).includes('paymentOrder'))!;
		expect(create.default).toBe('custom');
		const derived = (create.options as Array<{ value: string; description: string }>).find((o) => o.value === 'derived')!;
		expect(derived.description).toMatch(/a new run pays again/);
		expect(new Clearinghouse().description.version).toBe(1);
		expect(new Clearinghouse().description.defaultVersion).toBeUndefined();
		expect(JSON.stringify(node.description.properties)).not.toContain('@version');
	});
});

describe('Derived keys in runs a person repeats by hand', () => {
	const offSandbox = { apiKey: 'k', baseUrl: 'https://api.clearinghouse.example' };
	test.each([
		['manual', 'started in the editor'],
		['integrated', 'started as a sub-workflow'],
	] as const)('refused in a %s run with a Production credential, before anything is sent', async (mode, said) => {
		const run = runNode(node, { parameters: payment(env), credentials: offSandbox, mode });
		await expect(run).rejects.toMatchObject({
			message: expect.stringContaining(`Derived idempotency keys are refused in a run ${said}`),
			description: expect.stringMatching(/Business Key.*Allow Derived Keys in Editor and Sub-Workflow Runs/),
		});
	});

	test('also for the other keyed writes', async () => {
		const ruleset = {
			resource: 'receiveRuleset',
			operation: 'create',
			idempotencyKeyMode: 'derived',
			deliveredAsset: 'USDC',
			deliveredChain: 'ethereum',
			toAddress: '0x1',
		};
		await expect(runNode(node, { parameters: ruleset, credentials: offSandbox, mode: 'manual' })).rejects.toThrow(/refused/);
	});

	test('allowed when the user opts in (the request is then attempted), with a Business Key, and with a Local Sandbox credential at the sandbox', async () => {
		// 0.0.0.0:9 is not loopback by the rule and refuses connections at once: no refusal, a transport error.
		const closed = { apiKey: 'k', baseUrl: 'https://0.0.0.0:9' };
		const optedIn = runNode(node, { parameters: payment(env, { allowDerivedInNewRuns: true }), credentials: closed, mode: 'manual' });
		await expect(optedIn).rejects.not.toThrow(/refused in a run/);
		const [out] = json(await env.run(payment(env), { mode: 'manual' })); // the sandbox on 127.0.0.1
		expect(out.created).toBe(true);
		const [sub] = json(await env.run(payment(env), { mode: 'integrated' }));
		expect(sub.created).toBe(true);
	}, 30_000);

	test('a loopback Base URL is no exemption: a Production credential at the sandbox on this computer is refused, nothing sent', async () => {
		for (const environment of [undefined, 'production'] as const) {
			const credentials = { apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl, environment };
			await expect(runNode(node, { parameters: payment(env), credentials, mode: 'manual' })).rejects.toThrow(
				/Derived idempotency keys are refused in a run started in the editor/,
			);
		}
		expect(await env.requests()).toEqual([]);
	});

	test('a Local Sandbox credential whose server does not answer as the sandbox (a local proxy to production) gets no write', async () => {
		const proxy = await new Receiver().start();
		try {
			const credentials = { apiKey: env.sb.apiKey, baseUrl: proxy.url, environment: 'sandbox' as const };
			await expect(runNode(node, { parameters: payment(env), credentials, mode: 'manual' })).rejects.toMatchObject({
				// Create's first request is its read of the supported chains and assets: its answer is refused.
				message: expect.stringContaining(
					`The credential's Environment is "Local Sandbox (no real money)", but ${proxy.url} did not answer as the sandbox: its answer was not used`,
				),
			});
			expect(proxy.received.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/supported-assets']);
		} finally {
			await proxy.close();
		}
	});

	test("the Base URL check reads no credential of its own: a run of three items reads it once (the transport's read)", async () => {
		const reads = jest.spyOn(ExecuteContext.prototype, 'getCredentials');
		try {
			const out = json(await env.run(payment(env), { mode: 'manual', items: [{ json: {} }, { json: {} }, { json: {} }] }));
			expect(out.map((o) => o.created)).toEqual([true, true, true]);
			expect(reads).toHaveBeenCalledTimes(1);
		} finally {
			reads.mockRestore();
		}
	});
});

/** The key of the test below, as version 2.1 derived it. */
const PINNED_KEY = 'n8n-07c24a12328bed0adabf2994778dc999fc1a667bd9232014';

describe('node identity: a node replaced by a pasted copy before "Retry with currently saved workflow"', () => {
	test('the copy (same name, new id) sends the same Derived keys; no second order', async () => {
		const data = createRunExecutionData();
		// Item 2's payee is refused by the service alone (a row the node can check stops the batch before anything is sent).
		const batch = payment(env, { amountUsd: '={{ $json.amount }}', toAddress: '={{ $json.to }}', options: { concurrency: 1 } });
		const items = (to: string[]) => to.map((address) => ({ json: { amount: '2', to: address } }));
		const bob = walletOf(env.bob, 'ethereum');
		await expect(env.run(batch, { items: items([bob, UNKNOWN_WALLET]), mode: 'webhook', runExecutionData: data, nodeId: 'original' })).rejects.toMatchObject({
			message: expect.stringContaining('Recipient Address "0x000000000000000000000000000000000000dead"'),
		});
		const out = await env.run(batch, {
			items: items([bob, bob]),
			mode: 'retry',
			executionId: '2',
			runExecutionData: data,
			nodeId: 'pasted-copy',
		});
		expect(json(out).map((o) => o.replayed)).toEqual([true, false]);
		expect(await orderCount(env)).toBe(2);
	});

	test('the Derived key, byte for byte as version 2.1 sent it: instance, workflow, lineage, the node name (not its id), run, item, request', async () => {
		const data = createRunExecutionData();
		data.resultData.metadata = { [LINEAGE_CUSTOM_DATA_KEY]: `v1.${'ab'.repeat(16)}.${Date.now()}.1` };
		const instance = jest.spyOn(ExecuteContext.prototype, 'getInstanceId').mockReturnValue('pinned-instance');
		try {
			const run = async (nodeId: string, name: string) =>
				String(json(await env.run(payment(env), { mode: 'retry', executionId: '2', runExecutionData: data, nodeId, name }))[0].idempotencyKey);
			// Measured with version 2.1 (main at ff66ff0): any change here would pay again on a retry across the upgrade.
			expect(await run('n1', 'Pay Bob')).toBe(PINNED_KEY);
			expect(await run('pasted-copy', 'Pay Bob')).toBe(PINNED_KEY);
			expect(await run('n1', 'Pay Alice')).not.toBe(PINNED_KEY);
			expect(await orderCount(env)).toBe(2);
		} finally {
			instance.mockRestore();
		}
	});
});

describe('a Business Key batch is finishable by running it again', () => {
	// The bad row's payee is refused by the service alone (a row the node can check stops the batch before anything is sent).
	const batch = () =>
		newPayment({ amountUsd: '={{ $json.amount }}', toAddress: '={{ $json.to }}', idempotencyKey: '={{ $json.reference }}', options: { concurrency: 1 } });
	const rows = (bad?: number) =>
		Array.from({ length: 5 }, (_, n) => ({
			json: { reference: `PAY-${n + 1}`, amount: `${n + 1}`, to: n + 1 === bad ? UNKNOWN_WALLET : walletOf(env.bob, 'ethereum') },
		}));

	test('item 3 fails; a new run with the default expiry finishes items 3-5 and pays nothing twice', async () => {
		await expect(env.run(batch(), { items: rows(3), executionId: '1' })).rejects.toMatchObject({
			message: expect.stringContaining('Recipient Address "0x000000000000000000000000000000000000dead"'),
		});
		expect(await orderCount(env)).toBe(2);
		await new Promise((resolve) => setTimeout(resolve, 1100)); // a later start: another expiresAt
		await env.mark();
		const out = json(await env.run(batch(), { items: rows(), executionId: '2' }));
		expect(out.map((o) => o.created)).toEqual([false, false, true, true, true]);
		expect(out.map((o) => o.replayed)).toEqual([true, true, false, false, false]);
		expect(String(out[0].replayNote)).toMatch(/already existed \(made by an earlier run\) with the same payment values.*expiresAt .* is kept/);
		expect(await orderCount(env)).toBe(5);
		// The first two met the 409 (their expiry counted from the first run's start) and were found by key.
		expect((await posts()).map((r) => r.status)).toEqual([409, 409, 201, 201, 201]);
	});

	test('a changed user value is named with its input field and both values; nothing is created', async () => {
		const item = (amountUsd: string) => ({
			json: { fromUserId: env.alice.id, toAddress: walletOf(env.bob, 'ethereum'), toChain: 'ethereum', asset: 'USDC', amountUsd, reference: 'INV-map-9' },
		});
		await env.run(newPayment({ dataMode: 'autoMapInputData' }), { items: [item('9')], executionId: '1' });
		await expect(env.run(newPayment({ dataMode: 'autoMapInputData' }), { items: [item('9.5')], executionId: '2' })).rejects.toThrow(
			/Business Key "INV-map-9" already belongs to payment order .* with other values: Input field "amountUsd" is 9 on the order, this run sends 9.5/,
		);
		expect(await orderCount(env)).toBe(1);
	});
});

test('a replayed answer shows the order as it is now: a funded order gets no deposit address', async () => {
	const params = newPayment({ idempotencyKey: 'INV-funded-1', expiry: 'at', expiresAt: new Date(Date.now() + 3 * 3600_000).toISOString(), amountUsd: '7' });
	const [first] = json(await env.run(params, { executionId: '1' }));
	expect(first.depositAddress).toEqual(expect.any(String));
	await env.client.deposit(String(first.id), 7);
	const deadline = Date.now() + 30_000;
	while ((await env.op('GET', `/payment-orders/${String(first.id)}`)).status !== 'FUNDED' && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	const [again] = json(await env.run(params, { executionId: '2' }));
	expect(again).toMatchObject({ id: first.id, created: false, replayed: true, status: 'FUNDED', depositAddress: null, depositAddresses: [] });
	expect(String(again.depositAddressNote)).toContain('Do not fund it');
	expect(await orderCount(env)).toBe(1);
});

test('lost answers with Retry On Fail and a Business Key: the order this execution made is created: true (row 8)', async () => {
	await env.op('POST', '/faults', { method: 'POST', path: '^/api/v1/payment$', count: 4, commitThen500: true });
	const [item] = json(await env.run(newPayment({ idempotencyKey: 'INV-lost-1' }), { retryOnFail: { maxTries: 2 }, executionId: '31' }));
	expect((await posts()).map((r) => r.status)).toEqual([500, 500, 500, 500, 201]);
	expect(item).toMatchObject({ created: true, replayed: true, idempotencyKey: 'INV-lost-1' });
	expect(await orderCount(env)).toBe(1);
}, 30_000);
