/**
 * The example workflows in examples/, imported as shipped and run end to end by a real n8n against
 * the sandbox: 1 and 4 with `n8n execute`, 2 and 3 published the way the editor publishes (its REST
 * call, which refuses a workflow with node issues such as a missing credential) and driven by the
 * sandbox's signed events. The only changes to the shipped files are the ones a user makes once: Where messages
 * go → outboxUrl set to the outbox of this test's sandbox, which listens on another port than the default 4010,
 * and Example 10's chunk size (2 rows, for its 6).
 */
import { join } from 'node:path';

import { infer, merge, problems, readSchema, schemaFile, writeSchema } from '../support/outputSchema';
import { N8nRest } from '../../harness/n8nRest';
import { exampleFiles, findNode, loadExample, withOutbox } from '../../harness/examples';
import { nodeItems } from '../../harness/executions';
import { N8nInstance, sleep, type WorkflowInput } from '../../harness/n8nProcess';
import { freePort } from '../../harness/ports';
import { repoRoot } from '../../harness/runtime';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { triggerSecret } from '../../harness/secrets';
import { signatureHeader } from '../../harness/signer';

jest.setTimeout(300_000);

/** The one change a user makes for a small file: Loop Over Items' Batch Size (the chunk size). */
function inChunksOf(size: number, workflow: WorkflowInput): WorkflowInput {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowInput;
	(findNode(copy, 'Chunks of 1,000 rows').parameters as { batchSize: number }).batchSize = size;
	return copy;
}

describe('example workflows in a real n8n', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let batch: WorkflowInput;
	let slack: WorkflowInput;
	let ledger: WorkflowInput;
	let refund: WorkflowInput;
	let csv: WorkflowInput;
	let chunks: WorkflowInput;
	/** An example as shipped, its Where messages go set to this test's sandbox (not the default port 4010). */
	const shipped = (file: string): WorkflowInput => withOutbox(loadExample(file), stage.sandbox.mainUrl);
	const outbox = async (channel: string) => ((await stage.operator.call('GET', `outbox?channel=${channel}`)).messages as any[]).map((m) => m.body);

	async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			const value = await probe();
			if (value !== undefined && value !== false) return value;
			await sleep(300);
		}
		throw new Error(`timed out waiting for ${what}`);
	}
	const order = (id: string) => stage.operator.api('GET', `/payment-orders/${id}`);
	const createOrder = (memo: string, amountUsd: number) => stage.operator.createOrder(amountUsd, memo, `e2e-example-${memo}`);
	/** Sends a deposit from alice's wallet and attributes it; resolves once the order is FUNDED. */
	async function fund(paymentOrder: any) {
		await stage.operator.deposit(paymentOrder.id, paymentOrder.amountUsd);
		return await waitFor(`order ${paymentOrder.id} FUNDED`, async () =>
			(await order(paymentOrder.id)).status === 'FUNDED' ? order(paymentOrder.id) : undefined,
		);
	}

	beforeAll(async () => {
		// Real time: deposits confirm in seconds, and the sandbox's delivery timeout stays 10 s. At 2x
		// (a 5 s timeout) nearly every delivery timed out while the shared machine ran at load 25, and
		// ten failures in a row disable the endpoint.
		stage = await startSandboxStage({ allowLoopbackWebhooks: true, timeScale: 1 });
		[batch, slack, ledger, refund] = [
			'1-scheduled-batch-payouts.json',
			'2-payment-events-to-slack.json',
			'3-settled-orders-to-ledger.json',
			'4-refund-handling.json',
		].map(shipped);
		csv = loadExample('9-pay-from-a-csv-file.json');
		chunks = inChunksOf(2, loadExample('10-pay-a-large-csv-in-chunks.json'));
		n8n = await N8nInstance.create();
		await n8n.importCredential(sandboxCredential(stage.sandbox));
		await n8n.importWorkflows([batch, refund, slack, ledger, csv, chunks]);
	});

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test('every example is valid workflow JSON that references the sandbox credential', () => {
		expect(exampleFiles()).toHaveLength(10);
		const withCode: string[] = [];
		for (const file of exampleFiles()) {
			const workflow = loadExample(file);
			// No JavaScript to write or read: payees, messages, ledger rows and polling are n8n's own nodes.
			for (const node of workflow.nodes) if (node.type === 'n8n-nodes-base.code') withCode.push(`${file}: ${node.name}`);
			const ours = workflow.nodes.filter((n) => String(n.type).startsWith('n8n-nodes-clearinghouse.'));
			expect(ours.length).toBeGreaterThan(0);
			for (const node of ours)
				expect(node.credentials).toEqual({ clearinghouseApi: sandboxCredential(stage.sandbox) && { id: 'chSandboxCred001', name: 'Clearinghouse sandbox' } });
			// Nothing that needs an account elsewhere, and no code to edit before the first run.
			expect(workflow.nodes.filter((n) => !String(n.type).startsWith('n8n-nodes-clearinghouse.') && n.credentials)).toEqual([]);
			expect(JSON.stringify(workflow)).not.toMatch(/REPLACE_WITH/);
		}
		// No example needs JavaScript: payees and invoices are Edit Fields rows a person edits.
		expect(withCode).toEqual([]);
	});

	test("9. pay from a CSV file: n8n's file nodes read the rows, Map Automatically pays each once (chain names in any case, the defaults for the rest); a re-run pays nothing", async () => {
		const run = async () => {
			const result = await n8n.execute(csv.id);
			if (result.code !== 0 || !result.run) throw new Error(`example 9 failed\n${result.stdout.slice(-3000)}`);
			return {
				paid: nodeItems(result.run.data, 'Paid') as any[],
				// The error output of the Create node (Not paid runs only when it has items).
				notPaid: nodeItems(result.run.data, 'Pay each row', 1) as any[],
			};
		};
		const first = await run();
		expect(first.notPaid).toEqual([]);
		expect(first.paid.map((o) => [o.idempotencyKey, o.toChain, o.asset, o.amountUsd, o.created])).toEqual([
			['CSV-3001', 'ethereum', 'USDC', 95.5, true],
			['CSV-3002', 'base', 'USDC', 1250, true],
			['CSV-3003', 'solana', 'USDC', 42, true],
		]);
		const again = await run();
		expect(again.paid.map((o) => [o.idempotencyKey, o.id, o.created])).toEqual(first.paid.map((o) => [o.idempotencyKey, o.id, false]));
	});

	test('1. scheduled batch payouts: limits checked first, one order per payee, business keys make a re-run create nothing, summary and failures in the outbox', async () => {
		const run = async () => {
			const mark = await stage.operator.mark();
			const result = await n8n.execute(batch.id);
			if (result.code !== 0 || !result.run) throw new Error(`example 1 failed\n${result.stdout.slice(-3000)}`);
			return {
				summary: nodeItems(result.run.data, 'Summary')[0] as any,
				failedPayees: nodeItems(result.run.data, 'Failed payees') as any[],
				requests: await stage.operator.requests(mark),
			};
		};
		const first = await run();
		// The sample's INV-1004 pays an unregistered address: it fails alone, on the error branch.
		// The summary is a table built without code (Summarize by status and by createdThisRun): one group here.
		expect(first.summary).toMatchObject({
			failed: 1,
			byStatus: [{ status: 'AWAITING_FUNDS', createdThisRun: true, orders: 3, totalUsd: 477.75, list: expect.any(Array) }],
		});
		const firstOrders = first.summary.byStatus[0].list as any[];
		const refused = /^Recipient Address "0x0+dead" on Ethereum is not a registered wallet of the credential's own account/;
		// n8n's error output keeps the payee's CSV row beside the error.
		expect(first.failedPayees).toEqual([
			expect.objectContaining({
				payee: 'Carol (not registered)',
				chain: 'ethereum',
				address: '0x000000000000000000000000000000000000dead',
				amountUsd: '5.00',
				reference: 'INV-1004',
				error: expect.stringMatching(refused),
			}),
		]);
		// The Business Key is the reference alone: no date, so a re-run on any day finds the same orders.
		expect(firstOrders.map((o: any) => o.businessKey).sort()).toEqual(['payout-INV-1001', 'payout-INV-1002', 'payout-INV-1003']);
		// Each order is paid at the deposit address for its own asset and chain (the node's depositAddress).
		const payAt = (chain: string) => stage.state.depositAddresses.find((d: any) => d.chain === chain && d.symbol === 'USDC').address;
		expect(firstOrders.map((o: any) => [o.reference, o.fundWith, o.fundTo]).sort()).toEqual([
			['INV-1001', 'USDC on ethereum', payAt('ethereum')],
			['INV-1002', 'USDC on base', payAt('base')],
			['INV-1003', 'USDC on solana', payAt('solana')],
		]);
		// What a person sees: the summary and the refused payee in the outbox (Slack or email in production).
		expect(await outbox('payouts')).toEqual([first.summary]);
		expect(await outbox('payout-failures')).toEqual([
			{
				reference: 'INV-1004',
				payee: 'Carol (not registered)',
				chain: 'ethereum',
				address: '0x000000000000000000000000000000000000dead',
				amountUsd: '5.00',
				error: expect.stringMatching(refused),
			},
		]);
		const limitsAt = first.requests.findIndex((r) => r.path === '/api/v1/account/limits');
		const posts = first.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		expect(limitsAt).toBe(0);
		// The node sends up to 5 at a time, so the wire order varies: compare sorted by reference.
		expect(posts.map((r) => [r.body.memo, r.body.amountUsd, r.body.toChain, r.status]).sort()).toEqual([
			['INV-1001', 125.5, 'ethereum', 201],
			['INV-1002', 42, 'base', 201],
			['INV-1003', 310.25, 'solana', 201],
			['INV-1004', 5, 'ethereum', 400],
		]);

		// Run again: the same keys, so the service answers with the same orders and nothing is made.
		const second = await run();
		expect(second.summary).toMatchObject({ failed: 1, byStatus: [{ status: 'AWAITING_FUNDS', createdThisRun: false, orders: 3, totalUsd: 477.75 }] });
		const ids = (orders: any[]) => orders.map((o) => o.paymentOrderId).sort();
		expect(ids(second.summary.byStatus[0].list)).toEqual(ids(firstOrders));
		const all = (await stage.operator.api('GET', '/payment-orders?limit=1000&status=AWAITING_FUNDS')).paymentOrders as any[];
		expect(all.filter((o) => /^INV-100[123]$/.test(o.memo))).toHaveLength(3);

		// Over a limit: the batch stops before any order is created.
		await stage.operator.call('POST', 'account', { limits: { maxTxUsd: 100 } });
		try {
			const mark = await stage.operator.mark();
			const stopped = await n8n.execute(batch.id);
			expect(stopped.code).toBe(1);
			expect(stopped.stdout).toContain('Batch stopped before any order was created');
			expect((await stage.operator.requests(mark)).filter((r) => r.method === 'POST')).toHaveLength(0);
		} finally {
			await stage.operator.call('POST', 'account', { limits: stage.state.limits });
		}
	});

	test('4. refund handling: return details, cancel, followed to REFUNDED', async () => {
		const paymentOrder = await createOrder('refund-me', 20);
		await fund(paymentOrder);
		// What the user does in the editor: pick the order in Get order's list.
		const copy = JSON.parse(JSON.stringify(refund));
		const picked = findNode(copy, 'Get order').parameters as { paymentOrderId: { mode: string; value: string } };
		expect(picked.paymentOrderId).toEqual({ __rl: true, mode: 'list', value: '' });
		picked.paymentOrderId.value = paymentOrder.id;
		await n8n.importWorkflow(copy);
		const mark = await stage.operator.mark();
		const result = await n8n.execute(copy.id);
		if (result.code !== 0 || !result.run) throw new Error(`example 4 failed\n${result.stdout.slice(-3000)}`);
		const [done] = nodeItems(result.run.data, 'Refund done') as any[];
		expect(done).toMatchObject({ paymentOrderId: paymentOrder.id, status: 'REFUNDED' });
		expect(done.returned[0]).toMatchObject({ status: 'RETURNED' });
		const requests = await stage.operator.requests(mark);
		const put = requests.find((r) => r.method === 'PUT')!;
		expect(put.body).toEqual({ userId: stage.state.users[0].id, wallets: [{ chain: 'ethereum', address: stage.state.users[0].wallets[0].address }] });
		const cancel = requests.filter((r) => r.method === 'POST' && r.path.endsWith('/cancel'));
		expect(cancel).toHaveLength(1);
		expect(requests.indexOf(put)).toBeLessThan(requests.indexOf(cancel[0]));
		const after = await order(paymentOrder.id);
		expect(after.status).toBe('REFUNDED');
		expect(after.inboundTransfers[0].refundTransactionHash).toEqual(expect.any(String));
	});

	describe('event examples, published in a running n8n', () => {
		const slackPath = `${findNode(loadExample('2-payment-events-to-slack.json'), 'Clearinghouse Trigger').webhookId}/webhook`;
		const ledgerPath = `${findNode(loadExample('3-settled-orders-to-ledger.json'), 'Clearinghouse Trigger').webhookId}/webhook`;
		let a: any;
		let rest: N8nRest;

		beforeAll(async () => {
			// A generous bound: on a loaded machine n8n took more than 90 s to turn ready.
			await n8n.start({ timeoutMs: 240_000 });
			rest = new N8nRest(n8n.baseUrl);
			await rest.setupOwner('owner@examples.test', 'Examples-Suite-Passw0rd');
			await rest.publish(slack.id);
			await rest.publish(ledger.id);
			await n8n.waitForWebhook(slackPath);
			await n8n.waitForWebhook(ledgerPath);
			await waitFor(
				'two endpoints',
				async () => ((await stage.operator.api('GET', '/webhooks/endpoints')).endpoints as any[]).filter((e) => !e.deletedAt).length === 2 || undefined,
			);
		}, 480_000);

		test('publishing checks node issues: the former Slack ending, with no Slack credential, is refused', async () => {
			// Negative control: Example 2 as it used to ship (a Slack node, no Slack account) blocks publishing.
			const withSlack = JSON.parse(JSON.stringify(slack)) as WorkflowInput;
			withSlack.id = 'exEventsSlackOld';
			withSlack.name = 'Example 2 with a Slack node';
			const post = findNode(withSlack, 'Post message');
			for (const key of Object.keys(post)) if (!['id', 'name', 'position'].includes(key)) delete post[key];
			Object.assign(post, {
				type: 'n8n-nodes-base.slack',
				typeVersion: 2.2,
				parameters: { select: 'channel', channelId: { __rl: true, value: '#payments', mode: 'name' }, text: '={{ $json.text }}', otherOptions: {} },
			});
			const trigger = findNode(withSlack, 'Clearinghouse Trigger');
			trigger.webhookId = 'b6c1f1de-0d7e-4c39-9d59-3f1d2b0c0a11';
			trigger.id = 'slack-old-trigger';
			await n8n.importWorkflow(withSlack);
			await expect(rest.publish(withSlack.id)).rejects.toThrow(/Cannot publish workflow[\s\S]*Post message[\s\S]*(credential|Credential)/);
		});

		test('"refund" finds both nodes in the nodes panel: codex aliases as n8n serves them', async () => {
			const types = await rest.getJson<Array<{ name: string; codex?: { alias?: string[] } }>>('/types/nodes.json');
			// (n8n also lists the action node's AI-tool variant, clearinghouseTool.)
			for (const name of ['n8n-nodes-clearinghouse.clearinghouse', 'n8n-nodes-clearinghouse.clearinghouseTrigger']) {
				expect({ name, alias: types.find((t) => t.name === name)?.codex?.alias }).toEqual({ name, alias: expect.arrayContaining(['refund']) });
			}
		});

		test('the credential test explains a wrong key (401) and a blocked account (403)', async () => {
			const test = async (data: Record<string, string>) =>
				(
					await rest.call('POST', '/credentials/test', {
						credentials: { id: 'chSandboxCred001', name: 'Clearinghouse sandbox', type: 'clearinghouseApi', data },
					})
				).data;
			const base = { apiKey: stage.sandbox.apiKey, baseUrl: stage.sandbox.mainUrl, rewardsUrl: stage.sandbox.rewardsUrl };
			expect(await test(base)).toMatchObject({ status: 'OK' });
			expect(await test({ ...base, apiKey: 'sk_wrong_key' })).toEqual({
				status: 'Error',
				message: expect.stringMatching(/^The API key was not accepted \(401\)\. Copy it again/),
			});
			await stage.operator.call('POST', 'account', { kyb: 'PENDING' });
			try {
				expect(await test(base)).toEqual({ status: 'Error', message: expect.stringMatching(/\(403\): it must be ACTIVE with KYB APPROVED/) });
			} finally {
				await stage.operator.call('POST', 'account', { kyb: stage.state.account.kyb });
			}
		});

		test('2 and 3. funded, distributed, failed and refunded orders reach Slack; one ledger row per settled order; stale and repeated events add none', async () => {
			a = await createOrder('slack-a', 11);
			const b = await createOrder('slack-b', 12);
			const c = await createOrder('slack-c', 13);
			// c will be refunded: say where its deposit goes back before funding it.
			const [alice] = stage.state.users;
			const put = await fetch(`${stage.sandbox.mainUrl}/api/v1/payment-orders/${c.id}/return-details`, {
				method: 'PUT',
				headers: { 'x-api-key': stage.sandbox.apiKey, 'content-type': 'application/json', 'if-match': '"0"', 'idempotency-key': 'e2e-return-c' },
				body: JSON.stringify({ userId: alice.id, wallets: [{ chain: 'ethereum', address: alice.wallets[0].address }] }),
			});
			expect(put.status).toBe(200);
			await Promise.all([a, b, c].map((o) => fund(o)));
			// The trigger confirms each event with the API and emits the order as it is when the event
			// arrives: let the FUNDED events arrive before the orders move on (as with a real netting
			// window, which stays open far longer than a delivery takes).
			await waitFor('three FUNDED Slack messages', async () => {
				await stage.operator.call('POST', 'webhooks/flush');
				return (await outbox('slack')).filter((m: any) => m.text.includes('is funded')).length >= 3 || undefined;
			});
			// c is canceled while FUNDED (so the netting window leaves it out and it is refunded);
			// b's distribution is told to fail; a settles when the window closes.
			await stage.operator.api('POST', `/payment-orders/${c.id}/cancel`, { reason: 'e2e refund' });
			await stage.operator.call('POST', `payment-orders/${b.id}/fail-distribution`);
			await stage.operator.call('POST', 'netting/close');
			await waitFor('c REFUNDED', async () => ((await order(c.id)).status === 'REFUNDED' ? true : undefined));

			const expected = [
				[a.id, 'FUNDED'],
				[a.id, 'DISTRIBUTED'],
				[b.id, 'FUNDED'],
				[b.id, 'DISTRIBUTION_FAILED'],
				[c.id, 'FUNDED'],
				[c.id, 'REFUNDED'],
			];
			const messages = await waitFor('six Slack messages', async () => {
				await stage.operator.call('POST', 'webhooks/flush');
				const got = await outbox('slack');
				return got.length >= expected.length ? got : undefined;
			}).catch(async (error) => {
				const runs = n8n
					.listExecutions(slack.id)
					.map((e) => ({ status: e.status, error: e.data.resultData.error?.message, ran: Object.keys(e.data.resultData.runData) }));
				const attempts = ((await stage.operator.call('GET', 'webhooks/attempts')).attempts as any[]).map((x) => ({
					url: x.url.slice(-20),
					status: JSON.parse(x.body).data?.payment_order?.status,
					order: JSON.parse(x.body).data?.payment_order?.id?.slice(0, 8),
					version: JSON.parse(x.body).data?.payment_order?.version,
					code: x.statusCode,
					error: x.error,
				}));
				throw new Error(
					`${error.message}: got ${JSON.stringify(await outbox('slack'))}; executions ${JSON.stringify(runs)}; attempts ${JSON.stringify(attempts)}; orders a,b,c ${[a, b, c].map((o) => o.id.slice(0, 8))}`,
				);
			});
			await sleep(2_000);
			expect(await outbox('slack')).toHaveLength(expected.length);
			for (const [id, status] of expected) {
				const text = messages.find(
					(m) =>
						m.text.includes(id) &&
						m.text.includes(
							status === 'FUNDED' ? 'is funded' : status === 'DISTRIBUTED' ? 'was delivered' : status === 'REFUNDED' ? 'was refunded' : 'failed to distribute',
						),
				);
				// A refund line says what went back (from the order's returned transfers), not the order's amount and recipient.
				const what =
					status === 'REFUNDED'
						? `${c.amountUsd} USD in USDC on ethereum sent back for the deposit from ${alice.wallets[0].address}`
						: 'USD as USDC on ethereum';
				expect({ id, status, text: text?.text }).toEqual({ id, status, text: expect.stringContaining(what) });
				expect(text.channel).toBe('#payments');
			}

			// Ledger: exactly one row, for the one settled order.
			const rows = await outbox('ledger');
			expect(rows).toHaveLength(1);
			expect(rows[0]).toMatchObject({ paymentOrderId: a.id, amountUsd: 11, asset: 'USDC', chain: 'ethereum', memo: 'slack-a' });
			expect(rows[0].distributionTransactionHash).toEqual(expect.any(String));
			const executions = n8n.finishedExecutions(ledger.id);
			expect(executions).toHaveLength(1);
			expect(nodeItems(executions[0].data, 'Append to ledger')).toHaveLength(1);

			// A stale DISTRIBUTED event for that order (lower version), correctly signed, and a replay
			// of the real one: neither adds a row.
			const secret = triggerSecret(n8n.executions.staticData(ledger.id), {
				apiKey: stage.sandbox.apiKey,
				workflowId: ledger.id,
				nodeId: String(findNode(ledger, 'Clearinghouse Trigger').id),
			})!;
			expect(secret).toMatch(/^whsec_/);
			const current = await order(a.id);
			const event = {
				id: `evt_stale${Date.now()}_payment_order`,
				type: 'payment_order',
				created: new Date().toISOString(),
				accountId: stage.state.accountId,
				data: { payment_order: { ...current, returns: undefined, version: rows[0].orderVersion - 1 } },
			};
			const raw = JSON.stringify(event);
			const t = Math.floor(Date.now() / 1000);
			const response = await fetch(n8n.webhookUrl(ledgerPath), {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-service-webhook-id': event.id,
					'x-service-webhook-signature': signatureHeader(secret, t, raw),
				},
				body: raw,
			});
			expect({ status: response.status, body: await response.text() }).toEqual({ status: 200, body: expect.stringContaining('received') });
			const deliveries = (await stage.operator.api('GET', '/webhooks/deliveries?limit=1000')).deliveries as any[];
			const ledgerEndpoint = ((await stage.operator.api('GET', '/webhooks/endpoints')).endpoints as any[]).find(
				(e) => !e.deletedAt && e.url === n8n.webhookUrl(ledgerPath),
			);
			const settled = deliveries.filter((d) => d.endpointId === ledgerEndpoint.id && d.status === 'DELIVERED');
			for (const d of settled) await stage.operator.api('POST', `/webhooks/deliveries/${d.id}/replay`);
			await stage.operator.call('POST', 'webhooks/flush');
			await sleep(2_500);
			expect(await outbox('ledger')).toHaveLength(1);
			expect(n8n.listExecutions(ledger.id)).toHaveLength(1);
		});

		test("the trigger's output schema fits its real items (funded, distributed, failed, refunded)", () => {
			const items = n8n.finishedExecutions(slack.id).flatMap((e) => nodeItems(e.data, 'Clearinghouse Trigger')) as any[];
			expect(new Set(items.map((i) => i.paymentOrder.status))).toEqual(new Set(['FUNDED', 'DISTRIBUTED', 'DISTRIBUTION_FAILED', 'REFUNDED']));
			const file = schemaFile(join(repoRoot, 'nodes', 'ClearinghouseTrigger'), '1.0.0');
			if (process.env.UPDATE_OUTPUT_SCHEMAS === '1')
				writeSchema(
					file,
					items.map(infer).reduce((x, y) => merge(x, y)),
				);
			const schema = readSchema(file);
			expect(schema).toMatchObject({ type: 'object', version: 1 });
			expect(items.flatMap((item) => problems(schema!, item))).toEqual([]);
		});

		test('10. a large CSV in chunks: the file checked once, each chunk its own sub-workflow run; n8n killed mid-run, the same run again pays the rest, one order per row', async () => {
			// Its chunks run as its own sub-workflow, which n8n runs in its published version (outside the editor).
			await rest.publish(chunks.id);
			// Every POST /payment takes 400 ms at the sandbox, so the kill lands while a chunk is being paid.
			await stage.operator.fault({ method: 'POST', path: '^/api/v1/payment$', count: 6, delayMs: 400 });
			const mark = await stage.operator.mark();
			const crashed = await n8n.spawnProcess(['execute', `--id=${chunks.id}`, '--rawOutput'], {
				name: 'n8n-execute-chunks-killed',
				env: { N8N_RUNNERS_BROKER_PORT: String(await freePort()) },
			});
			const paid = async (since: number) => (await stage.operator.paymentPosts(since)).filter((r) => r.status === 201).length;
			const deadline = Date.now() + 120_000;
			// The first chunk (2 rows) is paid: the second is on its way.
			while ((await paid(mark)) < 2) {
				if (!crashed.running) throw new Error(`the payout ended before the kill:\n${crashed.tail}`);
				if (Date.now() > deadline) throw new Error(`the payout did not pay its first chunk:\n${crashed.tail}`);
				await sleep(50);
			}
			await crashed.stop('SIGKILL');
			await stage.operator.clearFaults();
			// Requests in flight at the kill finish at the sandbox (it read their bodies first).
			await sleep(1_000);
			const before = await stage.operator.ordersByMemo('BIG-');
			const madeBefore = Object.values(before).reduce((a, b) => a + b, 0);
			expect(madeBefore).toBeGreaterThanOrEqual(2);
			expect(madeBefore).toBeLessThan(6);
			expect(Object.values(before).every((n) => n === 1)).toBe(true);

			// The documented way to finish: run the same workflow again.
			const again = await stage.operator.mark();
			const result = await n8n.execute(chunks.id);
			if (result.code !== 0 || !result.run) throw new Error(`example 10 failed\n${result.stdout.slice(-3000)}`);
			const runData = result.run.data.resultData.runData;
			// The whole file checked once, before any chunk; then 3 chunks of 2, each a run of the sub-workflow.
			expect(runData['Check the whole file']).toHaveLength(1);
			expect(nodeItems(result.run.data, 'Check the whole file')).toEqual([expect.objectContaining({ ok: true })]);
			expect(runData['Pay one chunk']).toHaveLength(3);
			const summary = nodeItems(result.run.data, 'Payout summary') as any[];
			const count = (created: boolean) => summary.find((s) => s.created === created)?.sum_count_paymentOrderId ?? 0;
			expect({ createdNow: count(true), found: count(false) }).toEqual({ createdNow: 6 - madeBefore, found: madeBefore });
			// Only the rows without an order were created now, each once: one order per row in all.
			const created = (await stage.operator.paymentPosts(again)).filter((r) => r.status === 201).map((r) => r.body.idempotencyKey);
			expect(created.sort()).toEqual(['BIG-4001', 'BIG-4002', 'BIG-4003', 'BIG-4004', 'BIG-4005', 'BIG-4006'].filter((key) => !(key in before)));
			expect(await stage.operator.ordersByMemo('BIG-')).toEqual(
				Object.fromEntries(['BIG-4001', 'BIG-4002', 'BIG-4003', 'BIG-4004', 'BIG-4005', 'BIG-4006'].map((key) => [key, 1])),
			);
		});
	});
});
