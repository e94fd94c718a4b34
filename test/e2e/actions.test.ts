/**
 * Every operation of the Clearinghouse action node, run by a real n8n (`n8n execute`) from
 * imported workflows against the sandbox. Each check looks at both sides: the items n8n
 * returned and the requests the sandbox received. Operations are chained in a few workflows
 * because every `n8n execute` starts a whole n8n process.
 */
import { randomBytes } from 'node:crypto';

import { nodeItems, type RunData } from '../../harness/executions';
import { N8nInstance } from '../../harness/n8nProcess';
import { freePort } from '../../harness/ports';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { maskedSecret, walletOf, type LoggedRequest } from '../../harness/sandboxClient';
import type { WorkflowInput } from '../../harness/n8nProcess';
import { ACTION_NODE, action, chain, graph, itemsNode, type NodeSpec } from '../../harness/workflows';
import { payBob } from './support';

jest.setTimeout(240_000);

const once = { executeOnce: true };
const rl = (expression: string) => ({ __rl: true, mode: 'id', value: `={{ ${expression} }}` });
const operatorPost = (name: string, url: string, jsonBody?: string): NodeSpec => ({
	name,
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	executeOnce: true,
	parameters: {
		method: 'POST',
		url,
		...(jsonBody ? { sendBody: true, specifyBody: 'json', jsonBody } : {}),
		options: {},
	},
});

describe('Clearinghouse action node inside n8n', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let hookUrl: string;
	let workflows: WorkflowInput[] = [];
	/** resource.operation of every action node that ran successfully in some execution. */
	const ran = new Set<string>();
	const ids = {
		reference: 'e2eActionsRef001',
		orders: 'e2eActionsOrd001',
		webhooks: 'e2eActionsHook01',
		retry1: 'e2eRetryCommit01',
		retry4: 'e2eRetryCommit04',
		errors: 'e2eErrorOutput01',
	};
	/** In this run's memos: told apart from other runs' orders. */
	const run = randomBytes(4).toString('hex');
	const missingOrderId = '00000000-0000-4000-8000-00000000dead';
	let knownOrder: any;

	/** Runs a workflow with `n8n execute`; returns its run data and the requests the sandbox got meanwhile. */
	async function execute(id: string): Promise<{ run: RunData; requests: LoggedRequest[]; items: (node: string) => any[] }> {
		const mark = await stage.operator.mark();
		const result = await n8n.execute(id);
		if (result.code !== 0 || !result.run)
			throw new Error(`n8n execute ${id} exited ${result.code ?? result.signal}\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-2000)}`);
		const requests = await stage.operator.operationRequests(mark);
		const workflow = workflows.find((w) => w.id === id)!;
		for (const node of workflow.nodes) {
			const runs = result.run.data.resultData.runData[String(node.name)];
			const parameters = node.parameters as { resource?: string; operation?: string };
			if (node.type === ACTION_NODE && runs?.some((r) => !r.error)) ran.add(`${parameters.resource}.${parameters.operation}`);
		}
		return { run: result.run.data, requests, items: (node) => nodeItems(result.run!.data, node) };
	}
	const only = (requests: LoggedRequest[], method: string, path: RegExp) => {
		const found = requests.filter((r) => r.method === method && path.test(r.path));
		expect(found.map((r) => `${r.method} ${r.path}`)).toHaveLength(1);
		return found[0];
	};

	beforeAll(async () => {
		stage = await startSandboxStage({ allowLoopbackWebhooks: true });
		// The node accepts only https endpoint URLs (as the service does), and no https receiver runs
		// here: deliveries to this closed loopback port fail fast, which the sandbox records.
		hookUrl = `https://127.0.0.1:${await freePort()}/hook`;
		n8n = await N8nInstance.create();
		const credential = sandboxCredential(stage.sandbox);
		await n8n.importCredential(credential);
		const ref = { id: credential.id, name: credential.name };
		const bobEth = walletOf(stage.bob, 'ethereum');
		const bobBase = walletOf(stage.bob, 'base');
		const aliceEth = walletOf(stage.alice, 'ethereum');
		const order = (name: string, memo: string, extra: Record<string, unknown> = {}, node: Record<string, unknown> = once) =>
			payBob(stage, name, { amountUsd: '10.5', memo, ...extra }, node);
		knownOrder = await stage.operator.createOrder(12, `e2e error output ${run}`, `e2e-error-output-${run}`);
		const invoices = [
			{ invoice: 'INV-A', payee: 'Bob', paymentOrderId: knownOrder.id },
			{ invoice: 'INV-B', payee: 'Nobody', paymentOrderId: missingOrderId },
		];
		const noOp = (name: string): NodeSpec => ({ name, type: 'n8n-nodes-base.noOp' });
		await n8n.importWorkflows(
			(workflows = [
				graph(
					ids.errors,
					'e2e: error output and Continue On Fail',
					[
						{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
						itemsNode('Invoices', invoices),
						action('Get (error output)', 'paymentOrder', 'get', { paymentOrderId: rl('$json.paymentOrderId') }, { onError: 'continueErrorOutput' }),
						noOp('Found'),
						noOp('Failed'),
						action('Get (continue)', 'paymentOrder', 'get', { paymentOrderId: rl('$json.paymentOrderId') }, { onError: 'continueRegularOutput' }),
					],
					[
						['Start', 'Invoices'],
						['Invoices', 'Get (error output)'],
						['Get (error output)', 'Found', 0],
						['Get (error output)', 'Failed', 1],
						['Invoices', 'Get (continue)'],
					],
					ref,
				),
				chain(
					ids.reference,
					'e2e: reference data, users, quotes, rulesets, reward rules',
					[
						action('Supported assets', 'supportedAsset', 'getMany'),
						action('Limits', 'account', 'getLimits', {}, once),
						action('Batch check', 'account', 'checkBatch', { amountUsd: '25' }, once),
						action('Deposit addresses', 'depositAddress', 'getMany', {}, once),
						action(
							'Quote',
							'quote',
							'create',
							{ toChain: 'ethereum', asset: 'USDC', amountUsd: '25', additionalFields: { toAddress: bobEth, name: `e2e-quote-${run}` } },
							once,
						),
						action(
							'User',
							'user',
							'createOrUpdate',
							{ label: `e2e-dave-${run}`, wallets: { wallet: [{ chain: 'ethereum', address: `0x${randomBytes(20).toString('hex')}` }] } },
							once,
						),
						action(
							'Ruleset',
							'receiveRuleset',
							'create',
							{
								deliveredAsset: 'USDC',
								deliveredChain: 'base',
								toAddress: bobBase,
								idempotencyKeyMode: 'derived',
								additionalFields: { name: `e2e ruleset ${run}` },
							},
							once,
						),
						action(
							'Rename ruleset',
							'receiveRuleset',
							'rename',
							{ rulesetId: "={{ $('Ruleset').first().json.id }}", name: `e2e ruleset ${run} renamed` },
							once,
						),
						action(
							'Reward rule',
							'rewardRule',
							'create',
							{ name: `e2e rule ${run}`, description: 'made by the e2e suite', idempotencyKeyMode: 'derived' },
							once,
						),
						action('Reward rules', 'rewardRule', 'getMany', { status: 'active', returnAll: true }, once),
						action('Rule blocks', 'rewardRule', 'getRuleBlocks', {}, once),
					],
					ref,
				),
				chain(
					ids.orders,
					'e2e: payment order lifecycle',
					[
						order('Create order', `e2e order ${run}`, { idempotencyKeyMode: 'custom', idempotencyKey: `e2e-order-${run}`, options: { checkLimits: true } }, {}),
						action('Get order', 'paymentOrder', 'get', { paymentOrderId: rl("$('Create order').first().json.paymentOrderId") }, once),
						action(
							'List orders',
							'paymentOrder',
							'getMany',
							{ returnAll: false, limit: 10, filters: { status: ['AWAITING_FUNDS'], fromUserId: stage.alice.id } },
							once,
						),
						operatorPost(
							'Deposit (operator)',
							`${stage.sandbox.operatorUrl}/deposits`,
							`={{ JSON.stringify({ paymentOrderId: $('Create order').first().json.paymentOrderId, sender: '${aliceEth}', chain: 'ethereum', asset: 'USDC', amountUsd: 10.5 }) }}`,
						),
						action(
							'Submit transaction',
							'paymentOrder',
							'submitTransactions',
							{
								paymentOrderId: rl("$('Create order').first().json.paymentOrderId"),
								transactions: { transaction: [{ hash: "={{ $('Deposit (operator)').first().json.transactionHash }}", chain: 'ethereum' }] },
							},
							once,
						),
						action(
							'Return details',
							'paymentOrder',
							'setReturnDetails',
							{
								paymentOrderId: rl("$('Create order').first().json.paymentOrderId"),
								userId: stage.alice.id,
								wallets: { wallet: [{ chain: 'ethereum', address: aliceEth }] },
								idempotencyKeyMode: 'derived',
							},
							once,
						),
						action(
							'Cancel order',
							'paymentOrder',
							'cancel',
							{ paymentOrderId: rl("$('Create order').first().json.paymentOrderId"), reason: 'e2e: changed our mind' },
							once,
						),
						action('Find order', 'paymentOrder', 'findByKeys', { businessKey: `e2e-order-${run}` }, once),
					],
					ref,
				),
				chain(
					ids.webhooks,
					'e2e: webhook endpoints and deliveries',
					[
						action('Create endpoint', 'webhookEndpoint', 'create', { url: hookUrl, description: 'e2e endpoint' }),
						action('Get endpoint', 'webhookEndpoint', 'get', { endpointId: rl("$('Create endpoint').first().json.id") }, once),
						action('List endpoints', 'webhookEndpoint', 'getMany', { returnAll: true }, once),
						action(
							'Update endpoint',
							'webhookEndpoint',
							'update',
							{ endpointId: rl("$('Create endpoint').first().json.id"), updateFields: { description: 'e2e endpoint, updated' } },
							once,
						),
						action('Rotate secret', 'webhookEndpoint', 'rotateSecret', { endpointId: rl("$('Create endpoint').first().json.id"), rotation: 'graceful' }, once),
						action('Promote secret', 'webhookEndpoint', 'promoteSecret', { endpointId: rl("$('Create endpoint').first().json.id") }, once),
						action('Send test event', 'webhookEndpoint', 'sendTestEvent', { endpointId: rl("$('Create endpoint').first().json.id") }, once),
						order('Order for a delivery', `e2e delivery ${run}`, { idempotencyKeyMode: 'derived' }),
						operatorPost('Flush deliveries (operator)', `${stage.sandbox.operatorUrl}/webhooks/flush`),
						action(
							'List deliveries',
							'webhookDelivery',
							'getMany',
							{ returnAll: true, filters: { endpointId: "={{ $('Create endpoint').first().json.id }}" } },
							once,
						),
						action('Get delivery', 'webhookDelivery', 'get', { deliveryId: "={{ $('List deliveries').first().json.id }}" }, once),
						action('Replay delivery', 'webhookDelivery', 'replay', { deliveryId: "={{ $('List deliveries').first().json.id }}" }, once),
						action('Recover endpoint', 'webhookEndpoint', 'recover', { scope: 'one', endpointId: rl("$('Create endpoint').first().json.id") }, once),
						action('Delete endpoint', 'webhookEndpoint', 'delete', { endpointId: rl("$('Create endpoint').first().json.id") }, once),
					],
					ref,
				),
				chain(
					ids.retry1,
					'e2e: retry on fail, commit then 500 once',
					[order('Create order', `e2e retry1 ${run}`, { idempotencyKeyMode: 'derived' }, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 })],
					ref,
				),
				chain(
					ids.retry4,
					'e2e: retry on fail, commit then 500 four times',
					[order('Create order', `e2e retry4 ${run}`, { idempotencyKeyMode: 'derived' }, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 })],
					ref,
				),
			]),
		);
	});

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test('reference data, account, quotes, users, receive rulesets and reward rules', async () => {
		const { items, requests } = await execute(ids.reference);

		expect(items('Supported assets')).toEqual(stage.state.supportedAssets);
		// The Supported assets node's read, and Quote, User and Ruleset each check their chain and asset against it once before sending.
		expect(requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/supported-assets')).toHaveLength(4);

		const [limits] = items('Limits');
		expect(limits).toMatchObject({ maxTxUsd: { limit: stage.state.limits.maxTxUsd }, maxCountPerDay: { limit: stage.state.limits.maxCountPerDay } });
		// Limits and Batch check each read the limits once.
		expect(requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/account/limits')).toHaveLength(2);
		expect(items('Batch check')).toEqual([expect.objectContaining({ ok: true, orders: 1, totalUsd: 25, largestUsd: 25 })]);

		expect(items('Deposit addresses')).toEqual(expect.arrayContaining(stage.state.depositAddresses));
		only(requests, 'GET', /^\/api\/v1\/deposit-addresses$/);

		const [quote] = items('Quote');
		expect(quote).toMatchObject({ amountUsd: 25, asset: 'USDC', toChain: 'ethereum', name: `e2e-quote-${run}` });
		expect(quote.quoteId).toEqual(expect.any(String));
		expect(only(requests, 'POST', /^\/api\/v1\/quotes$/).body).toMatchObject({ amountUsd: 25, asset: 'USDC', toChain: 'ethereum', name: `e2e-quote-${run}` });

		const [user] = items('User');
		expect(user).toMatchObject({ label: `e2e-dave-${run}` });
		expect(JSON.stringify(user)).toContain('PENDING');
		expect(only(requests, 'POST', /^\/api\/v1\/add-user-record$/).body).toMatchObject({ label: `e2e-dave-${run}` });

		const [ruleset] = items('Ruleset');
		expect(ruleset).toMatchObject({ deliveredAsset: 'USDC', deliveredChain: 'base', name: `e2e ruleset ${run}` });
		const rulesetRequest = only(requests, 'POST', /^\/api\/v1\/rulesets$/);
		expect(rulesetRequest.body.idempotencyKey).toEqual(expect.any(String));
		const [renamed] = items('Rename ruleset');
		expect(renamed).toMatchObject({ id: ruleset.id, name: `e2e ruleset ${run} renamed` });
		expect(only(requests, 'PATCH', new RegExp(`^/api/v1/rulesets/${ruleset.id}$`)).body).toEqual({ name: `e2e ruleset ${run} renamed` });

		const [rule] = items('Reward rule');
		expect(rule).toMatchObject({ name: `e2e rule ${run}`, version: 1, status: 'active' });
		const ruleRequest = only(requests, 'POST', /^\/api\/v1\/rewards\/rules$/);
		expect(ruleRequest.api).toBe('rewards');
		expect(ruleRequest.headers['idempotency-key']).toEqual(expect.any(String));
		expect(items('Reward rules').map((r) => r.id)).toContain(rule.id);
		expect(only(requests, 'GET', /^\/api\/v1\/rewards\/rules$/).query).toMatchObject({ status: 'active' });
		const [blocks] = items('Rule blocks');
		expect(blocks.measures).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'daily_balance' })]));
		only(requests, 'GET', /^\/api\/v1\/rewards\/rule-blocks$/);

		// Every request carried the credential's key.
		// (The request log keeps it masked: its last characters and a fingerprint, sandbox/traffic.ts.)
		expect(requests.every((r) => r.headers['x-api-key'] === maskedSecret(stage.sandbox.apiKey))).toBe(true);
	});

	test('payment order: create, get, list, submit a deposit, return details, cancel', async () => {
		const { items, requests } = await execute(ids.orders);
		const [created] = items('Create order');
		const id = created.paymentOrderId;
		// Flat, as Get returns it, with the one address to pay (the order's asset and chain) beside the list.
		expect(created).toMatchObject({ id, status: 'AWAITING_FUNDS', amountUsd: 10.5, memo: `e2e order ${run}`, idempotencyKey: `e2e-order-${run}` });
		expect(created).not.toHaveProperty('paymentOrder');
		expect(created.depositAddresses.length).toBeGreaterThan(0);
		expect(created.depositAddress).toBe(stage.state.depositAddresses.find((d: any) => d.chain === created.toChain && d.symbol === created.asset).address);
		// Pre-flight limits, then the order itself with the business key.
		const limitsCheck = requests.findIndex((r) => r.path === '/api/v1/account/limits');
		const post = requests.findIndex((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		expect(limitsCheck).toBeGreaterThanOrEqual(0);
		expect(limitsCheck).toBeLessThan(post);
		expect(requests[post].body).toMatchObject({
			fromUserId: stage.alice.id,
			toAddress: stage.bob.wallets[0].address,
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: 10.5,
			memo: `e2e order ${run}`,
			idempotencyKey: `e2e-order-${run}`,
		});
		expect(Date.parse(requests[post].body.expiresAt)).toBeGreaterThan(Date.now());

		expect(items('Get order')[0]).toMatchObject({ id, status: 'AWAITING_FUNDS' });
		// Get, and Set Return Details reading the current revision first.
		expect(requests.filter((r) => r.method === 'GET' && r.path === `/api/v1/payment-orders/${id}`).length).toBeGreaterThanOrEqual(1);

		expect(items('List orders').map((o) => o.id)).toContain(id);
		const lists = requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/payment-orders');
		expect(lists.map((r) => r.query.fromUserId)).toEqual([stage.alice.id, undefined]); // List orders, then Find order
		expect(lists[0].query).toMatchObject({ status: 'AWAITING_FUNDS', fromUserId: stage.alice.id });

		const [submitted] = items('Submit transaction');
		expect(JSON.stringify(submitted)).toContain('"transfersProcessed":1');
		const hash = items('Deposit (operator)')[0].transactionHash;
		expect(only(requests, 'POST', new RegExp(`^/api/v1/payment-orders/${id}/transactions$`)).body).toEqual({ transactions: [{ hash, chain: 'ethereum' }] });

		const [details] = items('Return details');
		expect(details).toMatchObject({ paymentOrderId: id, revision: 1, details: { userId: stage.alice.id } });
		const put = only(requests, 'PUT', new RegExp(`^/api/v1/payment-orders/${id}/return-details$`));
		expect(put.headers['if-match']).toBe('"0"');
		expect(put.headers['idempotency-key']).toEqual(expect.any(String));
		expect(put.body).toEqual({ userId: stage.alice.id, wallets: [{ chain: 'ethereum', address: stage.alice.wallets[0].address }] });

		expect(items('Cancel order')[0]).toMatchObject({ paymentOrderId: id, accepted: true, statusCode: 202 });
		expect(only(requests, 'POST', new RegExp(`^/api/v1/payment-orders/${id}/cancel$`)).body).toEqual({ reason: 'e2e: changed our mind' });
		expect(items('Find order')[0]).toMatchObject({ found: true, businessKey: `e2e-order-${run}`, id });
		const after = await stage.operator.api('GET', `/payment-orders/${id}`);
		expect(after.cancelRequestedAt ?? after.canceledAt ?? after.status).toBeTruthy();
	});

	test('webhook endpoints (create, get, list, update, rotate, promote, test) and deliveries (list, get, replay)', async () => {
		const { items, requests } = await execute(ids.webhooks);
		const [endpoint] = items('Create endpoint');
		expect(endpoint).toMatchObject({ url: hookUrl, status: 'ENABLED', description: 'e2e endpoint' });
		expect(endpoint.secret).toMatch(/^whsec_[0-9a-f]+$/);
		const eid = endpoint.id;
		expect(only(requests, 'POST', /^\/api\/v1\/webhooks\/endpoints$/).body).toMatchObject({ url: hookUrl, eventTypes: ['payment_order'] });

		expect(items('Get endpoint')[0]).toMatchObject({ id: eid });
		expect(JSON.stringify(items('Get endpoint')[0])).not.toContain('whsec_');
		expect(items('List endpoints').map((e) => e.id)).toContain(eid);
		expect(items('Update endpoint')[0]).toMatchObject({ id: eid, description: 'e2e endpoint, updated' });
		expect(only(requests, 'PATCH', new RegExp(`^/api/v1/webhooks/endpoints/${eid}$`)).body).toEqual({ description: 'e2e endpoint, updated' });
		const [rotated] = items('Rotate secret');
		expect(rotated.secretNext).toMatch(/^whsec_/);
		expect(only(requests, 'POST', new RegExp(`^/api/v1/webhooks/endpoints/${eid}/rotate-secret$`)).query.immediate ?? 'false').not.toBe('true');
		only(requests, 'POST', new RegExp(`^/api/v1/webhooks/endpoints/${eid}/rotate-secret/promote$`));
		// Nothing listens at the endpoint: the synchronous test reports the failed delivery.
		expect(JSON.stringify(items('Send test event')[0])).toMatch(/"delivered":false/);
		only(requests, 'POST', new RegExp(`^/api/v1/webhooks/endpoints/${eid}/test$`));

		const deliveries = items('List deliveries');
		expect(deliveries.length).toBeGreaterThanOrEqual(1);
		expect(deliveries.every((d) => d.endpointId === eid)).toBe(true);
		// Two reads of the endpoint's delivery log: List deliveries, then Recover's.
		const logReads = requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/webhooks/deliveries');
		expect(logReads.map((r) => r.query)).toEqual([expect.objectContaining({ endpointId: eid }), expect.objectContaining({ endpointId: eid })]);
		expect(items('Get delivery')[0]).toMatchObject({ id: deliveries[0].id });
		only(requests, 'GET', new RegExp(`^/api/v1/webhooks/deliveries/${deliveries[0].id}$`));
		expect(JSON.stringify(items('Replay delivery')[0])).toBeTruthy();
		only(requests, 'POST', new RegExp(`^/api/v1/webhooks/deliveries/${deliveries[0].id}/replay$`));
		// Recover on a healthy endpoint whose event was delivered: nothing to re-enable or replay (the
		// replay above is the only one), so it only read.
		expect(items('Recover endpoint')).toEqual([expect.objectContaining({ endpointId: eid, statusBefore: 'ENABLED', reEnabled: false, replayed: 0 })]);

		only(requests, 'DELETE', new RegExp(`^/api/v1/webhooks/endpoints/${eid}$`));
		const all = (await stage.operator.api('GET', '/webhooks/endpoints')).endpoints as any[];
		expect(all.filter((e) => e.id === eid && !e.deletedAt)).toHaveLength(0);
	});

	async function ordersWithMemo(memo: string) {
		const list = await stage.operator.api('GET', '/payment-orders?limit=1000&status=AWAITING_FUNDS');
		return (list.paymentOrders as any[]).filter((o) => o.memo === memo);
	}

	test('Retry On Fail: the service commits, then answers 500 once: exactly one payment order', async () => {
		await stage.operator.fault({ method: 'POST', path: '^/api/v1/payment$', count: 1, commitThen500: true });
		const { items, requests } = await execute(ids.retry1);
		const posts = requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		expect(posts.map((r) => r.status)).toEqual([500, 201]);
		expect(new Set(posts.map((r) => r.body.idempotencyKey)).size).toBe(1);
		const orders = await ordersWithMemo(`e2e retry1 ${run}`);
		expect(orders).toHaveLength(1);
		expect(items('Create order')[0].paymentOrderId).toBe(orders[0].id);
	});

	test('Retry On Fail: commits answered 500 until the node gives up, then n8n re-runs it: still exactly one order', async () => {
		// Four 500s exhaust the node's own retries (4 tries), so the node fails and n8n's
		// Retry On Fail runs it again in the same execution; the fifth POST succeeds.
		await stage.operator.fault({ method: 'POST', path: '^/api/v1/payment$', count: 4, commitThen500: true });
		const { items, requests } = await execute(ids.retry4);
		const posts = requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		expect(posts.map((r) => r.status)).toEqual([500, 500, 500, 500, 201]);
		expect(new Set(posts.map((r) => r.body.idempotencyKey)).size).toBe(1);
		const orders = await ordersWithMemo(`e2e retry4 ${run}`);
		expect(orders).toHaveLength(1);
		expect(items('Create order')[0].paymentOrderId).toBe(orders[0].id);
	});

	// Last: what the node offers (its own description) against what ran above inside n8n.
	test('a failed item keeps its input fields on the error output; Continue On Fail gives {error, details}', async () => {
		const { items, requests } = await execute(ids.errors);
		const message = `Payment Order ${missingOrderId} not found`;
		expect(items('Found').map((o) => o.id)).toEqual([knownOrder.id]);
		// The error branch: the payee and invoice of the failed item, beside the service's explanation.
		expect(items('Failed')).toEqual([
			{
				invoice: 'INV-B',
				payee: 'Nobody',
				paymentOrderId: missingOrderId,
				error: message,
				details: { httpCode: '404', description: expect.stringMatching(/Not found/) },
			},
		]);
		// Continue On Fail (regular output): one item per input, the failed one is {error, details}.
		const continued = items('Get (continue)');
		expect(continued.map((o) => o.id ?? o.error)).toEqual([knownOrder.id, message]);
		expect(Object.keys(continued[1]).sort()).toEqual(['details', 'error']);
		expect(requests.filter((r) => r.path === `/api/v1/payment-orders/${missingOrderId}`).map((r) => r.status)).toEqual([404, 404]);
	});

	test('every operation of the action node ran at least once in n8n', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { Clearinghouse } = require('../../nodes/Clearinghouse/Clearinghouse.node') as typeof import('../../nodes/Clearinghouse/Clearinghouse.node');
		const properties = new Clearinghouse().description.properties;
		const offered: string[] = [];
		for (const resource of properties.find((p) => p.name === 'resource')!.options as Array<{ value: string }>) {
			const operation = properties.find((p) => p.name === 'operation' && (p.displayOptions?.show?.resource as string[] | undefined)?.includes(resource.value));
			for (const op of (operation?.options ?? []) as Array<{ value: string }>) offered.push(`${resource.value}.${op.value}`);
		}
		expect(offered.length).toBeGreaterThan(1);
		expect(offered.filter((op) => !ran.has(op))).toEqual([]);
	});
});
